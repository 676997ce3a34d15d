// Package catalog writes the TSV catalog of a directory tree (SPEC §6, the
// seed file-catalog server's catalog/create).
//
// Format: a header line "Filename\tSize\tDate Modified\tDate Created", then
// one line per regular file under the target directory (symlinks are not
// followed, other special files are left out): its absolute path, its size
// in bytes, its modification time and its birth time (the inode change
// time where the file system records no birth time), both in ISO 8601 with
// microseconds and the local UTC offset. Rows are sorted by path, byte by
// byte. In the Filename column a backslash is written as \\, a tab as \t, a
// newline as \n and a carriage return as \r, so every row is one line of
// four fields; no other byte is changed.
//
// The catalog is written to a temporary file next to the output file and
// renamed into place only when it is complete, without replacing a file
// that appeared meanwhile; a failed or cancelled run leaves nothing.
//
// Speed and memory: the tree is walked one directory at a time in sorted
// order, so rows come out sorted without collecting them; files are
// stat'ed in parallel in batches whose rows are written in order as they
// complete. Memory holds the entries of the directories on the current
// path and a bounded number of batches, never the whole tree.
package catalog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/internal/escape"

	"github.com/sourcegraph/conc/stream"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/journal"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Header is the catalog's first line, without its newline.
const Header = "Filename\tSize\tDate Modified\tDate Created"

// TimeFormat is ISO 8601 with microseconds and the UTC offset.
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// Tuning.
const (
	batchSize   = 256       // files stat'ed by one task
	writeBuffer = 256 << 10 // bytes buffered before a write to the temp file

)

// progressEvery is the least time between two progress reports.
var progressEvery = 250 * time.Millisecond

// workers is how many batches are stat'ed at once: statx is cheap on a
// warm cache and waits on the disk on a cold one, so a few per core.
var workers = max(4, 4*runtime.GOMAXPROCS(0))

// OutputExistsError is the seed's error 1001.
type OutputExistsError struct{ Path string }

func (e *OutputExistsError) Error() string    { return "Output file already exists: " + e.Path }
func (e *OutputExistsError) Kind() fault.Kind { return fault.Exists }
func (e *OutputExistsError) Where() string    { return e.Path }

// TargetNotFoundError is the seed's error 1002.
type TargetNotFoundError struct{ Path string }

func (e *TargetNotFoundError) Error() string    { return "Target directory not found: " + e.Path }
func (e *TargetNotFoundError) Kind() fault.Kind { return fault.NotFound }
func (e *TargetNotFoundError) Where() string    { return e.Path }

// Options tune one run.
type Options struct {
	// Progress, if set, is called now and then with the rows written so far.
	Progress func(rows int)
}

// Create writes the catalog of target to output and returns the number of
// rows (files) in it.
func Create(ctx context.Context, target, output *sandbox.Path, opt Options) (int, error) {
	fi, err := target.Stat()
	if err != nil || !fi.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
		return 0, &TargetNotFoundError{Path: target.Abs}
	}
	dir, err := target.Target() // I/O below goes through the real directory
	if err != nil {
		return 0, err
	}
	if _, err := output.Lstat(); err == nil {
		return 0, &OutputExistsError{Path: output.Abs}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if pfi, err := output.Dir().Stat(); err != nil || !pfi.IsDir() {
		return 0, fault.Errorf(fault.NotFound, output.Abs, "the directory of output_file %s does not exist", output.Abs)
	}

	// The journal records that output did not exist (and its directory's
	// times, before the temporary file changes them): an undo removes it.
	if err := journal.Keep(ctx, output); err != nil {
		return 0, err
	}
	tmp := output.TempSibling()
	f, err := tmp.OpenFile(os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			tmp.Remove()
		}
	}()
	w := &writer{buf: bufio.NewWriterSize(f, writeBuffer), opt: opt, last: time.Now()}
	w.buf.WriteString(Header + "\n")
	wk := &walker{ctx: ctx, root: dir.Root.FS(), w: w, skip: tmp.Rel,
		prefix: strings.TrimSuffix(target.Abs, sep) + sep,
		st:     stream.New().WithMaxGoroutines(workers)}
	wk.walk(dir.Rel, "")
	wk.st.Wait()
	switch {
	case ctx.Err() != nil:
		return 0, ctx.Err()
	case wk.err != nil:
		return 0, wk.err
	case w.err != nil:
		return 0, fmt.Errorf("writing %s: %v", output.Abs, sandbox.Cause(w.err))
	}
	if err := w.buf.Flush(); err != nil {
		return 0, fmt.Errorf("writing %s: %v", output.Abs, sandbox.Cause(err))
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("writing %s: %v", output.Abs, sandbox.Cause(err))
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("writing %s: %v", output.Abs, sandbox.Cause(err))
	}
	if err := tmp.RenameNoReplace(output); err != nil {
		tmp.Remove()
		ok = true
		if errors.Is(err, fs.ErrExist) {
			return 0, &OutputExistsError{Path: output.Abs}
		}
		return 0, err
	}
	ok = true
	return w.rows, nil
}

