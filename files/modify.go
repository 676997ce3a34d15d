package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/filelock"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Modify is the one read-modify-write of a file: it reads the file p
// names (at most limit bytes; limit <= 0: no limit), hands the content to
// fn and writes what fn returns back atomically (a new file renamed or
// linked into place, flushed to disk). A result equal to the content is
// not written; a result over limit is refused and nothing changes. The
// file must exist. Errors: NotFound, Outside, IsDir, TooLarge, fn's.
//
// Two changes of one file lose nothing, whatever name they use and from
// whichever process: the read-modify-write runs under a lock keyed by the
// file's identity (device and inode, so a symlink alias or another
// spelling shares it) and, across processes, under an exclusive file lock
// (flock; LockFileEx on Windows). Once locked, the name must still lead
// to the locked file (another change may have put a new one in its place
// meanwhile), else it starts over. Waiting honours ctx.
func Modify(ctx context.Context, p *sandbox.Path, limit int64, fn func(old []byte) ([]byte, error)) error {
	return modify(ctx, p, limit, how{}, fn)
}

// how says what modify does besides changing an existing file.
type how struct {
	create  bool // a missing file is created: fn gets nil
	parents bool // with create: missing parent directories are made
	noRead  bool // the old content is not needed: fn gets nil
}

// maxEditRetries bounds how often a change starts over because the file
// was replaced while it waited for the lock.
const maxEditRetries = 1000

// errReplaced says the name no longer leads to the file that was locked.
var errReplaced = errors.New("replaced while waiting for the lock")

func modify(ctx context.Context, p *sandbox.Path, limit int64, h how, fn func(old []byte) ([]byte, error)) error {
	err := modifyLoop(ctx, p, limit, h, fn)
	var rt *ResultTooLargeError
	if errors.As(err, &rt) && rt.Path == "" {
		rt.Path = p.Abs
	}
	return err
}

func modifyLoop(ctx context.Context, p *sandbox.Path, limit int64, h how, fn func(old []byte) ([]byte, error)) error {
	for range maxEditRetries {
		t, err := p.Target()
		if err != nil {
			return err
		}
		// Changes of the same resolved name queue here first, so they do
		// not keep replacing the inode another change is waiting for.
		unlock, err := lock(ctx, t.Root.Path+"\x00"+t.Rel)
		if err != nil {
			return busy(p, err)
		}
		err = modifyOnce(ctx, p, t, limit, h, fn)
		unlock()
		if err != errReplaced {
			return err
		}
	}
	return fmt.Errorf("cannot change %s: it keeps being replaced by another writer; try again", p.Abs)
}

// modifyOnce does one attempt under the name lock.
func modifyOnce(ctx context.Context, p, t *sandbox.Path, limit int64, h how, fn func([]byte) ([]byte, error)) error {
	f, err := t.Open()
	if err != nil {
		switch {
		case h.create && fault.KindOf(err) == fault.NotFound:
			return create(ctx, p, t, limit, h, fn)
		case h.noRead && fault.KindOf(err) == fault.Permission:
			// A file we may replace but not read (mode 0200) cannot be
			// opened to lock; a whole write needs no old content.
			out, err := fn(nil)
			if err != nil {
				return err
			}
			return land(ctx, t, out, nil)
		}
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("cannot change %s: %v", p.Abs, sandbox.Cause(err))
	}
	if fi.IsDir() {
		f.Close()
		return fault.Errorf(fault.IsDir, p.Abs, "path is a directory, not a file: %s", p.Abs)
	}
	unlockKey, err := lock(ctx, fileKey(f, fi, t))
	if err != nil {
		f.Close()
		return busy(p, err)
	}
	// From here f and the key lock belong to the file lock: Release
	// closes f and drops the key lock, now or, when ctx ends first, once
	// the pending lock has been had.
	lf, err := lockFile(ctx, f, unlockKey)
	if err != nil {
		return fmt.Errorf("cannot change %s: %w", p.Abs, err)
	}
	defer lf.Release()
	if now, err := t.Stat(); err != nil || !os.SameFile(now, fi) {
		return errReplaced
	}
	var old []byte
	if !h.noRead {
		if old, err = readBounded(f, p.Abs, limit); err != nil {
			return err
		}
	}
	out, err := fn(old)
	if err != nil {
		return err
	}
	if limit > 0 && int64(len(out)) > limit {
		return &ResultTooLargeError{Path: p.Abs, Size: int64(len(out)), Max: limit}
	}
	if !h.noRead && bytes.Equal(out, old) {
		return nil
	}
	return land(ctx, t, out, lf)
}

