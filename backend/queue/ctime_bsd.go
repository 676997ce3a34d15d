//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package queue

import "syscall"

func ctimeOf(st *syscall.Stat_t) (sec, nsec int64) { return st.Ctimespec.Unix() }
