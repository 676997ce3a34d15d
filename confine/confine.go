// Package confine runs a helper program (rg, find) so that it can read
// the sandbox roots and nothing else: fsmcp re-executes itself as a small
// helper that restricts itself with Landlock and then execs the program.
// A race inside the program's own walker (a directory swapped with a
// symlink out) then meets a kernel refusal instead of an outside file.
//
// Where Landlock is missing (another OS, an old kernel) or the running
// executable does not dispatch the helper (MaybeRun was not called), the
// program runs unconfined, and Confined says so.
package confine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// helperArg is argv[1] of the re-executed fsmcp that confines itself and
// execs the program. It is not a user-facing command.
const helperArg = "__fsmcp_readonly_exec"

// Policy is what the confined program may read.
type Policy struct {
	// Dirs: read files and list directories beneath them (the roots).
	Dirs []string `json:"dirs"`
	// Files: read these files only (ignore files above a root, inside
	// its repository).
	Files []string `json:"files"`
}

// dispatching is set by MaybeRun: this executable serves the helper.
var dispatching bool

// MaybeRun must be called first thing in main (and in a TestMain whose
// tests run rg). When the process was started as the helper it confines
// itself and execs the program, and never returns; on any failure it
// exits with status 126 and a message on stderr, without running the
// program. Otherwise it returns at once.
func MaybeRun() {
	dispatching = true
	if len(os.Args) < 4 || os.Args[1] != helperArg {
		return
	}
	var p Policy
	if err := json.Unmarshal([]byte(os.Args[2]), &p); err != nil {
		fail(fmt.Errorf("bad policy: %w", err))
	}
	argv := os.Args[3:]
	if err := restrictAndExec(p, argv); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "fsmcp: confine: %v; the program was not run\n", err)
	os.Exit(126)
}

// Confined reports whether Command confines programs here.
func Confined() bool { return dispatching && available() }

// Command returns the command that runs bin with args, confined by p when
// Confined. bin must be an absolute path.
func Command(ctx context.Context, p Policy, bin string, args ...string) *exec.Cmd {
	if !Confined() {
		return exec.CommandContext(ctx, bin, args...)
	}
	self, err := os.Executable()
	if err != nil {
		return exec.CommandContext(ctx, bin, args...)
	}
	js, _ := json.Marshal(p)
	return exec.CommandContext(ctx, self, append([]string{helperArg, string(js), bin}, args...)...)
}
