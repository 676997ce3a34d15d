//go:build unix

package driver

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, which
// cancelling kills whole (rg's worker threads and any child).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
