package journal

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// A hard link gives a file a second name: a change through one name
// changes the file under the other too, though only one name was
// recorded. The journal remembers, by the file's identity, the names the
// links this process saw made gave it (in any step: ln f.txt b in one
// command, echo x >> b in the next), and from the history those an
// earlier fsmcp saw (the op of a name a link made names the file it
// linked, and an entry's end the identity of what it left). Before a
// write, or a change of mode, owner or times, through one of them, the
// step keeps the others whole too (while they still name that file), so
// the undo gives each its old content and mode back, each as a file of
// its own (never by writing into the shared file, which may have a name
// outside the roots). A file with more names than that (linked before
// fsmcp ran, or from outside the roots) is changed under names the
// journal does not know: the step says so.

// linkNames are the names hard links gave files, by identity, for the
// process's life; bounded (past maxLinked files, no more are added, and
// a change through one not known is said, as for any other).
type linkNames struct {
	mu    sync.Mutex
	names map[[2]uint64][]*sandbox.Path
	n     atomic.Int64 // len(names), read without mu on every capture
	// hist are the names each DIR's history gives files of more than
	// one link, by identity, as store paths: read once per DIR, when a
	// change first meets a file with more names than known.
	hist map[*Store]map[[2]uint64][]string
}

const maxLinked = 1 << 15

func (l *linkNames) add(k [2]uint64, ps ...*sandbox.Path) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.names == nil {
		l.names = map[[2]uint64][]*sandbox.Path{}
	}
	have, ok := l.names[k]
	if !ok && len(l.names) >= maxLinked {
		return
	}
next:
	for _, p := range ps {
		for _, h := range have {
			if h.Root == p.Root && h.Rel == p.Rel {
				continue next
			}
		}
		have = append(have, p)
	}
	l.names[k] = have
	l.n.Store(int64(len(l.names)))
}

func (l *linkNames) of(k [2]uint64) []*sandbox.Path {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.names[k]
}

// Linked records that name is about to become a hard link to the file
// existing names.
func Linked(ctx context.Context, existing, name *sandbox.Path) {
	st := recording(ctx)
	if st == nil {
		return
	}
	defer st.mu.Unlock()
	st.linking = name.Abs
	fi, err := st.dirs.lstat(existing)
	if err != nil || fi.IsDir() {
		return
	}
	if s, ok := sysStat(fi); ok {
		st.set.links.add([2]uint64{s.dev, s.ino}, existing, name)
	}
	// The new name's op names the file it links, for a later fsmcp.
	store, rel, err := st.where(name)
	if estore, erel, eerr := st.where(existing); err == nil && eerr == nil && estore == store {
		if st.madeLink == nil {
			st.madeLink = map[string]string{}
		}
		st.madeLink[key(store, rel)] = erel
	}
}

// historyNames are the names the history of p's DIR gives the file of
// identity k, as paths of p's root (each to be checked still to name it).
func (st *Step) historyNames(p *sandbox.Path, k [2]uint64) []*sandbox.Path {
	store, _, err := st.where(p)
	if err != nil {
		return nil
	}
	l := &st.set.links
	l.mu.Lock()
	idx, ok := l.hist[store]
	l.mu.Unlock()
	if !ok {
		idx = historyLinks(store)
		l.mu.Lock()
		if l.hist == nil {
			l.hist = map[*Store]map[[2]uint64][]string{}
		}
		l.hist[store] = idx
		l.mu.Unlock()
	}
	_, baseRel := p.Root.Base()
	var out []*sandbox.Path
	for _, r := range idx[k] {
		if baseRel != "." {
			var in bool
			if r, in = strings.CutPrefix(r, baseRel+"/"); !in {
				continue // another root of the DIR
			}
		}
		out = append(out, &sandbox.Path{Root: p.Root, Rel: r, Abs: filepath.Join(p.Root.Path, filepath.FromSlash(r))})
	}
	return out
}

