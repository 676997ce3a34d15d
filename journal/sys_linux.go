package journal

import (
	"io/fs"
	"syscall"
)

// sysInfo is what fs.FileInfo hides of a Unix stat.
type sysInfo struct {
	uid, gid        int
	atime           int64
	dev, ino, nlink uint64
}

func sysStat(fi fs.FileInfo) (sysInfo, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return sysInfo{}, false
	}
	return sysInfo{int(st.Uid), int(st.Gid), st.Atim.Nano(), uint64(st.Dev), st.Ino, uint64(st.Nlink)}, true
}
