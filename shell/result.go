package shell

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

const (
	// DefaultTimeout is the timeout of a call that names none.
	DefaultTimeout = 120 * time.Second
	// MaxTimeout caps the timeout a call may ask for.
	MaxTimeout = 600 * time.Second
	// DefaultMaxOutput is how many characters of output a call returns;
	// beyond it the middle is cut out.
	DefaultMaxOutput = 30000
)

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("shell: session closed")

// Options configures a Session.
type Options struct {
	// Roots are the allowed directories; the first is where the session
	// starts. They are resolved (symlinks followed) by NewSession.
	Roots []string
	// Mode is ModeOn or ModeSandboxed.
	Mode Mode
	// Env is the commands' environment; nil means os.Environ(). The
	// server's FSMCP_AUTH_TOKEN is always removed.
	Env []string
	// Bash is the shell to run; empty means "bash" looked up in Env's PATH.
	Bash string
	// MaxOutput is the output limit in characters; 0 means DefaultMaxOutput.
	MaxOutput int
}

// Result is the outcome of one command.
type Result struct {
	// Output is stdout and stderr as the command wrote them (one pipe,
	// so in order), invalid UTF-8 replaced, and cut in the middle when
	// longer than the limit.
	Output string
	// ExitCode is bash's exit status, or 128+N when it was killed by
	// signal N (so 137 after a timeout or cancellation).
	ExitCode int
	// Cwd is the working directory for the next call.
	Cwd string
	// RefusedCwd is set when the command ended in a directory outside
	// the roots: it is that directory, and Cwd stayed where it was.
	RefusedCwd string
	// Notice is a sentence for the client about the session itself
	// (the working directory was refused or had vanished), or "".
	Notice string
	// TimedOut and Cancelled say why the process group was killed.
	TimedOut  bool
	Cancelled bool
	Timeout   time.Duration
	// Truncated is set when characters were cut from the middle of the
	// output; Dropped says how many.
	Truncated bool
	Dropped   int
	// Untraced says why the command's changes were not reported to the
	// Recorder ("" when they were, or none was given).
	Untraced string
	// Writing are the files processes the command left running hold
	// open for writing (traced commands, on Linux): a Recorder's
	// record of them ends before what they write later.
	Writing []string
	// Running are the processes the command left running (traced
	// commands, on Linux), as the Recorder's events name them (Pid): a
	// file one of them opened for writing may be written later still.
	Running []int
}

// Text renders r as fs_bash's answer: the output, then any notice, then
// "Exit code: N" when the command failed.
func (r Result) Text() string {
	var b strings.Builder
	b.WriteString(r.Output)
	line := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	switch {
	case r.TimedOut:
		line(fmt.Sprintf("Command timed out after %d ms; its process group was killed.", r.Timeout.Milliseconds()))
	case r.Cancelled:
		line("Command cancelled; its process group was killed.")
	}
	if r.Notice != "" {
		line(r.Notice)
	}
	if r.Failed() {
		line(fmt.Sprintf("Exit code: %d", r.ExitCode))
	}
	return b.String()
}

// Failed reports whether the result is an error for the client.
func (r Result) Failed() bool { return r.ExitCode != 0 || r.TimedOut || r.Cancelled }

// ClampTimeout maps a requested timeout to the one used: 0 or less means
// DefaultTimeout, more than MaxTimeout means MaxTimeout.
func ClampTimeout(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return DefaultTimeout
	case d > MaxTimeout:
		return MaxTimeout
	}
	return d
}