// land writes out over t once the change journal has what t held; held,
// if not nil, is t's file held open for its lock
// (sandbox.Path.WriteFileOver).
func land(ctx context.Context, t *sandbox.Path, out []byte, held io.Closer) error {
	if err := journal.Replaced(ctx, t); err != nil {
		return err
	}
	return t.WriteFileOver(out, 0o644, held)
}

// busy says the call ended while another change of the file was under way.
func busy(p *sandbox.Path, err error) error {
	return fmt.Errorf("cannot change %s: another change of it is under way, and the call ended first (%w)", p.Abs, err)
}

// create makes the missing file t: written whole, then linked in under
// its name only if that name is still free, so a file another writer
// created meanwhile is changed (the caller starts over), never replaced.
func create(ctx context.Context, p, t *sandbox.Path, limit int64, h how, fn func([]byte) ([]byte, error)) error {
	out, err := fn(nil)
	if err != nil {
		return err
	}
	if limit > 0 && int64(len(out)) > limit {
		return &ResultTooLargeError{Path: p.Abs, Size: int64(len(out)), Max: limit}
	}
	// Journaled before the parents are made: an undo removes them too.
	if err := journal.Keep(ctx, t); err != nil {
		return err
	}
	if h.parents {
		if err := t.Dir().MkdirAll(0o755); err != nil {
			return err
		}
	}
	tf, err := t.CreateTemp(0o644)
	if err != nil {
		if !h.parents && fault.KindOf(err) == fault.NotFound {
			return &NoParentError{Path: p.Abs}
		}
		return err
	}
	defer tf.Discard()
	if _, err := tf.File().Write(out); err != nil {
		return fmt.Errorf("cannot write %s: %v", p.Abs, sandbox.Cause(err))
	}
	if err := tf.File().Chmod(0o644); err != nil { // the umask may have narrowed it
		return fmt.Errorf("cannot write %s: %v", p.Abs, sandbox.Cause(err))
	}
	err = tf.Commit(false)
	if errors.Is(err, os.ErrExist) {
		return errReplaced // created meanwhile: change that one
	}
	return err
}

// ResultTooLargeError says a change would make a file larger than the
// limit; it is decided before the result is built where it can be.
type ResultTooLargeError struct {
	Path      string // filled in by Modify when the change does not know it
	Size, Max int64
}

func (e *ResultTooLargeError) Kind() fault.Kind { return fault.TooLarge }
func (e *ResultTooLargeError) Where() string    { return e.Path }

func (e *ResultTooLargeError) Error() string {
	return fmt.Sprintf("cannot change %s: the result would be %d bytes, over the %d-byte limit (--max-file-size); nothing was changed", e.Path, e.Size, e.Max)
}

// readBounded reads the whole of f, refusing a file over max bytes. The
// buffer is sized from the file's size, so a large file is read into one
// allocation rather than grown (and copied) as io.ReadAll does; a file
// that grows meanwhile is read on to its end, still within max.
func readBounded(f *os.File, name string, max int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, sandbox.Cause(err))
	}
	size := fi.Size()
	if max > 0 && size > max {
		return nil, &sandbox.TooLargeError{Path: name, Size: size, Max: max}
	}
	// One byte more than the size tells a file that grew from one that
	// did not without a second read.
	data := make([]byte, size+1)
	n, err := io.ReadFull(f, data)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF: // the whole file (or it shrank)
		return data[:n:n], nil
	case err != nil:
		return nil, fmt.Errorf("%s: %v", name, sandbox.Cause(err))
	}
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1-int64(n))
	}
	rest, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, sandbox.Cause(err))
	}
	data = append(data[:n], rest...)
	if max > 0 && int64(len(data)) > max {
		return nil, &sandbox.TooLargeError{Path: name, Size: int64(len(data)), Max: max}
	}
	return data[:len(data):len(data)], nil
}

// keyLock is one file's in-process lock: a one-slot channel, so waiting
// for it can give up when the call's context ends; n counts its users so
// the table forgets files nobody changes.
type keyLock struct {
	ch chan struct{}
	n  int
}

// The table is the process's, deliberately: every server and session in
// one fsmcp writes the same files, so their changes of one file must
// queue on one lock (across processes, filelock's advisory lock does it).
var (
	locksMu sync.Mutex
	locks   = map[any]*keyLock{}
)

