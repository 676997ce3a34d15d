// Package confine runs a helper program (rg, find) so that it can read
// the sandbox roots and nothing else. The program is forked from an OS
// thread of its own that has first restricted itself with Landlock:
// Landlock domains and no_new_privs belong to a thread and pass to the
// processes it forks, so the program starts confined, while the rest of
// fsmcp is not. That thread stays locked to its goroutine and ends with
// it (the main thread, which cannot end, is parked for good instead; the
// Go runtime starts new threads from a clean template thread meanwhile),
// so nothing else ever runs on it, and fsmcp does not start itself again
// for every search. A race inside the
// program's own walker (a directory swapped with a symlink out) then
// meets a kernel refusal instead of an outside file.
//
// Where Landlock is missing (another OS, an old kernel) the program runs
// unconfined, and Confined says so.
package confine

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Policy is what the confined program may read and execute.
type Policy struct {
	// Dirs: read files and list directories beneath them (the roots).
	Dirs []string
	// Files: read these files only (ignore files above a root, inside
	// its repository).
	Files []string
	// Exec: more files (and directories, with what lies beneath them)
	// to read and execute besides the program and the system's library
	// directories: the loader and the library directories its binary
	// names when they lie elsewhere (Nix, Homebrew, a version manager's
	// install directory).
	Exec []string
	// AllBut, when All is set, lets the program read and execute
	// everything but what lies beneath these paths (Dirs, Files and Exec
	// add to it). Trace uses it to watch the user's own rg start as the
	// user has it: a version manager reads its own files and hands over
	// to a binary nobody named in advance, while the roots, which the
	// agent can write, stay out of reach. Nothing is writable under any
	// Policy.
	All    bool
	AllBut []string
}

// Confined reports whether Start confines programs here.
func Confined() bool { return available() }

// Start starts cmd, confined by p when Confined: it may read what p
// allows plus the system libraries its loader needs, and nothing else.
// cmd.Path must be absolute. If the confinement cannot be set up, the
// program is not started.
func Start(cmd *exec.Cmd, p Policy) error {
	if !Confined() {
		return cmd.Start()
	}
	if !filepath.IsAbs(cmd.Path) {
		return fmt.Errorf("confine: program %q is not an absolute path; it was not run", cmd.Path)
	}
	// exec opens /dev/null for a missing stream in Start, on the thread
	// that starts the program; the restricted thread may not open it.
	var nulls []*os.File
	defer func() {
		for _, f := range nulls {
			f.Close()
		}
	}()
	if cmd.Stdin == nil {
		f, err := os.Open(os.DevNull)
		if err != nil {
			return err
		}
		cmd.Stdin, nulls = f, append(nulls, f)
	}
	for _, w := range []*io.Writer{&cmd.Stdout, &cmd.Stderr} {
		if *w == nil {
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			*w, nulls = f, append(nulls, f)
		}
	}
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: when this goroutine returns, its thread — the
		// only one restricted — exits with it.
		runtime.LockOSThread()
		if err := restrictThread(p, cmd.Path); err != nil {
			errc <- fmt.Errorf("confine: %w; the program was not run", err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// LibDirs are the system library directories every confined program may
// read and execute (the dynamic loader and the libraries it loads).
func LibDirs() []string { return libDirs }
