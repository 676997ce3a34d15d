//go:build !unix

package shell

import (
	"context"
	"os"
	"time"
)

// supported is false: fs_bash needs bash, process sessions and signals,
// so it is off by default here and --shell on is refused (mode.go).
const supported = false

// Available reports that Landlock is not available here.
func Available() (abi int, ok bool) { return 0, false }

// MaybeRunSandboxChild does nothing here.
func MaybeRunSandboxChild() {}

// Session is not supported here; NewSession fails.
type Session struct{}

// NewSession fails: fs_bash needs a Unix system.
func NewSession(opts Options) (*Session, error) { return nil, errUnsupported }

func (s *Session) Run(ctx context.Context, command string, timeout time.Duration) (Result, error) {
	return Result{}, errUnsupported
}

func (s *Session) RunWithin(ctx context.Context, roots []string, command string, timeout time.Duration) (Result, error) {
	return Result{}, errUnsupported
}

func (s *Session) RunIn(ctx context.Context, roots []string, dirs []*os.File, command string, timeout time.Duration) (Result, error) {
	return Result{}, errUnsupported
}

func (s *Session) RunTraced(ctx context.Context, roots []string, dirs []*os.File, command string, timeout time.Duration, rec Recorder) (Result, error) {
	return Result{}, errUnsupported
}

func (s *Session) SetRoots(roots []string) error { return errUnsupported }
func (s *Session) Cwd() string                   { return "" }
func (s *Session) Mode() Mode                    { return ModeOff }
func (s *Session) TempDir() string               { return "" }
func (s *Session) Close() error                  { return nil }

// PrepareHelper fails: there is no sandboxed shell here.
func PrepareHelper() error { return errUnsupported }

func namespaces() (*os.File, string) { return nil, "there is no sandboxed shell here" }

func goNamespaces() bool { return false }
