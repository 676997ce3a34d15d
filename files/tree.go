package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/internal/xattr"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Mkdir creates dir and its parents. An existing directory is fine
// (created is false then); an existing file is an error.
func Mkdir(ctx context.Context, dir *sandbox.Path) (created bool, err error) {
	if fi, err := dir.Stat(); err == nil {
		if !fi.IsDir() {
			return false, fault.Errorf(fault.NotDir, dir.Abs, "%s exists and is not a directory", dir.Abs)
		}
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if _, err := dir.Target(); err != nil { // a dangling link out of the root
		return false, err
	}
	// The journal records dir and its missing parents as made, so an undo
	// removes each (if still empty).
	if err := journal.Keep(ctx, dir); err != nil {
		return false, err
	}
	if err := dir.MkdirAll(0o755); err != nil {
		return false, err
	}
	return true, nil
}

// Delete removes a file, a symlink (not what it points to) or a
// directory; a directory that is not empty needs recursive. The allowed
// directories themselves cannot be deleted.
func Delete(ctx context.Context, p *sandbox.Path, recursive bool) (err error) {
	if p.IsRoot() {
		return fault.Errorf(fault.Invalid, p.Abs, "refusing to delete the allowed directory %s itself", p.Abs)
	}
	fi, err := p.Lstat()
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() {
		return removeLocked(ctx, p)
	}
	if fi.IsDir() && !recursive {
		if ents, err := p.ReadDir(); err == nil && len(ents) > 0 {
			return notEmpty(p)
		}
	}
	// The whole tree moves into the change journal where it can (an undo
	// moves it back), else the journal copies it first.
	taken, err := journal.Take(ctx, p, "deleted")
	if err != nil || taken {
		return err
	}
	if !fi.IsDir() || !recursive {
		err := p.Remove()
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return notEmpty(p)
		}
		return err
	}
	return p.RemoveAll()
}

func notEmpty(p *sandbox.Path) error {
	return fault.Errorf(fault.NotEmpty, p.Abs, "%s is a directory that is not empty; pass recursive=true to delete it and everything in it", p.Abs)
}

// Copy copies a file, symlink or directory tree from src to dst, keeping
// modes and modification times. A symlink is copied as a symlink, and only
// when its target stays inside the destination's root; nothing is ever
// read through a symlink. The copy is built under a temporary name next to
// dst and renamed into place, so a failed copy leaves nothing behind. An
// existing dst is an error unless overwrite, and then it must be of the
// same kind (file for file, directory for directory); it is replaced
// whole.
func Copy(ctx context.Context, src, dst *sandbox.Path, overwrite bool) (err error) {
	sfi, dfi, err := checkTransfer(src, dst, overwrite, "copy")
	if err != nil {
		return err
	}
	done, err := keepReplaced(ctx, dst, dfi)
	if err != nil {
		return err
	}
	if sfi.IsDir() {
		err = journal.MadeTree(ctx, dst)
	} else {
		err = journal.Keep(ctx, dst)
	}
	if err != nil {
		return err
	}
	undoParents, err := makeParents(dst)
	if err != nil {
		return err
	}
	if err := copyInto(ctx, src, sfi, dst, dfi, false, done); err != nil {
		undoParents()
		return err
	}
	return nil
}

// copyInto copies src to a temporary sibling of dst, then puts it in place.
// A file is copied into a sandbox.Temp (unnamed on Linux: nothing is left
// even if fsmcp is killed). A tree is built under a hidden name, removed
// on failure relative to the parent directory's handle, opened before the
// copy starts, so a parent swapped meanwhile cannot stop the cleanup; a
// SIGKILL during a tree copy leaves that hidden directory. owners: the
// copies keep src's owners where this process may give them (a move, as
// mv does), else they are its own (a copy, as cp does).
func copyInto(ctx context.Context, src *sandbox.Path, sfi fs.FileInfo, dst *sandbox.Path, dfi fs.FileInfo, owners bool, done swapDone) error {
	if sfi.Mode().IsRegular() {
		return copyFileInto(ctx, src, sfi, dst, dfi != nil, owners)
	}
	tmp := dst.TempSibling()
	cleanup, err := tmp.Remover()
	if err != nil {
		return err
	}
	defer cleanup.Close()
	if err := copyTree(ctx, src, sfi, tmp, dst, owners); err != nil {
		cleanup.RemoveAll()
		return err
	}
	if err := place(tmp, dst, dfi, done); err != nil {
		cleanup.RemoveAll()
		return err
	}
	return nil
}

