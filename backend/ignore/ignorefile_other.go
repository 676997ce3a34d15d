//go:build !unix

package ignore

import (
	"io"
	"os"
)

// readRegular reads dir/name if it is a regular file of at most limit
// bytes; tooBig reports a larger one. Without openat and O_NOFOLLOW the
// name is checked with Lstat first and the opened file must be the same
// one. dirfd is unused here.
func readRegular(dirfd int, dir, name string, limit int64) (data []byte, tooBig bool) {
	p := dir + string(os.PathSeparator) + name
	before, err := os.Lstat(p)
	if err != nil || !before.Mode().IsRegular() {
		return nil, false
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || !os.SameFile(before, st) {
		return nil, false
	}
	if st.Size() > limit {
		return nil, true
	}
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false
	}
	if int64(len(data)) > limit {
		return nil, true
	}
	return data, false
}

// openRegular opens path for reading if it is a regular file (checked
// before and after the open).
func openRegular(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrInvalid}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !os.SameFile(before, st) {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrInvalid}
	}
	return f, nil
}

// openRegularBeneath is openRegular here: without openat, each element is
// not checked (docs/security.md: residual risk in search).
func OpenRegularBeneath(_ string, _ *os.File, path string) (*os.File, error) {
	return openRegular(path)
}
