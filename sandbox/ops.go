package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/internal/xattr"
)

// maxLinkHops bounds symlink chains followed by hand (as the kernel's ELOOP).
const maxLinkHops = 40

// Every operation below runs through the root's os.Root, so it cannot leave
// the root whatever the file system looks like when it runs. Errors are
// returned as one sentence naming the client's path.

// Join returns the path of name below p.
func (p *Path) Join(name string) *Path {
	rel := path.Join(p.Rel, filepath.ToSlash(name))
	return &Path{Root: p.Root, Rel: rel, Abs: filepath.Join(p.Abs, name)}
}

// Dir returns the parent of p, or p itself at the root.
func (p *Path) Dir() *Path {
	if p.Rel == "." {
		return p
	}
	return &Path{Root: p.Root, Rel: path.Dir(p.Rel), Abs: filepath.Dir(p.Abs)}
}

// IsRoot reports whether p is the root directory itself.
func (p *Path) IsRoot() bool { return p.Rel == "." }

// Stat follows symlinks, which must stay inside the root.
func (p *Path) Stat() (fs.FileInfo, error) {
	fi, err := p.Root.fs.Stat(p.Rel)
	return fi, describe(p.Abs, err)
}

// StatDir checks that p is a directory (following symlinks inside the root).
func (p *Path) StatDir() error {
	fi, err := p.Stat()
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fault.Errorf(fault.NotDir, p.Abs, "%s is not a directory", p.Abs)
	}
	return nil
}

// Lstat does not follow a final symlink.
func (p *Path) Lstat() (fs.FileInfo, error) {
	fi, err := p.Root.fs.Lstat(p.Rel)
	return fi, describe(p.Abs, err)
}

// Readlink returns a symlink's target as stored.
func (p *Path) Readlink() (string, error) {
	s, err := p.Root.fs.Readlink(p.Rel)
	return s, describe(p.Abs, err)
}

// Open opens the file for reading.
// Only regular files and directories open: a named pipe, socket or device
// is refused (opening a FIFO would block the call until a writer came).
func (p *Path) Open() (*os.File, error) {
	f, err := p.Root.fs.OpenFile(p.Rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, describe(p.Abs, err)
	}
	if m := fi.Mode(); !m.IsRegular() && !m.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", p.Abs, kindOf(m))
	}
	return f, nil
}

// kindOf names a special file's kind for an error message.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// ReadFile reads a regular file of at most max bytes (max <= 0: no limit).
func (p *Path) ReadFile(max int64) ([]byte, error) {
	f, err := p.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	if fi.IsDir() {
		return nil, fault.Errorf(fault.IsDir, p.Abs, "path is a directory, not a file: %s", p.Abs)
	}
	if max > 0 && fi.Size() > max {
		return nil, &TooLargeError{Path: p.Abs, Size: fi.Size(), Max: max}
	}
	data, err := io.ReadAll(f)
	return data, describe(p.Abs, err)
}

// TooLargeError says a file is over the size limit.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Kind() fault.Kind { return fault.TooLarge }
func (e *TooLargeError) Where() string    { return e.Path }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file %s is %d bytes, over the %d-byte limit (--max-file-size)", e.Path, e.Size, e.Max)
}

// ReadDir lists a directory, sorted by name.
func (p *Path) ReadDir() ([]fs.DirEntry, error) {
	f, err := p.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	sortEntries(entries)
	return entries, nil
}

// MkdirAll creates the directory and its parents.
func (p *Path) MkdirAll(perm fs.FileMode) error {
	return describe(p.Abs, p.Root.fs.MkdirAll(p.Rel, perm))
}

// Remove removes a file or an empty directory (a symlink itself, not its target).
func (p *Path) Remove() error {
	if p.IsRoot() {
		return fmt.Errorf("refusing to delete the allowed directory %s itself", p.Abs)
	}
	return describe(p.Abs, p.Root.fs.Remove(p.Rel))
}

// RemoveAll removes a tree below the root.
func (p *Path) RemoveAll() error {
	if p.IsRoot() {
		return fmt.Errorf("refusing to delete the allowed directory %s itself", p.Abs)
	}
	return describe(p.Abs, p.Root.fs.RemoveAll(p.Rel))
}

// Rename moves p to dst within the same root; it replaces dst if it is a
// file. Moves between roots are the caller's copy-and-delete.
func (p *Path) Rename(dst *Path) error {
	if p.Root != dst.Root {
		return ErrCrossRoot
	}
	if p.IsRoot() {
		return fmt.Errorf("refusing to move the allowed directory %s itself", p.Abs)
	}
	return describe(p.Abs, p.Root.fs.Rename(p.Rel, dst.Rel))
}