// copyFileInto copies the regular file src to dst through a Temp.
func copyFileInto(ctx context.Context, src *sandbox.Path, fi fs.FileInfo, dst *sandbox.Path, replace, owners bool) error {
	in, err := openSource(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tf, err := dst.CreateTemp(0o600)
	if err != nil {
		return err
	}
	defer tf.Discard()
	if err := copyData(ctx, src, in, tf.File(), fi, owners); err != nil {
		return err
	}
	if err := tf.Chtimes(atime(fi), fi.ModTime()); err != nil {
		return err
	}
	return tf.Commit(replace)
}

// openSource opens a file to copy: without following a link and without
// blocking (a FIFO swapped in after the Lstat must not hang the copy), and
// only if it is still a regular file.
func openSource(src *sandbox.Path) (*os.File, error) {
	in, err := src.OpenFile(os.O_RDONLY|oNoFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if ifi, err := in.Stat(); err != nil || !ifi.Mode().IsRegular() {
		in.Close()
		return nil, fmt.Errorf("cannot copy %s: it is no longer a regular file", src.Abs)
	}
	return in, nil
}

// copyData copies in to out in chunks, checking ctx between them, and
// gives out src's owner (owners), extended attributes and permission
// bits (set-uid and set-gid only as specialBits allows), in that order:
// a chown drops set-uid bits and capabilities.
func copyData(ctx context.Context, src *sandbox.Path, in, out *os.File, fi fs.FileInfo, owners bool) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := io.CopyN(out, in, copyChunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("copying %s: %v", src.Abs, sandbox.Cause(err))
		}
		if n < copyChunk {
			break
		}
	}
	if o := owner(fi); owners && o[0] >= 0 {
		out.Chown(o[0], o[1]) // where this process may: as mv does
	}
	carryXattrs(in, out)
	ofi, err := out.Stat()
	if err != nil {
		return fmt.Errorf("copying %s: %v", src.Abs, sandbox.Cause(err))
	}
	return out.Chmod(fi.Mode().Perm() | specialBits(fi, ofi))
}

// carryXattrs gives out the extended attributes of in (on Linux: a copy
// or a move between roots keeps them, as cp -a and mv do), as far as
// out's file system and this process's privileges allow: a copy does not
// fail for want of them.
func carryXattrs(in, out *os.File) {
	if m, ok := xattr.Read(xattr.ProcFd(int(in.Fd()))); ok && len(m) > 0 {
		xattr.Put(out, m)
	}
}

// carryDirXattrs is carryXattrs of the directory src (fi: its Lstat,
// which it must still be) to the directory dst made for it.
func carryDirXattrs(src, dst *sandbox.Path, fi fs.FileInfo) {
	in, err := src.Open()
	if err != nil {
		return
	}
	defer in.Close()
	if ifi, err := in.Stat(); err != nil || !os.SameFile(ifi, fi) {
		return
	}
	if out, err := dst.Open(); err == nil {
		carryXattrs(in, out)
		out.Close()
	}
}

// Move moves src to dst: a rename within one root and file system, else a
// copy followed by deleting src. The rules on dst are Copy's; missing
// parent directories of dst are made. A symlink is moved as the link
// itself.
func Move(ctx context.Context, src, dst *sandbox.Path, overwrite bool) error {
	return MoveWith(ctx, src, dst, MoveOptions{Overwrite: overwrite, MakeParents: true})
}

// MoveOptions are the policies a profile chooses for a move, decided here
// rather than checked by the profile beforehand (a race, and a copy of the
// rule).
type MoveOptions struct {
	Overwrite   bool // an existing dst is replaced (Copy's rules), else Exists
	MakeParents bool // missing parents of dst are made, else a NoParentError
}

// MoveWith is Move with the policies spelled out.
func MoveWith(ctx context.Context, src, dst *sandbox.Path, o MoveOptions) (err error) {
	if src.IsRoot() {
		return fault.Errorf(fault.Invalid, src.Abs, "refusing to move the allowed directory %s itself", src.Abs)
	}
	sfi, dfi, err := checkTransfer(src, dst, o.Overwrite, "move")
	if err != nil {
		return err
	}
	done, err := keepReplaced(ctx, dst, dfi)
	if err != nil {
		return err
	}
	if err := journal.Moved(ctx, src, dst); err != nil {
		return err
	}
	undoParents := func() {}
	if o.MakeParents {
		undoParents, err = makeParents(dst)
	} else {
		err = parentExists(dst)
	}
	if err != nil {
		return err
	}
	if src.Root == dst.Root {
		err = place(src, dst, dfi, done)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EXDEV) {
			undoParents()
			return err
		}
	}
	// Another root or another file system: copy, owners too, then delete.
	if err := copyInto(ctx, src, sfi, dst, dfi, true, done); err != nil {
		undoParents()
		return err
	}
	if err := src.RemoveAll(); err != nil {
		return fmt.Errorf("copied %s to %s but could not remove the source: %v", src.Abs, dst.Abs, sandbox.Cause(err))
	}
	return nil
}