// sep ends the target's prefix in a row's path: "\\" on Windows.
const sep = string(filepath.Separator)

// walker visits directories depth-first in sorted order and submits their
// files in batches.
type walker struct {
	ctx    context.Context
	root   *os.Root
	w      *writer
	st     *stream.Stream
	prefix string // the target as the client spelled it, plus sep
	skip   string // the temporary output file (root-relative)
	err    error  // set by the walking goroutine only
}

// walk lists dir (root-relative) whose path below the target is rel.
func (wk *walker) walk(dir, rel string) {
	if wk.ctx.Err() != nil || wk.err != nil {
		return
	}
	d, err := wk.root.Open(dir)
	if err != nil {
		if rel == "" {
			wk.err = fmt.Errorf("reading %s: %v", strings.TrimSuffix(wk.prefix, sep), sandbox.Cause(err))
		}
		return // an unreadable subdirectory is skipped, as the seed skips what it cannot stat
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil && len(ents) == 0 {
		return
	}
	files.SortByPath(ents)
	var batch []string
	flush := func() {
		if len(batch) > 0 {
			wk.submit(dir, rel, batch)
			batch = nil
		}
	}
	for _, de := range ents {
		name := de.Name()
		switch t := de.Type(); {
		case t.IsDir():
			flush()
			wk.walk(path.Join(dir, name), path.Join(rel, name))
			if wk.ctx.Err() != nil || wk.err != nil {
				return
			}
		case t.IsRegular() || t&fs.ModeType == fs.ModeIrregular: // irregular: d_type unknown, statx decides
			if path.Join(dir, name) == wk.skip {
				continue
			}
			batch = append(batch, name)
			if len(batch) == batchSize {
				flush()
			}
		}
	}
	flush()
}

// submit stats a batch of names in dir in a worker and hands the rows to
// the writer in submission order.
func (wk *walker) submit(dir, rel string, names []string) {
	wk.st.Go(func() stream.Callback {
		rows, n := wk.rows(dir, rel, names)
		return func() { wk.w.write(rows, n) }
	})
}

// rows stats names in dir and formats the regular files among them.
func (wk *walker) rows(dir, rel string, names []string) ([]byte, int) {
	if wk.ctx.Err() != nil {
		return nil, 0
	}
	d, err := wk.root.Open(dir)
	if err != nil {
		return nil, 0
	}
	defer d.Close()
	out := make([]byte, 0, len(names)*128)
	n := 0
	var st sandbox.Info
	for _, name := range names {
		if err := sandbox.StatAt(d, name, &st); err != nil {
			continue // vanished or unreadable: skipped
		}
		if !st.Mode.IsRegular() {
			continue
		}
		mtime, created := st.Mtime, st.Created()
		// The row's path is in the system's own form (C:\ws\a\b.txt on
		// Windows), as every tool prints paths; rel is slash-separated.
		out = escape.AppendName(out, wk.prefix+filepath.FromSlash(path.Join(rel, name)))
		out = append(out, '\t')
		out = strconv.AppendInt(out, st.Size, 10)
		out = append(out, '\t')
		out = mtime.AppendFormat(out, TimeFormat)
		out = append(out, '\t')
		out = created.AppendFormat(out, TimeFormat)
		out = append(out, '\n')
		n++
	}
	return out, n
}

// writer receives rows in order (from the stream's single callback
// goroutine) and reports progress.
type writer struct {
	buf  *bufio.Writer
	opt  Options
	rows int
	err  error
	last time.Time
}

func (w *writer) write(rows []byte, n int) {
	if w.err != nil || len(rows) == 0 {
		return
	}
	if _, err := w.buf.Write(rows); err != nil {
		w.err = err
		return
	}
	w.rows += n
	if w.opt.Progress != nil && time.Since(w.last) >= progressEvery {
		w.last = time.Now()
		w.opt.Progress(w.rows)
	}
}
