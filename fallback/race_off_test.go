//go:build !race

package fallback

// slowdown scales timing bounds (see race_on_test.go).
const slowdown = 1