// swapDone moves the old tree a directory replaced into the change
// journal (journal.Swapping), reporting false when the caller removes it.
type swapDone func(old *sandbox.Path) bool

// keepReplaced journals what an existing dst (dfi: its Lstat) holds
// before a copy or move replaces it, leaving it in place: what replaces
// it is built first and takes its name in one step, so a reader (or a
// kill) finds the old or the new, never neither. A file is kept by a
// hard link into the journal or a copy; a directory's tree goes into
// the journal when the new one has taken its place (done).
func keepReplaced(ctx context.Context, dst *sandbox.Path, dfi fs.FileInfo) (swapDone, error) {
	switch {
	case dfi == nil:
		return noSwap, nil
	case dfi.IsDir():
		done, err := journal.Swapping(ctx, dst)
		return done, err
	}
	return noSwap, journal.Replaced(ctx, dst)
}

func noSwap(*sandbox.Path) bool { return false }

// checkTransfer validates a copy or move before anything changes and
// returns the source's and (when it exists) the destination's Lstat.
func checkTransfer(src, dst *sandbox.Path, overwrite bool, verb string) (sfi, dfi fs.FileInfo, err error) {
	sfi, err = src.Lstat()
	if err != nil {
		return nil, nil, err
	}
	if src.Root == dst.Root && src.Rel == dst.Rel {
		return nil, nil, fault.Errorf(fault.Invalid, src.Abs, "cannot %s %s onto itself", verb, src.Abs)
	}
	if sfi.IsDir() && inside(src, dst) {
		return nil, nil, fault.Errorf(fault.Invalid, src.Abs, "cannot %s %s into itself (%s)", verb, src.Abs, dst.Abs)
	}
	dfi, err = dst.Lstat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dfi = nil
	case err != nil:
		return nil, nil, err
	case !overwrite:
		return nil, nil, fault.Errorf(fault.Exists, dst.Abs, "destination %s already exists; pass overwrite=true to replace it", dst.Abs)
	case dfi.Mode()&fs.ModeSymlink != 0:
		// overwrite replaces the link itself, but a link out of the roots
		// is refused rather than touched.
		if _, err := dst.Target(); err != nil {
			return nil, nil, err
		}
	case dst.IsRoot():
		return nil, nil, fault.Errorf(fault.Invalid, dst.Abs, "refusing to replace the allowed directory %s itself", dst.Abs)
	case dfi.IsDir() != sfi.IsDir():
		return nil, nil, fmt.Errorf("cannot replace %s %s with %s %s", article(dfi), dst.Abs, article(sfi), src.Abs)
	}
	return sfi, dfi, nil
}

// inside reports whether dst lies in the directory src, by name or, through
// symlinks in dst's parents, on disk (a copy into itself would never end).
func inside(src, dst *sandbox.Path) bool {
	if src.Root == dst.Root && (src.Rel == "." || strings.HasPrefix(dst.Rel, src.Rel+"/")) {
		return true
	}
	return src.Encloses(dst)
}

func article(fi fs.FileInfo) string {
	if fi.IsDir() {
		return "directory"
	}
	return "file"
}

// makeParents creates dst's missing parent directories and returns a
// function that removes what it created.
func makeParents(dst *sandbox.Path) (undo func(), err error) {
	parent := dst.Dir()
	if fi, err := parent.Stat(); err == nil {
		if !fi.IsDir() {
			return nil, fault.Errorf(fault.NotDir, parent.Abs, "%s is not a directory", parent.Abs)
		}
		return func() {}, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	top := parent
	for !top.IsRoot() {
		up := top.Dir()
		if _, err := up.Lstat(); err == nil {
			break
		}
		top = up
	}
	if err := parent.MkdirAll(0o755); err != nil {
		return nil, err
	}
	return func() { top.RemoveAll() }, nil
}

// parentExists refuses dst whose parent directory is missing.
func parentExists(dst *sandbox.Path) error {
	fi, err := dst.Dir().Stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &NoParentError{Path: dst.Abs}
	case err != nil:
		return err
	case !fi.IsDir():
		return fault.Errorf(fault.NotDir, dst.Dir().Abs, "%s is not a directory", dst.Dir().Abs)
	}
	return nil
}