// ErrCrossRoot says a rename spans two roots and must be done as a copy.
var ErrCrossRoot = errors.New("source and destination are in different allowed directories")

// Chmod changes the mode, following symlinks inside the root.
func (p *Path) Chmod(mode fs.FileMode) error {
	return describe(p.Abs, p.Root.fs.Chmod(p.Rel, mode))
}

// Target follows a final symlink (and chains of them) to the path it names,
// which must stay inside the root. A path that is not a symlink, or does not
// exist, is its own target. Writers use it so that writing through a link
// updates the file it points to, and a dangling link out of the root is
// refused rather than followed.
func (p *Path) Target() (*Path, error) {
	cur := p
	for range maxLinkHops {
		fi, err := cur.Root.fs.Lstat(cur.Rel)
		if errors.Is(err, fs.ErrNotExist) {
			return cur, nil
		}
		if err != nil {
			return nil, describe(p.Abs, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return cur, nil
		}
		link, err := cur.Root.fs.Readlink(cur.Rel)
		if err != nil {
			return nil, describe(p.Abs, err)
		}
		var rel string
		if filepath.IsAbs(link) {
			abs, err := sysPath(link)
			if err != nil {
				return nil, &OutsideError{Path: p.Abs}
			}
			r, ok := Within(cur.Root.Path, abs)
			if !ok {
				return nil, &OutsideError{Path: p.Abs}
			}
			rel = r
		} else {
			rel = path.Join(path.Dir(cur.Rel), filepath.ToSlash(link))
		}
		if rel == ".." || len(rel) > 2 && rel[:3] == "../" {
			return nil, &OutsideError{Path: p.Abs}
		}
		cur = &Path{Root: cur.Root, Rel: rel, Abs: filepath.Join(cur.Root.Path, filepath.FromSlash(rel))}
	}
	return nil, fmt.Errorf("too many levels of symbolic links: %s", p.Abs)
}

// WriteFile replaces the file's content atomically: it writes a temporary
// file in the same directory (see Temp: unnamed where the system allows)
// and renames it over the target, so readers see the old or the new
// content, never a mix, and a failed write changes nothing. Parent directories are created. An existing file keeps its mode;
// a new one gets perm. A symlink is written through to its target, which
// must be inside the root.
func (p *Path) WriteFile(data []byte, perm fs.FileMode) error {
	return p.WriteFileOver(data, perm, nil)
}

// WriteFileOver is WriteFile for a caller that holds the file it replaces
// open (for its lock): held, if not nil, is let go of where the system
// cannot replace an open file (Temp.CommitOver).
func (p *Path) WriteFileOver(data []byte, perm fs.FileMode, held io.Closer) error {
	t, err := p.Target()
	if err != nil {
		return err
	}
	var attrs map[string][]byte
	if fi, err := t.Root.fs.Stat(t.Rel); err == nil {
		if fi.IsDir() {
			return fault.Errorf(fault.IsDir, p.Abs, "path is a directory, not a file: %s", p.Abs)
		}
		perm = fi.Mode().Perm()
		attrs = t.xattrs()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return describe(p.Abs, err)
	}
	dir := path.Dir(t.Rel)
	if err := t.Root.fs.MkdirAll(dir, 0o755); err != nil {
		return describe(p.Abs, err)
	}
	tf, err := t.CreateTemp(perm)
	if err != nil {
		return err
	}
	defer tf.Discard()
	f := tf.File()
	if _, err := f.Write(data); err != nil {
		return describe(p.Abs, err)
	}
	if err := xattr.Put(f, attrs); err != nil { // the new file keeps the old one's ACLs and attributes
		return describe(p.Abs, err)
	}
	if err := f.Chmod(perm); err != nil { // the umask may have narrowed it
		return describe(p.Abs, err)
	}
	return tf.CommitOver(held)
}

// suffixBytes is how many random bytes a temporary name carries (in hex).
const suffixBytes = 6

func randomSuffix() string {
	var b [suffixBytes]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// tempName is a hidden name beside base for something made whole before
// it takes base's place: ".BASE.fsmcp-RANDOM.tmp".
func tempName(base string) string { return tempPrefix(base) + randomSuffix() + ".tmp" }

func tempPrefix(base string) string { return "." + base + ".fsmcp-" }

// isTempOf reports whether name is one tempName(base) made.
func isTempOf(name, base string) bool {
	prefix := tempPrefix(base)
	return len(name) == len(prefix)+hex.EncodedLen(suffixBytes)+len(".tmp") && strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".tmp")
}

func sortEntries(entries []fs.DirEntry) {
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// OpenFile opens the file with the given flags, as os.Root.OpenFile does.
func (p *Path) OpenFile(flag int, perm fs.FileMode) (*os.File, error) {
	f, err := p.Root.fs.OpenFile(p.Rel, flag, perm)
	return f, describe(p.Abs, err)
}

// Mkdir creates one directory.
func (p *Path) Mkdir(perm fs.FileMode) error {
	return describe(p.Abs, p.Root.fs.Mkdir(p.Rel, perm))
}

// Symlink creates p as a symbolic link holding target. The caller checks
// that the target stays inside the roots; os.Root never follows it.
func (p *Path) Symlink(target string) error {
	return describe(p.Abs, p.Root.fs.Symlink(target, p.Rel))
}

// Chtimes sets the access and modification times, following symlinks
// inside the root.
func (p *Path) Chtimes(atime, mtime time.Time) error {
	return describe(p.Abs, p.Root.fs.Chtimes(p.Rel, atime, mtime))
}

// LinkInside reports whether the symlink text target, stored in a link at
// p, names a path inside p's root (lexically; the link is not followed).
func (p *Path) LinkInside(target string) bool {
	var rel string
	if filepath.IsAbs(target) {
		abs, err := sysPath(target)
		if err != nil {
			return false
		}
		r, ok := Within(p.Root.Path, abs)
		if !ok {
			for _, n := range p.Root.names {
				if r, ok = Within(n, abs); ok {
					break
				}
			}
			if !ok {
				return false
			}
		}
		rel = r
	} else {
		rel = path.Join(path.Dir(p.Rel), filepath.ToSlash(target))
	}
	return rel != ".." && !strings.HasPrefix(rel, "../")
}

// RenameNoReplace moves p to dst, failing with an ExistsError when dst
// exists. Where the system can refuse atomically (renameat2
// RENAME_NOREPLACE, renameatx_np RENAME_EXCL, or a hard link) a check
// "dst must not exist" cannot race with another writer. On Linux and
// macOS dst may lie in another root (each name is taken beneath its own
// root's handle); elsewhere that is ErrCrossRoot.
func (p *Path) RenameNoReplace(dst *Path) error {
	if p.Root != dst.Root && !renamesAcrossRoots {
		return ErrCrossRoot
	}
	err := p.renameNoReplace(dst)
	if errors.Is(err, fs.ErrExist) {
		return &ExistsError{Path: dst.Abs}
	}
	return err
}

// ExistsError says a path that had to be new exists (it may have appeared
// meanwhile).
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string    { return e.Path + " already exists" }
func (e *ExistsError) Kind() fault.Kind { return fault.Exists }
func (e *ExistsError) Where() string    { return e.Path }

// Is lets errors.Is(err, fs.ErrExist) see through an ExistsError.
func (e *ExistsError) Is(target error) bool { return target == fs.ErrExist }

// TempSibling returns an unused-looking hidden name next to p, for writing
// something whole before renaming it into place.
func (p *Path) TempSibling() *Path {
	return p.Dir().Join(tempName(path.Base(p.Rel)))
}

// TempSiblings lists the hidden names TempSibling (or a Temp, or Aside)
// made next to p that are still there: what a killed fsmcp left while it
// built or swapped something at p's name.
func (p *Path) TempSiblings() ([]*Path, error) {
	dir := p.Dir()
	ents, err := dir.ReadDir()
	if err != nil {
		return nil, err
	}
	var out []*Path
	for _, e := range ents {
		if isTempOf(e.Name(), path.Base(p.Rel)) {
			out = append(out, dir.Join(e.Name()))
		}
	}
	return out, nil
}

// Remover removes a tree relative to its parent directory's handle,
// opened when Remover was made: the cleanup of something half-built works
// even if the parent's name was swapped for a link out meanwhile.
type Remover struct {
	parent *os.Root
	name   string
}

// Remover opens p's parent directory through the root, for removing p
// later. Close it after use.
func (p *Path) Remover() (*Remover, error) {
	h, err := p.Root.fs.OpenRoot(path.Dir(p.Rel))
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	return &Remover{parent: h, name: path.Base(p.Rel)}, nil
}

// RemoveAll removes the tree, if it is there.
func (r *Remover) RemoveAll() error { return r.parent.RemoveAll(r.name) }

// Close releases the parent's handle.
func (r *Remover) Close() error { return r.parent.Close() }

// Aside renames the entry to a hidden name beside it, relative to the
// parent's handle, and returns a Remover for the new name (it shares the
// handle: close only r).
func (r *Remover) Aside() (*Remover, error) {
	name := tempName(r.name)
	if err := r.parent.Rename(r.name, name); err != nil {
		return nil, err
	}
	return &Remover{parent: r.parent, name: name}, nil
}

// RenameTo renames r's entry to o's name, relative to the parent's handle
// (both must share it).
func (r *Remover) RenameTo(o *Remover) error { return r.parent.Rename(r.name, o.name) }
