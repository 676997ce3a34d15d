//go:build linux || darwin

package journal

import (
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonblock = syscall.O_NONBLOCK
	// renameNoReplace asks renameat2 to refuse an existing target.
	renameNoReplace = 1
)

// linkInto hard-links the file p names (not following a final link) to
// name in the step's held directory, through the handles the step keeps
// open.
func (st *Step) linkInto(p *sandbox.Path, name string) error {
	from, err := st.dirs.parent(p)
	if err != nil {
		return err
	}
	if st.heldDirF == nil {
		if st.heldDirF, err = st.home.fs.Open(path.Dir(name)); err != nil {
			return err
		}
	}
	return unix.Linkat(int(from.Fd()), path.Base(p.Rel), int(st.heldDirF.Fd()), path.Base(name), 0)
}

// renameInto moves what p names to name in store's directory; renameOut
// moves it back, refusing to replace anything there.
func renameInto(p *sandbox.Path, store *Store, name string) error {
	return renameBetween(p.Root.FS(), p.Rel, store.fs, name, 0)
}

func renameOut(store *Store, name string, p *sandbox.Path) error {
	return renameBetween(store.fs, name, p.Root.FS(), p.Rel, renameNoReplace)
}

func renameBetween(fromFS *os.Root, from string, toFS *os.Root, to string, flags uint) error {
	fd, err := fromFS.Open(path.Dir(from))
	if err != nil {
		return err
	}
	defer fd.Close()
	td, err := toFS.Open(path.Dir(to))
	if err != nil {
		return err
	}
	defer td.Close()
	err = renameat2(int(fd.Fd()), path.Base(from), int(td.Fd()), path.Base(to), flags)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

func diskUsage(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}

// errCrossDevice is the error of a rename between file systems.
var errCrossDevice = syscall.EXDEV

// stillLinked reports whether the open file f still has a name (a log
// pruned meanwhile has none: what is written to it would be lost).
func stillLinked(f *os.File) bool {
	var s unix.Stat_t
	return unix.Fstat(int(f.Fd()), &s) == nil && s.Nlink > 0
}