// NoParentError says a file was not written or moved to Path because its
// parent directory does not exist and the call does not make parents.
type NoParentError struct{ Path string }

func (e *NoParentError) Kind() fault.Kind { return fault.NotFound }
func (e *NoParentError) Where() string    { return e.Path }
func (e *NoParentError) Error() string {
	return "the directory of " + e.Path + " does not exist"
}

// place renames from onto dst: without replacing when dst did not exist
// (dfi nil), atomically for a file, and for a directory by exchanging
// the two in one step where the system can (the old tree, at from's
// name then, goes into the journal through done, or is removed), else
// by moving the old one aside first and restoring it if the rename
// fails.
func place(from, dst *sandbox.Path, dfi fs.FileInfo, done swapDone) error {
	switch {
	case dfi == nil:
		return from.RenameNoReplace(dst)
	case !dfi.IsDir():
		return from.Rename(dst)
	}
	if from.Exchange(dst) == nil {
		if done(from) {
			return nil
		}
		h, err := from.Remover()
		if err != nil {
			return err
		}
		defer h.Close()
		return h.RemoveAll()
	}
	// No exchange here (Windows, or a file system without one): the old
	// tree leaves first, into the journal where it can.
	if done(dst) {
		return from.RenameNoReplace(dst)
	}
	// The old directory moves aside and back (or away) relative to one
	// handle on the parent, so a parent swapped meanwhile cannot strand
	// it under its hidden name.
	h, err := dst.Remover()
	if err != nil {
		return err
	}
	defer h.Close()
	aside, err := h.Aside()
	if err != nil {
		return fmt.Errorf("cannot replace %s: %v", dst.Abs, sandbox.Cause(err))
	}
	if err := from.Rename(dst); err != nil {
		aside.RenameTo(h)
		return err
	}
	return aside.RemoveAll()
}

// copyChunk is how much one copy_file_range round moves before the context
// is checked again.
const copyChunk = 8 << 20

// copyTree copies src (described by fi) to the new path dst; final is the
// name dst will end up with, which symlink targets are checked against.
func copyTree(ctx context.Context, src *sandbox.Path, fi fs.FileInfo, dst, final *sandbox.Path, owners bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	mode := fi.Mode()
	switch {
	case mode.IsRegular():
		return copyFile(ctx, src, fi, dst, owners)
	case mode.IsDir():
		if err := dst.Mkdir(0o700); err != nil {
			return err
		}
		ents, err := src.ReadDir()
		if err != nil {
			return err
		}
		for _, de := range ents {
			cfi, err := de.Info()
			if err != nil {
				return fmt.Errorf("cannot copy %s: %v", src.Join(de.Name()).Abs, sandbox.Cause(err))
			}
			if err := copyTree(ctx, src.Join(de.Name()), cfi, dst.Join(de.Name()), final.Join(de.Name()), owners); err != nil {
				return err
			}
		}
		if o := owner(fi); owners && o[0] >= 0 {
			dst.Lchown(o[0], o[1])
		}
		carryDirXattrs(src, dst, fi)
		dfi, err := dst.Lstat()
		if err != nil {
			return err
		}
		if err := dst.Chmod(mode.Perm() | specialBits(fi, dfi)&^fs.ModeSetuid); err != nil {
			return err
		}
		return dst.Chtimes(atime(fi), fi.ModTime())
	case mode&fs.ModeSymlink != 0:
		link, err := src.Readlink()
		if err != nil {
			return err
		}
		if !src.LinkInside(link) || !final.LinkInside(link) {
			return fault.Errorf(fault.Outside, src.Abs, "cannot copy symlink %s: its target is outside allowed directories", src.Abs)
		}
		if err := dst.Symlink(link); err != nil {
			return err
		}
		if o := owner(fi); owners && o[0] >= 0 {
			dst.Lchown(o[0], o[1])
		}
		return dst.Lchtimes(atime(fi), fi.ModTime())
	}
	return fmt.Errorf("cannot copy %s: it is not a regular file, directory or symlink", src.Abs)
}

func copyFile(ctx context.Context, src *sandbox.Path, fi fs.FileInfo, dst *sandbox.Path, owners bool) error {
	in, err := openSource(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dst.OpenFile(os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := copyData(ctx, src, in, out, fi, owners); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copying %s: %v", src.Abs, sandbox.Cause(err))
	}
	return dst.Chtimes(atime(fi), fi.ModTime())
}
