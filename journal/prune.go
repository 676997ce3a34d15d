package journal

import (
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/filelock"
)

// addHeld records n bytes of objects moved or linked into segment seg
// (they are not in its files' sizes) in its usage file.
func (st *Store) addHeld(seg int, n int64) {
	st.locked(func() error {
		f, err := st.fs.OpenFile(segPath(seg, usageName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		f.WriteString(strconv.FormatInt(n, 10) + "\n")
		return f.Close()
	})
}

// grew counts n bytes put in segment seg besides its log (a pack, an
// object held), for the Set's estimate and the choice of segment.
func (st *Store) grew(seg int, n int64) {
	st.mu.Lock()
	if seg == st.cur {
		st.extra += n
	}
	st.mu.Unlock()
	st.set.mu.Lock()
	st.set.estimate += n
	st.set.mu.Unlock()
}

// diskOf is the disk segment n takes.
func (st *Store) diskOf(n int) int64 { return st.segDisk(n, st.segmentFiles()[n]) }

// segDisk is the disk segment n takes: its files' blocks (its held
// directory's own included), and the objects held in it.
func (st *Store) segDisk(n int, files []fs.DirEntry) int64 {
	var total int64
	for _, e := range files {
		if fi, err := e.Info(); err == nil {
			total += diskUsage(fi)
		}
	}
	if b, err := st.fs.ReadFile(segPath(n, usageName)); err == nil {
		for _, l := range strings.Fields(string(b)) {
			v, _ := strconv.ParseInt(l, 10, 64)
			total += v
		}
	}
	return total
}

// removeSegment removes segment n's files and what it holds.
func (st *Store) removeSegment(n int, files []fs.DirEntry) {
	for _, e := range files {
		st.fs.RemoveAll(path.Join(segDir, e.Name()))
	}
}

// Usage is the disk the journal takes, in bytes: its segments and its
// own small files and directories.
func (st *Store) Usage() int64 {
	n := st.overhead()
	for _, s := range st.segments() {
		n += st.diskOf(s)
	}
	return n
}

// overhead is the disk of what a journal holds besides its segments.
func (st *Store) overhead() int64 {
	var n int64
	for _, name := range []string{".", "root", "bound", "lock", pinDir, segDir} {
		if fi, err := st.fs.Lstat(name); err == nil {
			n += diskUsage(fi)
		}
	}
	if d, err := st.fs.Open(pinDir); err == nil {
		ents, _ := d.ReadDir(-1)
		d.Close()
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				n += diskUsage(fi)
			}
		}
	}
	return n
}

// lastWrite is when segment n was last appended to.
func (st *Store) lastWrite(n int) time.Time {
	fi, err := st.fs.Stat(segPath(n, logName))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// pinned reports the segments a step is writing, in this process or
// another (a pin whose lock is free belongs to a process that is gone:
// it is removed).
func (st *Store) pinned() map[int]bool {
	out := map[int]bool{}
	d, err := st.fs.Open(pinDir)
	if err != nil {
		return out
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	st.mu.Lock()
	mine := st.ownerName
	st.mu.Unlock()
	for _, name := range names {
		if name == mine {
			continue // this process's own steps are in Set.pins
		}
		f, err := st.fs.OpenFile(path.Join(pinDir, name), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		b := make([]byte, 4096)
		k, _ := f.Read(b)
		free, _ := filelock.TryLock(f)
		f.Close()
		if free {
			st.fs.Remove(path.Join(pinDir, name))
			continue
		}
		for _, n := range strings.Split(strings.TrimSpace(string(b[:k])), ",") {
			if seg, err := strconv.Atoi(n); err == nil {
				out[seg] = true
			}
		}
	}
	return out
}

// pin keeps segs from pruning while a step writes them or an undo reads
// them.
func (s *Set) pin(st *Store, segs map[int]bool, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pins == nil {
		s.pins = map[*Store]map[int]int{}
	}
	if s.pins[st] == nil {
		s.pins[st] = map[int]int{}
	}
	for n := range segs {
		if on {
			s.pins[st][n]++
		} else if s.pins[st][n]--; s.pins[st][n] <= 0 {
			delete(s.pins[st], n)
		}
	}
}

// pruneCheck is how often prune measures the journals though its
// estimate is under the bound: for other servers' writes, and the age.
const pruneCheck = time.Minute

// prune removes the oldest segments of the Set's journals while they
// take more disk than the bound, or are older than the age; a segment a
// step writes or an undo reads stays. It measures the disk only when the
// Set's estimate (the last measure, plus what this process wrote since)
// is over the bound, or a while has passed.
func (s *Set) prune() {
	s.mu.Lock()
	due := s.estimate > s.cfg.MaxSize || time.Since(s.measured) > s.ageTick()
	s.mu.Unlock()
	if !due {
		return
	}
	type seg struct {
		st    *Store
		n     int
		disk  int64
		last  time.Time
		files []fs.DirEntry
	}
	s.mu.Lock()
	stores := make([]*Store, 0, len(s.stores))
	for _, st := range s.stores {
		stores = append(stores, st)
	}
	s.mu.Unlock()
	var all []seg
	var total int64
	for _, st := range stores {
		total += st.overhead()
		pinned := st.pinned()
		s.mu.Lock()
		for n := range s.pins[st] {
			pinned[n] = true
		}
		s.mu.Unlock()
		for n, files := range st.segmentFiles() {
			d := st.segDisk(n, files)
			total += d
			if !pinned[n] {
				all = append(all, seg{st, n, d, st.lastWrite(n), files})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].last.Before(all[j].last) })
	old := time.Now().Add(-s.cfg.MaxAge)
	for _, g := range all {
		if total <= s.cfg.MaxSize && !g.last.Before(old) {
			break
		}
		g.st.locked(func() error { g.st.removeSegment(g.n, g.files); return nil })
		total -= g.disk
	}
	s.mu.Lock()
	s.estimate, s.measured = total, time.Now()
	s.mu.Unlock()
}

// segSpan is how long a segment takes new steps: an eighth of the age
// (a second at least). A change leaves the listing once it is older than
// the age (Store.History), and the disk it takes within a span of that.
func (s *Set) segSpan() time.Duration { return max(time.Second, s.cfg.MaxAge/8) }

// ageTick is how often the Set prunes by age while nothing is written:
// a minute, or a quarter of a short age.
func (s *Set) ageTick() time.Duration { return min(pruneCheck, max(time.Second, s.cfg.MaxAge/4)) }

// age prunes, then comes back after ageTick: a quiet server's journals
// age out too.
func (s *Set) age() {
	s.prune()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.aging.Reset(s.ageTick())
	}
}
