package shell

import "syscall"

// sysProcAttr starts bash in a new session (its own process group, no
// controlling terminal) and makes it die with fsmcp (processes bash left
// in the background are Close's job).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
