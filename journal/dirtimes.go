package journal

import "time"

// A step that left every path as it found it is no entry, but the
// directories it passed through have new times (a failed patch made and
// removed its temporary file). The times they had before it are carried
// to the next step that records them, while the directory still has the
// time that step left: undoing the next step then gives the directory
// its time from before both, not the time the step that changed nothing
// left.

// carriedTimes are the directories' times before steps that changed
// nothing, by journal and path, with the time those steps left.
type carriedTimes map[string]carried

type carried struct {
	before Image
	left   int64 // the directory's modification time the step left
	at     time.Time
}

// maxCarried bounds the directories remembered (the oldest go first).
const maxCarried = 4096

// carryTimes remembers the times the step's directories had before it,
// for a step that changed nothing (st.mu held).
func (st *Step) carryTimes() {
	for _, t := range st.timed {
		fi, err := st.dirs.lstat(t.p)
		if err != nil || !fi.IsDir() {
			continue
		}
		var before Image
		for _, op := range st.ops {
			if op.Kind == "times" && op.Path == t.rel && (op.Base == "" && t.store == st.home || op.Base == t.store.base) {
				before = op.Before
			}
		}
		if before.Type == "" {
			continue
		}
		now := statImage(fi)
		if now.MTime != before.MTime {
			st.set.carry(key(t.store, t.rel), carried{before, now.MTime, time.Now()})
		}
	}
}

func (s *Set) carry(k string, c carried) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.carriedTimes == nil {
		s.carriedTimes = carriedTimes{}
	}
	if len(s.carriedTimes) >= maxCarried {
		var oldest string
		for ok, oc := range s.carriedTimes {
			if oldest == "" || oc.at.Before(s.carriedTimes[oldest].at) {
				oldest = ok
			}
		}
		delete(s.carriedTimes, oldest)
	}
	s.carriedTimes[k] = c
}

// carried is im, a directory's times as a step records them, or the
// times it had before a step that changed nothing, when it still has
// the time that step left.
func (s *Set) carried(store *Store, rel string, im Image) Image {
	k := key(store, rel)
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.carriedTimes[k]
	if !ok {
		return im
	}
	delete(s.carriedTimes, k)
	if c.left != im.MTime {
		return im // changed since by someone else: that time stays theirs
	}
	im.MTime, im.ATime = c.before.MTime, c.before.ATime
	return im
}
