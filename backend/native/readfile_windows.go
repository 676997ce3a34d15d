//go:build windows

package native

import (
	"io"
)

// readFile returns the contents of name in directory dirfd, in st.buf
// (unmap is always nil here: Windows files are read, not mapped). It is
// read only if os.Lstat finds a regular file, not a link or reparse point
// (see open_windows.go: checked by path, not race-free).
func readFile(st *workerState, dirfd int, name string, _ bool) (data []byte, unmap func(), err error) {
	path, err := childPath(dirfd, name)
	if err != nil {
		return nil, nil, err
	}
	if _, err := lstatPlain(path, false); err != nil {
		return nil, nil, err
	}
	f, err := openShared(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if cap(st.buf) == 0 {
		st.buf = make([]byte, initialBuf)
	}
	buf := st.buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if cap(buf) <= maxKeptBuf {
		st.buf = buf
	}
	return buf, nil, nil
}
