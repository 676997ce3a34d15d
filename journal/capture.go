package journal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// How much of a path's state a capture keeps.
const (
	seenMeta = 1 // mode, owner, times
	seenFull = 2 // and the content
)

// Keep records p's state before its content or type changes (a write,
// a truncation, a file or directory made where nothing was). Missing
// parent directories are recorded too, so an undo removes what was made
// on the way.
func Keep(ctx context.Context, p *sandbox.Path) error { return From(ctx).capture(p, capKeep) }

// KeepTarget is Keep of what p names when it is a link (inside its
// root: a link out records nothing, the change does not land in the
// roots): a write that follows links.
func KeepTarget(ctx context.Context, p *sandbox.Path) error {
	return From(ctx).capture(p, capKeep|capFollow)
}

// KeepSeen is Keep of p, whose lstat the caller just took (fi, or err)
// while the change waits: the step need not take it again.
func KeepSeen(ctx context.Context, p *sandbox.Path, fi fs.FileInfo, err error) error {
	return From(ctx).captureSeen(p, capKeep, fi, err)
}

// MetaSeen is Meta of p, whose lstat the caller just took.
func MetaSeen(ctx context.Context, p *sandbox.Path, fi fs.FileInfo, err error) error {
	return From(ctx).captureSeen(p, capMeta, fi, err)
}

// MetaTarget is Meta of what p names when it is a link.
func MetaTarget(ctx context.Context, p *sandbox.Path) error {
	return From(ctx).capture(p, capMeta|capFollow)
}

// Gone records p's state before it is removed or replaced by a rename; a
// file's content is hard-linked into the journal where it can be (it
// leaves the tree, so it cannot change there), else copied.
func Gone(ctx context.Context, p *sandbox.Path) error { return From(ctx).capture(p, capGone) }

// GoneDir is Gone for a removal that takes only a directory (rmdir):
// on anything else it fails, and records nothing. Gone would keep a file
// there by a hard link into the journal, as if it left the tree; it
// stays, and a later change to it (mv suid.sh b/c; rmdir b/c, then
// chmod) changed the journal's copy too, and its second link made the
// undo's chmod refuse.
func GoneDir(ctx context.Context, p *sandbox.Path) error {
	if st := recording(ctx); st != nil {
		fi, err := st.dirs.lstat(p)
		st.mu.Unlock()
		if err == nil && !fi.IsDir() {
			return nil
		}
	}
	return Gone(ctx, p)
}

// Replaced records p's state before a new file takes its name (a write
// through a temporary file): a larger file is hard-linked into the
// journal, since the old inode leaves the tree unchanged; a small one is
// copied into the log, where it takes no block of its own.
func Replaced(ctx context.Context, p *sandbox.Path) error {
	return From(ctx).capture(p, capReplace)
}

// Meta records p's mode, owner and times before only they change.
func Meta(ctx context.Context, p *sandbox.Path) error { return From(ctx).capture(p, capMeta) }

