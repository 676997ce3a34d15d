package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/sandbox"
)

// A host's own edit tool (Claude Code's Edit, Gemini CLI's replace) is
// seen through two hooks, each a process of its own: the one before the
// call keeps what the file holds, the one after it records what the call
// left. The step the first begins is left open for the second to end:
// its owner says so ("hook:" and until when it may wait), so history
// does not take it for one cut short meanwhile, and a file names it by
// the host's call id.

// hookWait is how long an open hook step waits for the hook after the
// call; past it, history ends it as cut short (the host never called
// back: the call was refused, or the host stopped).
const hookWait = 15 * time.Minute

// hookDir holds one file per open hook step, named by its call.
const hookDir = "hooks"

// hookOpen is what that file says: the entry, and its segment.
type hookOpen struct {
	ID      string `json:"id"`
	Seg     int    `json:"seg"`
	Off     int64  `json:"off"` // its records lie at or after this byte of the log
	Session string `json:"session"`
}

// BeginHook begins the step of a host's call seen through its hooks:
// recorded as a tool's, but never refused (the call is the host's, made
// whatever the journal says), and left open by Leave for EndHook.
func (s *Set) BeginHook(a Actor, roots []string, call string) *Step {
	st := s.Begin(a, roots)
	st.byTool, st.hookCall = false, call
	return st
}

// hookOwner is the owner a hook step's beginning records.
func hookOwner() string {
	return "hook:" + strconv.FormatInt(time.Now().Add(hookWait).Unix(), 10)
}

// hookLive reports whether owner is a hook step's still waiting.
func hookLive(owner string) bool {
	until, err := strconv.ParseInt(strings.TrimPrefix(owner, "hook:"), 10, 64)
	return err == nil && time.Now().Unix() < until
}

// Leave writes what the step recorded and leaves it open for EndHook
// (the hook after the call, another process). A step that recorded
// nothing leaves nothing. It returns the step's notes.
func (st *Step) Leave() []string {
	if st == nil || st.set == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended || st.home == nil {
		st.ended = true
		return nil
	}
	st.ended = true
	st.writePending()
	st.set.flush.add(st.log.Name(), st.pack)
	st.home.mu.Lock()
	st.home.releaseLog(st.logRef)
	st.home.mu.Unlock()
	if st.heldUse > 0 {
		st.home.addHeld(st.seg, st.heldUse)
	}
	if st.heldDirF != nil {
		st.heldDirF.Close()
	}
	st.dirs.close()
	st.set.pin(st.home, map[int]bool{st.seg: true}, false)
	b, _ := json.Marshal(hookOpen{ID: st.id, Seg: st.seg, Off: st.hookOff, Session: st.label})
	st.home.fs.Mkdir(hookDir, 0o700)
	if err := st.home.fs.WriteFile(hookPath(st.hookCall), b, 0o600); err != nil {
		st.lose("the journal could not be written: " + err.Error())
	}
	var out []string
	for _, n := range st.notes {
		out = append(out, "[journal: "+n+"]")
	}
	if len(st.lost) > 0 {
		out = append(out, "[journal: not everything it changed was kept: "+strings.Join(st.lost, "; ")+"]")
	}
	return out
}

func hookPath(call string) string {
	sum := sha256.Sum256([]byte(call))
	return path.Join(hookDir, hex.EncodeToString(sum[:12]))
}

// EndHook ends the step the hook before the host's call left open in
// DIR base's journal: what each of its paths holds now is its end (a call
// that changed nothing, one that failed, is no entry). It reports
// whether there was one.
func (s *Set) EndHook(base, call string) bool {
	st, err := s.Store(base)
	if err != nil {
		return false
	}
	var h hookOpen
	b, err := st.fs.ReadFile(hookPath(call))
	if err != nil || json.Unmarshal(b, &h) != nil {
		return false
	}
	defer st.fs.Remove(hookPath(call))
	st.endOpen(h)
	return true
}

// HookBegun reports whether a hook before the host's call has just begun
// its step in DIR base's journal (a host that runs both a project's and
// the user's hooks calls fsmcp's twice, at once); an older one is a call
// of the same name the host never called back for, ended as stale.
func (s *Set) HookBegun(base, call string) bool {
	st, err := s.Store(base)
	if err != nil {
		return false
	}
	fi, err := st.fs.Stat(hookPath(call))
	if err != nil {
		return false
	}
	if time.Since(fi.ModTime()) < hookTwin {
		return true
	}
	s.EndHook(base, call)
	return false
}

// hookTwin is how soon after one hook the host's other hook of fsmcp's
// for the same call comes.
const hookTwin = 10 * time.Second

// EndStaleHooks ends the hook steps of session (a label) left open by
// calls the host never called back for (a call its rules then refused):
// they changed nothing, so they leave no entry.
func (s *Set) EndStaleHooks(base, session string, keep string) {
	st, err := s.Store(base)
	if err != nil {
		return
	}
	d, err := st.fs.Open(hookDir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		p := path.Join(hookDir, n)
		if p == hookPath(keep) {
			continue
		}
		var h hookOpen
		if b, err := st.fs.ReadFile(p); err != nil || json.Unmarshal(b, &h) != nil || h.Session != session {
			continue
		}
		st.endOpen(h)
		st.fs.Remove(p)
	}
}

// endOpen appends the end of the open entry h names: its paths as they
// are now, and whether it changed anything.
func (st *Store) endOpen(h hookOpen) {
	var es []*Entry
	if st.readSegmentFrom(h.Seg, h.Off, map[string]*Entry{}, &es) != nil {
		return
	}
	for _, e := range es {
		if e.ID != h.ID || e.Closed {
			continue
		}
		sb, _ := sandbox.New(e.Bases())
		defer sb.Close()
		seen := map[string]bool{}
		var after []Final
		for _, op := range e.Ops {
			if op.Kind == "times" {
				continue
			}
			for _, at := range [][2]string{{op.Base, op.Path}, {op.ToBase, op.To}} {
				k := at[0] + "\x00" + at[1]
				if at[1] == "" || seen[k] {
					continue
				}
				seen[k] = true
				p, err := sb.Resolve(filepath.Join(e.baseOf(at[0]), filepath.FromSlash(at[1])))
				if err == nil {
					after = append(after, Final{Base: at[0], Path: at[1], Image: readFinal(p, false, true)})
				}
			}
		}
		st.append(h.Seg, true, &record{T: "a", ID: e.ID, After: after},
			&record{T: "e", ID: e.ID, Time: time.Now().UTC(), Noop: noopOf(e.Ops, after)})
		return
	}
}
