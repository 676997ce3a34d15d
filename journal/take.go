package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Take removes p by moving it into the journal, whole (a file, a link or
// a directory tree, as a trash would): instant where the journal is on
// p's file system. It reports false when p was not moved: then its state
// is recorded (the tree copied into the journal, or noted as not kept)
// and the caller removes it. verb words a refusal ("deleted", "replaced").
func Take(ctx context.Context, p *sandbox.Path, verb string) (bool, error) {
	return take(ctx, p, verb, true)
}

// Leaving records what p holds before a rename takes it out of the
// roots: a copy, a directory's whole tree included, since the object
// itself goes on living (and changing) outside, where an undo cannot
// reach it.
func Leaving(ctx context.Context, p *sandbox.Path) error {
	_, err := take(ctx, p, "moved out of the roots", false)
	return err
}

func take(ctx context.Context, p *sandbox.Path, verb string, move bool) (bool, error) {
	st := recording(ctx)
	if st == nil {
		return false, nil
	}
	defer st.mu.Unlock()
	store, rel, err := st.where(p)
	if err != nil {
		return false, st.failed(p, err)
	}
	fi, err := st.dirs.lstat(p)
	if err != nil {
		return false, nil // the caller's own removal says what is wrong
	}
	if fi.IsDir() {
		st.unknown(store, rel, p)
	}
	k := key(store, rel)
	if st.seen[k] == seenFull {
		// Its state before the step is recorded already (the step made
		// it, or changed it and keeps the old content): nothing to keep.
		st.final(store, rel, p)
		return false, nil
	}
	im := statImage(fi)
	use := diskUsage(fi)
	switch im.Type {
	case Dir:
		use = treeUsage(p)
	case Link:
		if im.Target, err = p.Readlink(); err != nil {
			return false, st.failed(p, err)
		}
	}
	// Refused before anything is written: a refused call leaves no entry.
	ok, err := st.room(p, use, verb)
	if err != nil {
		return false, err
	}
	if err := st.begin(store); err != nil {
		return false, st.failed(p, err)
	}
	if err := st.dirTimes(store, p); err != nil {
		return false, st.failed(p, err)
	}
	taken := false
	switch {
	case !ok:
		im.Lost = "it was more than the journal keeps for one change"
	default:
		name := st.heldName()
		if move && renameInto(p, st.home, name) == nil {
			if hfi, err := st.home.fs.Lstat(name); err == nil && !im.isOf(hfi) {
				// Another object took p's name after the lstat: the
				// journal holds that one, so its image is that one's.
				im = heldImage(st.home, name, hfi)
			}
			im.Held, im.Usage, im.Checked, taken = name, use, true, true
			st.kept += use
			st.held(use)
			break
		}
		// A copy: the object's own attributes with it (its tree's
		// entries carry theirs).
		if im.Type == File || im.Type == Dir {
			im.Xattrs, im.XattrsKept = st.dirs.xattrs(p, &im)
		}
		if err := st.copyObject(p, &im); err != nil {
			return false, st.failed(p, err)
		}
	}
	if err := st.writeOp(store, Op{Kind: "state", Path: rel, Before: im}); err != nil {
		if taken {
			renameOut(st.home, im.Held, p)
		}
		return false, st.failed(p, err)
	}
	st.seen[k] = seenFull
	st.final(store, rel, p)
	return taken, nil
}

// heldImage is the state of the object held at name in store, whose
// lstat is fi.
func heldImage(store *Store, name string, fi fs.FileInfo) Image {
	im := statImage(fi)
	if im.Type == Link {
		im.Target, _ = store.fs.Readlink(name)
	}
	return im
}

// copyObject keeps what p holds by copying it: a file's content, a
// link's target, a directory's whole tree.
func (st *Step) copyObject(p *sandbox.Path, im *Image) error {
	switch im.Type {
	case File:
		return st.keepContent(p, im)
	case Link:
		if im.Target != "" {
			return nil
		}
		t, err := p.Readlink()
		im.Target = t
		return err
	case Dir:
		return st.packTree(p, im)
	case Other:
		if im.Node != "" {
			break
		}
		im.Lost = "a socket or device is not kept"
		st.lose(escape.Name(p.Abs) + ": " + im.Lost)
	}
	return nil
}

// treeEntry is one path of a tree copied into the journal.
type treeEntry struct {
	Path  string `json:"p"` // slash path below the tree's top
	Image Image  `json:"i"`
}

// packTree copies the directory tree at p into the step's pack: each
// file's content, then the listing of every path with its state.
func (st *Step) packTree(p *sandbox.Path, im *Image) error {
	var list []treeEntry
	var walk func(d *sandbox.Path, rel string) error
	walk = func(d *sandbox.Path, rel string) error {
		ents, err := d.ReadDir()
		if err != nil {
			return err
		}
		for _, de := range ents {
			c := d.Join(de.Name())
			fi, err := c.Lstat()
			if err != nil {
				return err
			}
			cim := statImage(fi)
			if cim.Type == File || cim.Type == Dir {
				cim.Xattrs, cim.XattrsKept = st.dirs.xattrs(c, &cim)
			}
			crel := path.Join(rel, de.Name())
			if cim.Type == Dir {
				list = append(list, treeEntry{crel, cim})
				if err := walk(c, crel); err != nil {
					return err
				}
				continue
			}
			if err := st.copyObject(c, &cim); err != nil {
				return err
			}
			if cim.Lost != "" {
				im.Lost = "not all of its tree was kept"
			}
			list = append(list, treeEntry{crel, cim})
		}
		return nil
	}
	if err := walk(p, "."); err != nil {
		return err
	}
	wireTree(list)
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	ref, _, err := st.packFrom(bytes.NewReader(b))
	if err != nil {
		return err
	}
	im.Tree = ref
	st.kept += ref.Len
	return nil
}

// treeUsage is the disk a tree takes.
func treeUsage(p *sandbox.Path) int64 {
	var n int64
	var walk func(d *sandbox.Path)
	walk = func(d *sandbox.Path) {
		ents, err := d.ReadDir()
		if err != nil {
			return
		}
		for _, de := range ents {
			c := d.Join(de.Name())
			fi, err := c.Lstat()
			if err != nil {
				continue
			}
			n += diskUsage(fi)
			if fi.IsDir() {
				walk(c)
			}
		}
	}
	walk(p)
	return n
}

// Moved records that src is about to be renamed to dst: an undo renames
// it back. What dst held is kept as for a removal; dst's missing parents
// are recorded as made.
func Moved(ctx context.Context, src, dst *sandbox.Path) error {
	st := recording(ctx)
	if st == nil {
		return nil
	}
	defer st.mu.Unlock()
	ss, srel, err := st.where(src)
	var ds *Store
	var drel string
	if err == nil {
		ds, drel, err = st.where(dst)
	}
	if err == nil {
		err = st.begin(ss)
	}
	if err == nil {
		err = st.begin(ds)
	}
	// A rename that will fail changes nothing, and must record nothing:
	// what it would have replaced may be kept by a hard link into the
	// journal (a large file), but when the rename fails it stays, and a
	// later change in the step changes the journal's copy too, which the
	// undo then puts back (os.replace of a missing file onto f.txt, then
	// touch f.txt: f.txt came back with the new time; onto a file from a
	// directory, then chmod: "has 2 hard links"). These failures are
	// known before the call: no source; a directory onto a non-directory;
	// a non-directory onto a directory.
	sfi, serr := st.dirs.lstat(src)
	if serr != nil {
		return nil // the rename itself fails and says why
	}
	if dfi, err := st.dirs.lstat(dst); err == nil && (sfi.IsDir() != dfi.IsDir() || sameObject(statImage(sfi), statImage(dfi))) {
		return nil // or the two names are one file's: the rename does nothing (rename(2))
	}
	if err == nil {
		err = st.parents(ds, drel, dst)
	}
	if err == nil {
		err = st.dirTimes(ss, src)
	}
	if err == nil {
		err = st.dirTimes(ds, dst)
	}
	if err != nil {
		return st.failed(src, err)
	}
	if _, err := st.dirs.lstat(dst); err == nil && st.seen[key(ds, drel)] != seenFull {
		// Kept as a file a write replaces (Replaced): a small one is
		// copied, since a process that has it open may still write to
		// the inode the rename takes out of the tree, and a hard link
		// would keep that late write too.
		im, err := st.readState(ds, dst, capReplace)
		if err == nil {
			err = st.writeOp(ds, Op{Kind: "state", Path: drel, Before: im})
		}
		if err != nil {
			return st.failed(dst, err)
		}
	}
	fi, err := st.dirs.lstat(src)
	if err != nil {
		return nil // the rename itself fails and says why
	}
	op := Op{Kind: "move", Path: srel, To: drel, Before: statImage(fi)}
	if ds != st.home {
		op.ToBase = ds.base
	}
	if err := st.writeOp(ss, op); err != nil {
		return st.failed(src, err)
	}
	st.forget(ss, srel, src)
	st.forget(ds, drel, dst)
	st.final(ss, srel, src)
	st.final(ds, drel, dst)
	return nil
}

// Exchanged records that a and b are about to swap places (renameat2
// RENAME_EXCHANGE): an undo swaps them back. Nothing is copied: whole
// trees change names and come back by name.
func Exchanged(ctx context.Context, a, b *sandbox.Path) error {
	st := recording(ctx)
	if st == nil {
		return nil
	}
	defer st.mu.Unlock()
	as, arel, err := st.where(a)
	var bs *Store
	var brel string
	if err == nil {
		bs, brel, err = st.where(b)
	}
	if err == nil && as != bs {
		err = errors.New("the two names lie in different journals")
	}
	if err == nil {
		err = st.begin(as)
	}
	if err == nil {
		err = st.dirTimes(as, a)
	}
	if err == nil {
		err = st.dirTimes(bs, b)
	}
	if err != nil {
		return st.failed(a, err)
	}
	fa, err := st.dirs.lstat(a)
	if err != nil {
		return nil // the exchange itself fails and says why
	}
	if _, err := st.dirs.lstat(b); err != nil {
		return nil
	}
	if atOrBelow(arel, brel) || atOrBelow(brel, arel) {
		// One is the other or holds it: the kernel refuses (EINVAL),
		// and swapping back would be refused too, failing the undo
		// (renameat2 of tree/a.txt and tree, RENAME_EXCHANGE).
		return nil
	}
	if err := st.writeOp(as, Op{Kind: "exchange", Path: arel, To: brel, Before: statImage(fa)}); err != nil {
		return st.failed(a, err)
	}
	st.forget(as, arel, a)
	st.forget(bs, brel, b)
	st.final(as, arel, a)
	st.final(bs, brel, b)
	return nil
}

// MovedNoReplace is Moved for a rename that fails where dst exists
// (RENAME_NOREPLACE, which mv tries first before it renames over): then
// nothing is recorded, as nothing will change.
func MovedNoReplace(ctx context.Context, src, dst *sandbox.Path) error {
	if st := From(ctx); st != nil && st.set != nil {
		st.mu.Lock()
		_, err := st.dirs.lstat(dst)
		st.mu.Unlock()
		if err == nil {
			return nil
		}
	}
	return Moved(ctx, src, dst)
}

// Trashed records that the file p is about to be moved out of the roots
// to trash (an absolute path: LocalCowork's trash). Its content is kept
// as for a removal; an undo brings it back and takes the trash's copy
// out again.
func Trashed(ctx context.Context, p *sandbox.Path, trash string) error {
	st := recording(ctx)
	if st == nil {
		return nil
	}
	defer st.mu.Unlock()
	store, rel, err := st.where(p)
	if err == nil {
		err = st.begin(store)
	}
	if err == nil {
		err = st.dirTimes(store, p)
	}
	if err != nil {
		return st.failed(p, err)
	}
	im, err := st.readState(store, p, capGone)
	if err == nil {
		err = st.writeOp(store, Op{Kind: "trash", Path: rel, Trash: trash, Before: im})
	}
	if err != nil {
		return st.failed(p, err)
	}
	st.seen[key(store, rel)] = seenFull
	st.final(store, rel, p)
	return nil
}

// readFinal reads what p holds at a step's end: its state, with hash a
// file's content hash (up to hashMax bytes), a link's target, and with
// tree a directory's manifest. A shell command's files are not hashed
// (they may be many): their size and time stand for their content, and
// an undo puts both back exactly.
func readFinal(p *sandbox.Path, tree, hash bool) Image {
	return readFinalWith(p, tree, hash, p.Lstat, func() (readFile, error) { return p.OpenFile(oRead, 0) })
}

// readFinals reads what each path the step changed holds now (st.mu
// held). A command's thousands are read by several goroutines, each
// through directory handles of its own.
func (st *Step) readFinals() []Final {
	after := make([]Final, 0, len(st.finals))
	paths := make([]*sandbox.Path, 0, len(st.finals))
	trees := make([]bool, 0, len(st.finals))
	for _, fa := range st.finals {
		p, store, rel := fa.p, fa.store, fa.rel
		f := Final{Path: rel}
		if store != st.home {
			f.Base = store.base
		}
		after = append(after, f)
		paths = append(paths, p)
		trees = append(trees, len(st.trees) > 0 && st.trees[key(store, rel)])
	}
	read := func(c *dirCache, lo, hi int) {
		for i := lo; i < hi; i++ {
			after[i].Image = readFinalIn(c, paths[i], trees[i], st.byTool)
			// A file still open for writing, or not made yet: an open
			// let go on just before a process of the command, still
			// running, gets to make it.
			t := after[i].Image.Type
			after[i].Image.Open = (t == File || t == "") && st.open[paths[i].Abs]
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 4, len(paths)/finalsPerWorker)
	if workers < 2 {
		read(&st.dirs, 0, len(paths))
		return after
	}
	var wg sync.WaitGroup
	chunk := (len(paths) + workers - 1) / workers
	for lo := chunk; lo < len(paths); lo += chunk {
		wg.Go(func() {
			var c dirCache
			defer c.close()
			read(&c, lo, min(lo+chunk, len(paths)))
		})
	}
	read(&st.dirs, 0, chunk)
	wg.Wait()
	return after
}

// finalsPerWorker is the fewest paths worth a goroutine of their own
// at a step's end.
const finalsPerWorker = 256

// readFinalIn is readFinal through the directory handles of c, with
// the extended attributes.
func readFinalIn(c *dirCache, p *sandbox.Path, tree, hash bool) Image {
	im := readFinalWith(p, tree, hash, func() (fs.FileInfo, error) { return c.lstat(p) }, func() (readFile, error) { return c.openRead(p) })
	if im.Type == File || im.Type == Dir {
		im.Xattrs, im.XattrsKept = c.xattrs(p, &im) // a setfattr alone is a change
	}
	return im
}

func readFinalWith(p *sandbox.Path, tree, hash bool, lstat func() (fs.FileInfo, error), open func() (readFile, error)) Image {
	fi, err := lstat()
	if err != nil {
		return Image{}
	}
	im := statImage(fi)
	switch im.Type {
	case File:
		if hash && im.Size <= hashMax {
			im.Hash = hashFile(open)
		}
	case Link:
		im.Target, _ = p.Readlink()
	case Dir:
		if tree {
			im.Manifest = manifest(p)
		}
	}
	return im
}

// hashMax is the largest file whose content hash a step's end reads;
// past it, size and time stand for the content.
const hashMax = 256 << 20

// readFile is a file opened for reading: an *os.File, or a bare
// descriptor where that costs less (read_unix.go).
type readFile interface {
	io.ReadCloser
	Stat() (fs.FileInfo, error)
}

// oRead opens a file to read what it holds: no final link followed, a
// FIFO not waited on.
const oRead = os.O_RDONLY | oNoFollow | oNonblock

func hashFile(open func() (readFile, error)) string {
	f, err := open()
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, hashMax+1)); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// manifest sums a tree: every path's name, type, size, mode and
// modification time, in order.
func manifest(p *sandbox.Path) string {
	h := sha256.New()
	var walk func(d *sandbox.Path, rel string)
	walk = func(d *sandbox.Path, rel string) {
		ents, err := d.ReadDir()
		if err != nil {
			fmt.Fprintf(h, "%s\x00unreadable\n", rel)
			return
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, de := range ents {
			c := d.Join(de.Name())
			fi, err := c.Lstat()
			if err != nil {
				continue
			}
			im := statImage(fi)
			crel := path.Join(rel, de.Name())
			fmt.Fprintf(h, "%s\x00%s\x00%d\x00%o\x00%d\n", crel, im.Type, im.Size, im.Mode, im.MTime)
			if im.Type == Dir {
				walk(c, crel)
			}
		}
	}
	walk(p, ".")
	return hex.EncodeToString(h.Sum(nil))
}

// atOrBelow reports whether the slash path p is dir or lies below it
// ("." holds everything).
func atOrBelow(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}
