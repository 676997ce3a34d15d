//go:build unix && !linux

package shell

import (
	"os/exec"
	"syscall"
)

// sysProcAttr starts bash in a new session (its own process group, no
// controlling terminal). Only Linux has PR_SET_PDEATHSIG.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// start starts cmd; without PR_SET_PDEATHSIG any thread will do.
func start(cmd *exec.Cmd) error { return cmd.Start() }
