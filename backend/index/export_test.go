package index

// The helpers of package index's own tests, for its external tests
// (ownwrites_test.go, which drives a server through testenv; testenv
// builds the search stack, which imports this package).
var (
	NewIndexed = newIndexed
	Result     = result
	Settled    = settled
)