// lock serialises changes of one key (a resolved name, or a file's
// identity) within this process.
func lock(ctx context.Context, key any) (unlock func(), err error) {
	locksMu.Lock()
	l := locks[key]
	if l == nil {
		l = &keyLock{ch: make(chan struct{}, 1)}
		locks[key] = l
	}
	l.n++
	locksMu.Unlock()
	forget := func() {
		locksMu.Lock()
		if l.n--; l.n == 0 {
			delete(locks, key)
		}
		locksMu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; forget() }, nil
	case <-ctx.Done():
		forget()
		return nil, context.Cause(ctx)
	}
}

// lockFile takes the exclusive cross-process lock on f, waiting while
// another process holds it until ctx ends. It owns f and after (run once
// the lock is dropped) from the call on: the held's Release unlocks,
// closes f and runs after; on an error they are done at once, or, while
// a lock request is still pending in the system, as soon as it returns.
// A file system without file locks gets the in-process lock only.
func lockFile(ctx context.Context, f *os.File, after func()) (*held, error) {
	done := func(locked bool) {
		if locked {
			filelock.Unlock(f)
		}
		f.Close()
		after()
	}
	ok, err := filelock.TryLock(f)
	if err != nil {
		done(false)
		return nil, err
	}
	if ok {
		return &held{f: f, after: after}, nil
	}
	got := make(chan error, 1)
	go func() { got <- filelock.Lock(f) }()
	select {
	case err := <-got:
		if err != nil {
			done(false)
			return nil, err
		}
		return &held{f: f, after: after}, nil
	case <-ctx.Done():
		go func() { done(<-got == nil) }()
		return nil, fmt.Errorf("another program holds a lock on it, and the call ended before it was released (%w)", context.Cause(ctx))
	}
}

// held is a file kept open for its cross-process lock while it is
// changed. Close lets go of the handle (and so of the lock) early, which
// Windows needs to replace a file where it has no POSIX-semantics rename
// (sandbox.Temp.CommitOver); Release lets go of it and runs after, the
// in-process lock's release, which Close leaves held.
type held struct {
	f     *os.File
	after func()
	once  sync.Once
}

func (h *held) Close() error {
	h.once.Do(func() {
		filelock.Unlock(h.f)
		h.f.Close()
	})
	return nil
}

func (h *held) Release() {
	h.Close()
	h.after()
}

// removeLocked removes the regular file p names under the locks every
// change of it takes (Modify's): an edit that read the file before the
// removal cannot land after it and bring the file back, and one waiting
// for the lock finds the file gone.
func removeLocked(ctx context.Context, p *sandbox.Path) error {
	return underLocks(ctx, p, "delete", func(io.Closer) error { return takeOrRemove(ctx, p) })
}

// underLocks runs change (which replaces or removes what p names) under
// the locks Modify takes: the name's in-process lock and, when p is a
// regular file, the lock of its identity and its cross-process file
// lock, with the name checked to still lead to that file.
func underLocks(ctx context.Context, p *sandbox.Path, verb string, change func(held io.Closer) error) error {
	for range maxEditRetries {
		unlock, err := lock(ctx, p.Root.Path+"\x00"+p.Rel)
		if err != nil {
			return busy(p, err)
		}
		err = lockedOnce(ctx, p, verb, change)
		unlock()
		if err != errReplaced {
			return err
		}
	}
	return fmt.Errorf("cannot %s %s: it keeps being replaced by another writer; try again", verb, p.Abs)
}

func lockedOnce(ctx context.Context, p *sandbox.Path, verb string, change func(held io.Closer) error) error {
	f, err := p.OpenFile(os.O_RDONLY|oNoFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		// Not there, or not openable (no read permission): by name.
		return change(nil)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return change(nil)
	}
	unlockKey, err := lock(ctx, fileKey(f, fi, p))
	if err != nil {
		f.Close()
		return busy(p, err)
	}
	h, err := lockFile(ctx, f, unlockKey)
	if err != nil {
		return fmt.Errorf("cannot %s %s: %w", verb, p.Abs, err)
	}
	defer h.Release()
	if now, err := p.Lstat(); err != nil || !os.SameFile(now, fi) {
		return errReplaced
	}
	return change(h)
}

// takeOrRemove removes p: into the change journal where it can be moved
// there (an undo moves it back), else for good once the journal has
// what it held.
func takeOrRemove(ctx context.Context, p *sandbox.Path) error {
	taken, err := journal.Take(ctx, p, "deleted")
	if err != nil || taken {
		return err
	}
	if fi, err := p.Lstat(); err == nil && fi.IsDir() {
		return p.RemoveAll()
	}
	return p.Remove()
}
