package fallback

import (
	"io"
	"os"
)

// readFile returns the contents of path in st.buf (unmap is always nil
// here: Windows files are read, not mapped). nofollow is not honoured:
// Windows has no O_NOFOLLOW.
func readFile(st *workerState, path string, nofollow bool) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
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
