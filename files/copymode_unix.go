//go:build unix

package files

import (
	"io/fs"
	"syscall"
)

// specialBits are the set-uid, set-gid and sticky bits a copy (src, a
// new file dst) keeps. A copy belongs to fsmcp's user, not the source's
// owner, so set-uid is kept only when the copy has the source's owner and
// set-gid only when it has the source's group, as cp does without -p:
// otherwise copying another user's set-uid program would make a set-uid
// program of fsmcp's user (which chmod refuses to make).
func specialBits(src, dst fs.FileInfo) fs.FileMode {
	m := src.Mode() & (fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	s, ok1 := src.Sys().(*syscall.Stat_t)
	d, ok2 := dst.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return m &^ (fs.ModeSetuid | fs.ModeSetgid)
	}
	if s.Uid != d.Uid {
		m &^= fs.ModeSetuid
	}
	if s.Gid != d.Gid {
		m &^= fs.ModeSetgid
	}
	return m
}
