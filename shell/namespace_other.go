//go:build unix && !linux

package shell

import (
	"os"
	"syscall"
)

const (
	holdArg  = "__fsmcp_sandbox_hold"
	probeArg = "__fsmcp_sandbox_probe"
)

// holder stands for the session's namespaces, which exist on Linux only.
type holder struct{}

type nsMounts struct {
	pol   policy
	roots []string
	dirs  []*os.File
	tmp   string
	path  []string
	cwd   string
}

func namespaces() (*os.File, string) { return nil, "user namespaces are Linux-only" }

func startHolder(bw, helper *os.File, pol policy) (*holder, error) { return nil, ErrNoLandlock }

func (h *holder) wrap(argv []string, extra []*os.File, m nsMounts) ([]string, []*os.File) {
	return argv, extra
}

func (h *holder) stop() {}

func holdNamespace() { os.Exit(0) }

func buildRoot(mountPlan) error { return ErrNoLandlock }

func lockDevices() error { return ErrNoLandlock }

func dropCapabilities() error { return ErrNoLandlock }

func installSetIDWall() error { return ErrNoLandlock }

func goNamespaces() bool { return false }

func nsSysProcAttr() *syscall.SysProcAttr { return sysProcAttr() }
