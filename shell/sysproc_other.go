//go:build unix && !linux

package shell

import "syscall"

// sysProcAttr starts bash in a new session (its own process group, no
// controlling terminal). Only Linux has PR_SET_PDEATHSIG.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