// historyLinks reads a DIR's history for the names of files of more
// than one link: each entry's final of such a file, and the file a name
// made a link to.
func historyLinks(store *Store) map[[2]uint64][]string {
	idx := map[[2]uint64][]string{}
	es, err := store.History()
	if err != nil {
		return idx
	}
	add := func(k [2]uint64, rel string) {
		if !slices.Contains(idx[k], rel) {
			idx[k] = append(idx[k], rel)
		}
	}
	for _, e := range es {
		finals := map[string]Image{}
		for _, f := range e.After {
			if f.Base == "" && f.Image.Type == File && f.Image.Nlink > 1 {
				finals[f.Path] = f.Image
				add([2]uint64{f.Image.Dev, f.Image.Ino}, f.Path)
			}
		}
		for _, op := range e.Ops {
			if im, ok := finals[op.Path]; ok && op.Link != "" && op.Base == "" {
				add([2]uint64{im.Dev, im.Ino}, op.Link)
			}
		}
	}
	return idx
}

// keepLinked keeps whole, before p is written or its mode, owner or
// times change, the other names links gave its file (see Linked; how
// says whether p's final link is followed; known is p's lstat when the
// caller took it). Whole, not only their mode: while two names stand
// the undo cannot set the shared inode's mode, it writes each anew.
// It returns how many names of the file it knows, p's included (0: p is
// not a file). st.mu is not held.
func (st *Step) keepLinked(p *sandbox.Path, how capHow, known fs.FileInfo) (int, error) {
	if st.set.links.n.Load() == 0 && !manyLinks(known) {
		return 1, nil // no link seen made, and (as far as known) none here
	}
	st.mu.Lock()
	fi, err := known, error(nil)
	if fi == nil || how&capFollow != 0 {
		fi, err = st.dirs.lstat(p)
	}
	if err == nil && how&capFollow != 0 && fi.Mode()&fs.ModeSymlink != 0 {
		if p, err = p.Target(); err == nil {
			fi, err = st.dirs.lstat(p)
		}
	}
	var others []*sandbox.Path
	var s sysInfo
	ok := err == nil && !fi.IsDir()
	if ok {
		s, ok = sysStat(fi)
	}
	if ok && s.nlink > 1 {
		k := [2]uint64{s.dev, s.ino}
		names := st.set.links.of(k)
		if uint64(len(names)) < s.nlink {
			// Names an earlier fsmcp saw linked, from the history.
			names = append(slices.Clip(names), st.historyNames(p, k)...)
		}
		for _, o := range names {
			if o.Root == p.Root && o.Rel == p.Rel || slices.ContainsFunc(others, func(x *sandbox.Path) bool { return x.Root == o.Root && x.Rel == o.Rel }) {
				continue
			}
			// A name may name something else by now (removed, kept as it
			// went, and made again; reached through a link made since).
			if ofi, err := st.dirs.lstat(o); err == nil {
				if so, ok := sysStat(ofi); ok && so.dev == s.dev && so.ino == s.ino {
					others = append(others, o)
				}
			}
		}
	}
	st.mu.Unlock()
	if len(others) > 0 {
		st.set.links.add([2]uint64{s.dev, s.ino}, append(others, p)...)
	}
	for _, o := range others {
		if err := st.capture(o, capKeep|capLinked); err != nil {
			return 0, err
		}
	}
	return 1 + len(others), nil
}

// manyLinks reports whether fi (nil: not known) is a file of more than
// one link, which the history may name.
func manyLinks(fi fs.FileInfo) bool {
	if fi == nil || fi.IsDir() {
		return false
	}
	s, ok := sysStat(fi)
	return ok && s.nlink > 1
}

// moreNames notes that p's file has names the journal does not know
// (nlink of them, known counted), which the change reaches too: the
// undo gives p alone its old content back. st.mu is held.
func (st *Step) moreNames(p *sandbox.Path, nlink uint64, known int) {
	if nlink <= uint64(known) {
		return
	}
	note := fmt.Sprintf("%s has %d hard links, %d of them not known to the journal (made before, or outside the allowed directories): the change reaches those names too, and an undo restores only the names it knows",
		escape.Name(p.Abs), nlink, nlink-uint64(known))
	for _, n := range st.notes {
		if n == note {
			return
		}
	}
	if len(st.notes) < 20 {
		st.notes = append(st.notes, note)
	}
}
