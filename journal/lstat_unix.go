//go:build linux || darwin

package journal

import (
	"io/fs"
	"os"
	"path"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/sandbox"
)

// dirCache holds a step's open directories, so that recording a path
// costs one fstatat on its directory's handle instead of a walk from the
// root (a shell command may change thousands of files in a few
// directories). A handle was opened through the root, so a name looked
// up beneath it cannot lead out; the step drops the handles of a
// directory it sees renamed or removed.
type dirCache struct {
	dirs map[*sandbox.Root]map[string]*os.File
	n    int
}

// maxDirs bounds the handles one step keeps open (past it one is
// closed for each opened).
const maxDirs = 256

func (c *dirCache) lstat(p *sandbox.Path) (fs.FileInfo, error) {
	if p.IsRoot() {
		return p.Lstat()
	}
	d, err := c.parent(p)
	if err != nil {
		return p.Lstat() // says why, as the sandbox words it
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(int(d.Fd()), path.Base(p.Rel), &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: p.Abs, Err: err}
		}
		return &statInfo{name: path.Base(p.Rel), st: toSyscall(&st)}, nil
	}
}

// parent is the handle of p's directory, opened through the root.
func (c *dirCache) parent(p *sandbox.Path) (*os.File, error) {
	return c.dir(p.Root, path.Dir(p.Rel))
}

// dir is the handle of the directory rel below root: opened beneath its
// parent's handle (one openat of one name, never following a link), or
// the root's own handle for the root itself.
func (c *dirCache) dir(root *sandbox.Root, rel string) (*os.File, error) {
	if rel == "." {
		return root.Handle() // the root's own, kept with it: never closed here
	}
	if d := c.dirs[root][rel]; d != nil {
		return d, nil
	}
	up, err := c.dir(root, path.Dir(rel))
	if err != nil {
		return nil, err
	}
	fd, err := unix.Openat(int(up.Fd()), path.Base(rel), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	f := os.NewFile(uintptr(fd), rel)
	if c.n >= maxDirs {
		c.evict()
	}
	if c.dirs == nil {
		c.dirs = map[*sandbox.Root]map[string]*os.File{}
	}
	if c.dirs[root] == nil {
		c.dirs[root] = map[string]*os.File{}
	}
	c.dirs[root][rel], c.n = f, c.n+1
	return f, nil
}

// forget drops the handles of dir and what is below it in root.
func (c *dirCache) forget(root *sandbox.Root, dir string) {
	for d, f := range c.dirs[root] {
		if d == dir || len(d) > len(dir) && d[:len(dir)+1] == dir+"/" || dir == "." {
			f.Close()
			delete(c.dirs[root], d)
			c.n--
		}
	}
}

// holds reports whether a handle of the directory dir is kept.
func (c *dirCache) holds(root *sandbox.Root, dir string) bool { return c.dirs[root][dir] != nil }

// evict closes one handle (whichever the map gives first).
func (c *dirCache) evict() {
	for _, m := range c.dirs {
		for d, f := range m {
			f.Close()
			delete(m, d)
			c.n--
			return
		}
	}
}

func (c *dirCache) close() {
	for _, m := range c.dirs {
		for _, f := range m {
			f.Close()
		}
	}
	c.dirs, c.n = nil, 0
}

// statInfo is a stat as fs.FileInfo.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) ModTime() time.Time { return time.Unix(mtimeOf(&s.st)) }
func (s *statInfo) Mode() fs.FileMode  { return sandbox.FileMode(uint32(s.st.Mode)) }
