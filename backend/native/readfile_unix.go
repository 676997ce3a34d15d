//go:build unix

package native

import (
	"syscall"

	"github.com/fsmcp/fsmcp/backend/ignore"
)

// inPlaceMin: a file the index says is matched in some chunks only is
// mapped from this size, instead of mmapMin.
const inPlaceMin = 512 << 10

// readFile returns the contents of name in directory dirfd, in st.buf or
// mapped (then unmap must be called after use). It is opened without
// following a symlink and without blocking, and read only if it is a
// regular file (ignore.OpenRegularAt), so a file swapped for a link or a FIFO
// after the walk listed it is skipped. It uses raw system calls: os.Open
// would also try (and fail) to register every regular file with the
// network poller, one wasted syscall per file. A short read is taken as
// the end of the file, which holds for regular files on local file
// systems. With inPlace, a file of inPlaceMin or more is mapped at once:
// its caller reads only parts of it (a smaller one costs less read than
// mapped and unmapped).
func readFile(st *workerState, dirfd int, name string, inPlace bool) (data []byte, unmap func(), err error) {
	fd, _, err := ignore.OpenRegularAt(dirfd, name)
	if err != nil {
		return nil, nil, err
	}
	defer syscall.Close(fd)
	if inPlace {
		var sb syscall.Stat_t
		if err := syscall.Fstat(fd, &sb); err == nil && sb.Size >= inPlaceMin {
			if m, err := syscall.Mmap(fd, 0, int(sb.Size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
				return m, func() { syscall.Munmap(m) }, nil
			}
		}
	}
	if cap(st.buf) == 0 {
		st.buf = make([]byte, initialBuf)
	}
	buf := st.buf[:cap(st.buf)]
	n := 0
	for {
		if n == len(buf) {
			var sb syscall.Stat_t
			if err := syscall.Fstat(fd, &sb); err != nil {
				return nil, nil, err
			}
			if sb.Size >= mmapMin {
				m, err := syscall.Mmap(fd, 0, int(sb.Size), syscall.PROT_READ, syscall.MAP_SHARED)
				if err == nil {
					return m, func() { syscall.Munmap(m) }, nil
				}
			}
			nb := make([]byte, max(2*len(buf), int(sb.Size)+1))
			copy(nb, buf[:n])
			buf = nb
			if len(nb) <= maxKeptBuf {
				st.buf = nb
			}
		}
		want := len(buf) - n
		k, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		n += k
		if k == 0 || k < want {
			break
		}
	}
	return buf[:n], nil, nil
}
