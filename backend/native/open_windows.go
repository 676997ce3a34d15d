//go:build windows

package native

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Windows has no openat: the walk there is by path. A "descriptor" is a
// key into a process-wide table of directory paths, and each child is
// checked with os.Lstat (no symlink or other reparse point; a directory
// or a regular file) before it is opened by its joined path. That check
// is not race-free as openat with O_NOFOLLOW is: an element swapped for
// a link between the Lstat and the open is followed.

var dirTable struct {
	sync.Mutex
	next  int
	paths map[int]string
}

// errNotPlain is a path that is a link, a reparse point or neither a
// directory nor a regular file.
var errNotPlain = errors.New("not a plain directory or regular file")

// lstatPlain returns path's information if it is a directory (dir true)
// or a regular file (dir false), and not a symlink or reparse point.
func lstatPlain(path string, dir bool) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	m := fi.Mode()
	if m&(fs.ModeSymlink|fs.ModeIrregular) != 0 || m.IsDir() != dir || !dir && !m.IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errNotPlain}
	}
	return fi, nil
}

func addDir(path string) int {
	dirTable.Lock()
	defer dirTable.Unlock()
	if dirTable.paths == nil {
		dirTable.paths = make(map[int]string)
	}
	fd := dirTable.next
	dirTable.next++
	dirTable.paths[fd] = path
	return fd
}

func dirPath(fd int) (string, bool) {
	dirTable.Lock()
	defer dirTable.Unlock()
	p, ok := dirTable.paths[fd]
	return p, ok
}

// closeFD forgets a directory from openBeneath or openDir.
func closeFD(fd int) {
	dirTable.Lock()
	delete(dirTable.paths, fd)
	dirTable.Unlock()
}

// childPath joins name to the directory fd.
func childPath(fd int, name string) (string, error) {
	dir, ok := dirPath(fd)
	if !ok {
		return "", fs.ErrClosed
	}
	return filepath.Join(dir, name), nil
}

// openDir opens directory name in dirfd (keepAtime: no such request here).
func openDir(dirfd int, name string, _ bool) (int, error) {
	path, err := childPath(dirfd, name)
	if err != nil {
		return -1, err
	}
	if _, err := lstatPlain(path, true); err != nil {
		return -1, err
	}
	return addDir(path), nil
}

// openBeneath opens directory path, which lies in root (both absolute,
// cleaned), checking each element below root; a path outside root is
// checked from its volume's root. Without openat, rootDir is not used:
// the root is checked by name.
func openBeneath(root string, _ *os.File, path string, _ bool) (int, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		root = filepath.VolumeName(path) + `\`
		if rel, err = filepath.Rel(root, path); err != nil {
			return -1, err
		}
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return -1, &fs.PathError{Op: "open", Path: root, Err: errNotPlain}
	}
	fd := addDir(root)
	for _, el := range strings.Split(filepath.ToSlash(rel), "/") {
		if el == "" || el == "." {
			continue
		}
		next, err := openDir(fd, el, false)
		closeFD(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// listState is listDir's scratch space in a walker.
type listState struct {
	ents []dirent // the entries of the directory last listed
}

// listDir lists the open directory fd into st.list.ents. A read error mid-way
// gives the entries read so far; err is set only when the directory could
// not be listed at all.
func listDir(st *workerState, fd int, _ string) ([]dirent, error) {
	dir, ok := dirPath(fd)
	if !ok {
		return nil, fs.ErrClosed
	}
	f, err := openShared(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, _ := f.ReadDir(-1)
	ents := st.list.ents[:0]
	for _, e := range entries {
		ents = append(ents, dirent{name: e.Name(), typ: e.Type()})
	}
	st.list.ents = ents
	return ents, nil
}
