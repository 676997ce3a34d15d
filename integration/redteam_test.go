//go:build unix

package integration

import (
	"os"
	"strconv"
	"testing"
)

// redteam is how many times longer the race tests attack: their time and
// call bounds are multiplied by FSMCP_REDTEAM (make redteam sets it); 1
// when it is unset, which is what make test runs, in seconds.
func redteam(t testing.TB) int {
	t.Helper()
	v := os.Getenv("FSMCP_REDTEAM")
	if v == "" {
		return 1
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 1 {
		t.Fatalf("FSMCP_REDTEAM=%q: want a whole number of times, 1 or more", v)
	}
	return k
}
