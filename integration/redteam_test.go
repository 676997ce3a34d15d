package integration

import (
	"os"
	"strconv"
	"testing"
)

// attack marks t an attack test (races against swapped links, writers
// against writers, the shell's and trash's walls, hostile names): `make
// redteam` builds the tests with the redteam tag, which runs every test
// that calls attack and no other (redteam_tag_test.go), so a renamed
// attack is never left out. It returns how many times longer the attack
// runs: its time and call bounds are multiplied by FSMCP_REDTEAM (make
// redteam sets it); 1 when it is unset, which is what make test runs, in
// seconds.
func attack(t testing.TB) int {
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

// beforeRun, when set (by a build tag's file), runs in TestMain before
// the tests do.
var beforeRun func() error
