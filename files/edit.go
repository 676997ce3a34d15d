package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Edit is one literal replacement.
type Edit struct {
	Old, New   string
	ReplaceAll bool
}

// ApplyEdits applies edits in order to content. Each old string must occur
// exactly once unless ReplaceAll is set. In a file with CRLF line endings,
// "\n" in the strings is matched and written as "\r\n", so an edit keeps
// the file's line endings. It returns the new content and the number of
// replacements; on any error nothing is applied.
func ApplyEdits(content string, edits []Edit) (string, int, error) {
	if len(edits) == 0 {
		return "", 0, fault.New(fault.Invalid, "no edits given")
	}
	crlf := strings.Contains(content, "\r\n")
	total := 0
	for i, e := range edits {
		var err error
		var n int
		content, n, err = applyOne(content, e, crlf)
		if err != nil {
			if len(edits) > 1 {
				return "", 0, fmt.Errorf("edit %d of %d: %w; no edit was applied", i+1, len(edits), err)
			}
			return "", 0, err
		}
		total += n
	}
	return content, total, nil
}

func applyOne(content string, e Edit, crlf bool) (string, int, error) {
	if e.Old == "" {
		return "", 0, fault.New(fault.Invalid, "old_string must not be empty")
	}
	if e.Old == e.New {
		return "", 0, fault.New(fault.Invalid, "old_string and new_string are identical; nothing would change")
	}
	old, repl := e.Old, e.New
	if crlf {
		if o := toCRLF(old); o != old && strings.Contains(content, o) {
			old, repl = o, toCRLF(repl)
		} else if !strings.Contains(old, "\n") {
			repl = toCRLF(repl)
		}
	}
	n := strings.Count(content, old)
	switch {
	case n == 0:
		return "", 0, fault.New(fault.NotFound, "old_string not found in file")
	case n > 1 && !e.ReplaceAll:
		return "", 0, fault.Errorf(fault.NotUnique, "", "old_string found %d times. Use replace_all or provide more context to make it unique", n)
	}
	return strings.ReplaceAll(content, old, repl), n, nil
}

// toCRLF writes every line ending as "\r\n".
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// EditFile applies edits to a text file of at most maxSize bytes, all or
// nothing, and writes it back atomically. It returns the new and the old
// content and the number of replacements. With dryRun nothing is written.
//
// Concurrent edits lose nothing whatever name they use: the
// read-modify-rename runs under a lock keyed by the file's device and
// inode (so a symlink alias or another spelling shares it) and, across
// processes, under an flock on the file; once locked, the name must still
// lead to the locked inode (another edit may have renamed a new one into
// place meanwhile), else it starts over.
func EditFile(p *sandbox.Path, edits []Edit, maxSize int64, dryRun bool) (newText, oldText string, n int, err error) {
	for range maxEditRetries {
		t, err := p.Target()
		if err != nil {
			return "", "", 0, err
		}
		// Edits of the same resolved name queue here first, so they do
		// not keep replacing the inode another edit is waiting for.
		unlock := lock(t.Root.Path + "\x00" + t.Rel)
		f, err := t.Open()
		if err != nil {
			unlock()
			return "", "", 0, err
		}
		newText, oldText, n, err = editLocked(p, t, f, edits, maxSize, dryRun)
		f.Close()
		unlock()
		if err != errReplaced {
			return newText, oldText, n, err
		}
	}
	return "", "", 0, fmt.Errorf("cannot edit %s: it keeps being replaced by another writer; try again", p.Abs)
}

// maxEditRetries bounds how often an edit starts over because the file was
// replaced while it waited for the lock.
const maxEditRetries = 1000

// errReplaced says the name no longer leads to the file that was locked.
var errReplaced = errors.New("replaced while waiting for the lock")

// editLocked does one edit of f, the open file t names, under its locks.
func editLocked(p, t *sandbox.Path, f *os.File, edits []Edit, maxSize int64, dryRun bool) (newText, oldText string, n int, err error) {
	fi, err := f.Stat()
	if err != nil {
		return "", "", 0, fmt.Errorf("cannot edit %s: %v", p.Abs, sandbox.Cause(err))
	}
	if fi.IsDir() {
		return "", "", 0, fault.Errorf(fault.IsDir, p.Abs, "path is a directory, not a file: %s", p.Abs)
	}
	unlock := lock(fileKey(fi, t))
	defer unlock()
	funlock, err := flockFile(f)
	if err != nil {
		return "", "", 0, fmt.Errorf("cannot edit %s: %v", p.Abs, err)
	}
	defer funlock()
	if now, err := t.Stat(); err != nil || !os.SameFile(now, fi) {
		return "", "", 0, errReplaced
	}
	data, err := readBounded(f, p.Abs, maxSize)
	if err != nil {
		return "", "", 0, err
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return "", "", 0, fault.Errorf(fault.Binary, p.Abs, "cannot edit %s: it is a binary file", p.Abs)
	}
	oldText = string(data)
	newText, n, err = ApplyEdits(oldText, edits)
	if err != nil {
		return "", oldText, 0, err
	}
	if !dryRun {
		if err := t.WriteFile([]byte(newText), 0o644); err != nil {
			return "", oldText, 0, err
		}
	}
	return newText, oldText, n, nil
}

// readBounded reads the whole of f, refusing a file over max bytes.
func readBounded(f *os.File, name string, max int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, sandbox.Cause(err))
	}
	if max > 0 && fi.Size() > max {
		return nil, &sandbox.TooLargeError{Path: name, Size: fi.Size(), Max: max}
	}
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, sandbox.Cause(err))
	}
	if max > 0 && int64(len(data)) > max {
		return nil, &sandbox.TooLargeError{Path: name, Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// keyLock is one file's in-process edit lock; n counts its users so the
// table forgets files nobody edits.
type keyLock struct {
	mu sync.Mutex
	n  int
}

var (
	locksMu sync.Mutex
	locks   = map[any]*keyLock{}
)

// lock serialises edits of one file (key: its device and inode) within
// this process.
func lock(key any) func() {
	locksMu.Lock()
	l := locks[key]
	if l == nil {
		l = &keyLock{}
		locks[key] = l
	}
	l.n++
	locksMu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		locksMu.Lock()
		if l.n--; l.n == 0 {
			delete(locks, key)
		}
		locksMu.Unlock()
	}
}
