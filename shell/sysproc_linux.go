package shell

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// sysProcAttr starts bash in a new session (its own process group, no
// controlling terminal) and makes it die with fsmcp (processes bash left
// in the background are Close's job).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// PR_SET_PDEATHSIG fires when the thread that forked the child exits, not
// the process. Go keeps its threads, except one whose goroutine ends while
// locked to it, as confine's do after starting rg: had such a thread once
// forked a session's namespace holder or a running bash, that would die
// mid-session. So every child here is forked from one thread that is
// locked for good and does nothing else.
var spawner struct {
	once sync.Once
	do   chan func()
}

// start starts cmd from the spawner thread.
func start(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.do = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: this goroutine never ends
			for f := range spawner.do {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	spawner.do <- func() { errc <- cmd.Start() }
	return <-errc
}