// MadeTree records that p did not exist before a whole tree is made
// there at once (a directory copy): the step's end sums the tree, and an
// undo removes it only while it is what the copy made.
func MadeTree(ctx context.Context, p *sandbox.Path) error {
	st := From(ctx)
	if err := st.capture(p, capKeep); err != nil || !st.active() {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if store, rel, err := st.where(p); err == nil {
		st.trees[key(store, rel)] = true
	}
	return nil
}

type capHow int

const (
	capKeep capHow = iota
	capGone
	capMeta
	capReplace
	capHowMask = 0xf

	capFollow capHow = 0x10 // a final link is followed first
	capLinked capHow = 0x20 // another name of a file being kept: its names are the caller's
)

// capture records p's first state in the step. What it writes (the
// entry's beginning, its directory's times, the state) goes to the log
// in one append before it returns.
func (st *Step) capture(p *sandbox.Path, how capHow) (err error) {
	return st.captureSeen(p, how, nil, nil)
}

// captureSeen is capture, given p's lstat (known, or knownErr) when the
// caller took it; both nil when it did not.
func (st *Step) captureSeen(p *sandbox.Path, how capHow, known fs.FileInfo, knownErr error) (err error) {
	if st == nil || st.set == nil {
		return nil
	}
	names := 1 // of p's file, that the journal knows
	linked := how&capLinked != 0
	if h := how & capHowMask; (h == capKeep || h == capMeta) && !linked {
		if names, err = st.keepLinked(p, how, known); err != nil {
			return err
		}
		if names > 1 && h == capMeta {
			// Kept whole as its other names were: the undo writes each
			// anew, where a mode put back on one of two links is refused.
			how &^= capHowMask // capKeep, the flags kept
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.active() {
		st.touched = true
		return nil
	}
	st.holding = true
	st.lastWhole = ""
	defer func() {
		st.holding = false
		write := st.writePending
		if !st.urgent {
			write = st.writeSoon
		}
		if werr := write(); werr != nil && err == nil {
			st.lose(escape.Name(p.Abs) + ": the journal could not be written")
			err = st.failed(p, werr)
		}
	}()
	// The stat taken to see whether p is a link serves readState too.
	if how&capFollow != 0 && known == nil && knownErr == nil {
		known, knownErr = st.dirs.lstat(p)
		if knownErr == nil && known.Mode()&fs.ModeSymlink != 0 {
			t, err := p.Target()
			if err != nil {
				return nil // a link out of the root: the change is not in the roots
			}
			p, known = t, nil
		}
	}
	how &= capHowMask
	level := seenFull
	if how == capMeta {
		level = seenMeta
	}
	store, rel, err := st.where(p)
	if err != nil {
		return st.failed(p, err)
	}
	k := key(store, rel)
	if st.seen[k] >= level {
		// Recorded already, its parents and its directory's times with
		// it (a rename above it would have dropped the mark): a
		// command's later calls on a file it made or kept stop here.
		if how == capGone && (st.dirKnown[k] || st.dirs.holds(p.Root, p.Rel)) {
			// A directory the step knows, about to go: a directory made
			// there next is another, never reached through this one's
			// handle (git's prune removes an object directory its commit
			// made; the next commit makes it again).
			st.unknown(store, rel, p)
		}
		st.final(store, rel, p)
		st.keptWhole(p, how)
		return nil
	}
	err = st.begin(store)
	dir := dirOf(p)
	if err == nil && dir != st.lastDir {
		// A command making many files in one directory: its parents and
		// its times were recorded with the first.
		if err = st.parents(store, rel, p); err == nil {
			err = st.dirTimes(store, p)
		}
		if err == nil && !p.IsRoot() {
			st.lastDir = dir
		}
	}
	if err != nil {
		return st.failed(p, err)
	}
	fi, err := known, knownErr
	if known == nil && knownErr == nil {
		fi, err = st.dirs.lstat(p)
	}
	im, err := st.stateOf(p, how, fi, err)
	if err != nil {
		return st.failed(p, err)
	}
	if im.Type == File && (how == capKeep || how == capMeta) && !linked {
		st.moreNames(p, im.Nlink, names)
	}
	if im.Type == Dir && how == capGone {
		st.unknown(store, rel, p) // an empty directory about to go
	}
	kind := "state"
	if how == capMeta {
		kind = "meta"
	}
	op := Op{Kind: kind, Path: rel, Before: im}
	if to, ok := st.madeLink[k]; ok && how == capKeep {
		op.Link = to
		delete(st.madeLink, k)
	}
	if err := st.writeOp(store, op); err != nil {
		return st.failed(p, err)
	}
	st.seen[k] = level
	st.final(store, rel, p)
	st.keptWhole(p, how)
	return nil
}

// keptWhole marks p as the path the step's last capture kept whole,
// when it did (see KeptWhole). A name a hard link is about to make was
// kept as absent, but its file has another name, whose mode a change
// through it reaches too (ln a b; chmod 600 b): not that one. (A name
// of a file that had others when kept had them kept whole with it.)
func (st *Step) keptWhole(p *sandbox.Path, how capHow) {
	switch {
	case p.Abs == st.linking:
		st.linking = ""
	case how == capKeep:
		st.lastWhole = p.Abs
	}
}

// KeptWhole reports whether abs is the path the step's last capture
// kept whole (its content, mode, owner and times): a change of its mode,
// owner or times right after (tar's fchown, fchmod and futimens of the
// file it just made) has nothing more to keep, and its caller need not
// even resolve it.
func KeptWhole(ctx context.Context, abs string) bool {
	st := From(ctx)
	if st == nil || st.set == nil || abs == "" {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.lastWhole == abs
}

// dirOf names p's directory for lastDir.
func dirOf(p *sandbox.Path) dirKey {
	i := strings.LastIndexByte(p.Rel, '/')
	if i < 0 {
		return dirKey{p.Root, "."}
	}
	return dirKey{p.Root, p.Rel[:i]}
}

type dirKey struct {
	root *sandbox.Root
	rel  string
}

// failed is the error of a change that could not be journaled: for a
// tool, the change is not made.
func (st *Step) failed(p *sandbox.Path, err error) error {
	var nk *NotKeptError
	if errors.As(err, &nk) {
		return err
	}
	return fmt.Errorf("cannot journal the change of %s, so it was not made: %v", escape.Name(p.Abs), sandbox.Cause(err))
}

// parents records p's missing ancestors as absent, the outermost first,
// so that an undo (which goes backwards) removes the innermost first.
func (st *Step) parents(store *Store, rel string, p *sandbox.Path) error {
	var missing []*sandbox.Path
	for d := p.Dir(); !p.IsRoot() && !d.IsRoot(); d = d.Dir() {
		_, brel := d.Root.Base()
		dk := key(store, path.Join(brel, d.Rel))
		if st.dirKnown[dk] {
			break
		}
		if _, err := st.dirs.lstat(d); !errors.Is(err, fs.ErrNotExist) {
			st.dirKnown[dk] = true
			break
		}
		missing = append(missing, d)
	}
	if len(missing) > 0 {
		if err := st.dirTimes(store, missing[len(missing)-1]); err != nil {
			return err
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		_, brel := d.Root.Base()
		drel := path.Join(brel, d.Rel)
		k := key(store, drel)
		if st.seen[k] == seenFull {
			continue
		}
		if err := st.writeOp(store, Op{Kind: "state", Path: drel}); err != nil {
			return err
		}
		st.seen[k] = seenFull
		st.final(store, drel, d)
	}
	return nil
}

// dirTimes records the times of p's directory, which an entry made or
// removed there changes: an undo puts them back last.
func (st *Step) dirTimes(store *Store, p *sandbox.Path) error {
	if p.IsRoot() {
		return nil
	}
	d := p.Dir()
	_, brel := d.Root.Base()
	drel := path.Join(brel, d.Rel)
	k := "times\x00" + key(store, drel)
	if st.seen[k] != 0 || st.seen[key(store, drel)] != 0 {
		return nil
	}
	fi, err := st.dirs.lstat(d)
	if err != nil || !fi.IsDir() {
		return nil
	}
	st.seen[k] = seenMeta
	im := st.set.carried(store, drel, statImage(fi))
	st.timed = append(st.timed, finalAt{d, store, drel})
	return st.writeOp(store, Op{Kind: "times", Path: drel, Before: im})
}

// readState reads p's state; how says whether its content is kept, and
// how (a copy, or the file itself linked into the journal).
func (st *Step) readState(store *Store, p *sandbox.Path, how capHow) (Image, error) {
	fi, err := st.dirs.lstat(p)
	return st.stateOf(p, how, fi, err)
}

// betweenLstatAndRead runs between a file's lstat and the read of its
// content: tests replace the file there.
var betweenLstatAndRead = func(*sandbox.Path) {}

// tookNameTries is how many times a state is read while other files
// keep taking its name.
const tookNameTries = 4

// stateOf is readState from p's lstat, already taken. Where another file
// takes the name between that lstat and the read of its content (a file
// replaced by a rename, as sed -i and editors save, by another process
// at that moment), the lstat is taken again and the content read anew,
// a few times; then nothing of it is kept, and said.
func (st *Step) stateOf(p *sandbox.Path, how capHow, fi fs.FileInfo, err error) (Image, error) {
	for try := 1; ; try++ {
		im, rerr := st.readStateOf(p, how, fi, err)
		if !errors.Is(rerr, errTookName) {
			return im, rerr
		}
		if try == tookNameTries {
			st.tookName(p, &im)
			return im, nil
		}
		fi, err = st.dirs.lstat(p)
	}
}

// readStateOf is stateOf, once: errTookName where another file took
// the name.
func (st *Step) readStateOf(p *sandbox.Path, how capHow, fi fs.FileInfo, err error) (Image, error) {
	if nothingAt(err) {
		return Image{}, nil
	}
	if err != nil {
		return Image{}, err
	}
	im := statImage(fi)
	if im.Type == File || im.Type == Dir {
		im.Xattrs, im.XattrsKept = st.dirs.xattrs(p, &im)
	}
	if how == capMeta {
		return im, nil
	}
	switch im.Type {
	case File:
		hold := how == capGone || how == capReplace && im.Size > inlineMax
		if hold && im.Nlink <= 1 && st.holdLink(p, &im, diskUsage(fi)) {
			return im, nil
		}
		betweenLstatAndRead(p)
		return im, st.readContent(p, &im)
	case Link:
		im.Target, err = p.Readlink()
		return im, err
	case Other:
		if im.Node != "" {
			break
		}
		im.Lost = "a socket or device is not kept"
		st.lose(escape.Name(p.Abs) + ": " + im.Lost)
	}
	return im, nil
}

// nothingAt reports whether an lstat's error says nothing is at the
// path: it is missing, or one of its directories is not a directory (a
// name the step recorded absent below a directory that a file then took
// the place of: rm -rf n/c/y; touch n). Both are the absent state a
// step's end reads there, so the capture and the undo must see them so
// too: else the undo of that entry stops at "n/c/y: not a directory".
func nothingAt(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || fault.KindOf(err) == fault.NotFound || errors.Is(err, syscall.ENOTDIR)
}

// NotKeptError refuses a change the journal cannot keep, the first time
// it is asked for: the same call again makes it, for good. An undo's
// is refused until it is forced.
type NotKeptError struct {
	Path, Verb  string
	Size, Bound int64
	Undo        bool
}

func (e *NotKeptError) Error() string {
	if e.Undo {
		return fmt.Sprintf("not undone: the undo would replace %s, which holds %s, more than the change journal keeps for one change (half of --journal-size %s), so the undo could not be redone. "+
			"Pass force to undo it anyway, or move the file elsewhere inside the allowed directories first",
			e.Path, human(e.Size), human(e.Bound))
	}
	return fmt.Sprintf("not %s: %s holds %s, more than the change journal keeps for one change (half of --journal-size %s), so this could not be undone. "+
		"Call again with the same arguments to go ahead for good, or move it elsewhere inside the allowed directories instead",
		e.Verb, e.Path, human(e.Size), human(e.Bound))
}
func (e *NotKeptError) Kind() fault.Kind { return fault.TooLarge }
func (e *NotKeptError) Where() string    { return e.Path }

// human is a byte count as a person reads it.
func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// room decides whether n more bytes may be kept for p. Over the step's
// cap a tool's change is refused the first time (the same call again
// goes ahead unkept), an undo's unless forced; a shell command's goes
// ahead, noted.
func (st *Step) room(p *sandbox.Path, n int64, verb string) (bool, error) {
	if st.kept+n <= st.cap() {
		return true, nil
	}
	if st.undoing && !st.undoForce {
		return false, &NotKeptError{Path: escape.Name(p.Abs), Size: n, Bound: st.set.cfg.MaxSize, Undo: true}
	}
	if st.byTool && !st.undoing && !st.set.confirmed(st.sessionLabel()+"\x00"+st.actor.Tool+"\x00"+p.Abs) {
		return false, &NotKeptError{Path: escape.Name(p.Abs), Verb: verb, Size: n, Bound: st.set.cfg.MaxSize}
	}
	st.lose(fmt.Sprintf("%s (%s) was more than the journal keeps for one change", escape.Name(p.Abs), human(n)))
	return false, nil
}
