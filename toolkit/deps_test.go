package toolkit

import (
	"os/exec"
	"strings"
	"testing"
)

// toolkitMustNotReach are the services toolkit talks to only through
// small interfaces and hooks (Env.Journal, Env.Changed, Env.CallClock,
// Settings.Shell by name): main and server build them and hand them in.
var toolkitMustNotReach = []string{"backend", "journal", "shell", "watch",
	// The search wing's rooms behind the contract: the drivers, the queue
	// and page cache, the pattern's analysis, the ignore rules, the
	// native scanner, the index, the confinement rg runs under and the
	// constructor that builds the stack.
	"backend/driver", "backend/queue", "backend/pattern", "backend/ignore",
	"backend/native", "backend/index", "backend/driver/confine", "backend/stack"}

// toolkitDebts are those toolkit still reaches, each with the way in;
// remove an entry with the change that cuts it.
var toolkitDebts = map[string]string{
	"backend": "Env.Searcher names backend's Searcher, whose methods take backend's query and result types: the search contract, which is all of backend that is left once its drivers, queue and pattern analysis have rooms of their own (backend imports no other fsmcp package but internal/escape)",
}

// TestToolkitReachesNoService runs go list -deps on toolkit: none of the
// services may be among its dependencies, except the debts named (and a
// debt that is gone fails too, so the list only shrinks).
func TestToolkitReachesNoService(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("SKIPPED: the dependency rule is read with the go command, which is not on PATH: %v", err)
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, line := range strings.Fields(string(out)) {
		deps[line] = true
	}
	for _, name := range toolkitMustNotReach {
		path := "github.com/fsmcp/fsmcp/" + name
		why, debt := toolkitDebts[name]
		switch {
		case deps[path] && !debt:
			t.Errorf("toolkit depends on %s: talk to it through an interface or hook in Env that main or server fills in", path)
		case !deps[path] && debt:
			t.Errorf("toolkit no longer depends on %s: drop it from toolkitDebts (%s)", path, why)
		}
	}
}
