//go:build unix

package shell

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Every command runs in its own process session whose id is the pid of
// the process fsmcp started (bash, or its keeper), so the processes a
// command leaves behind can be found even when they moved to another
// process group; a process that calls setsid itself leaves the session,
// and is held by the keeper instead (keeper_linux.go) or by the session's
// pid namespace. A session id is a pid number, though, and once every member
// of the session has died the number can be reused by an unrelated
// session. So the session remembers the members it saw (pid and start
// time), and treats a session id as still its own only while one of
// those very processes is alive: while any member lives, the number
// cannot be reused.

// member is one process, identified by pid and start time (clock ticks
// after boot), so a reused pid is not mistaken for it.
type member struct {
	pid   int
	start uint64
}

// leftovers are the process sessions a Session's commands left running,
// with the members last seen in each.
type leftovers map[int][]member

// procOK reports whether /proc can be read; without it (macOS) only
// whole process groups are killed.
func procOK() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// scanSessions returns the live (non-zombie) members of the sessions in
// sids, in one pass over /proc.
func scanSessions(sids map[int]bool) leftovers {
	found := leftovers{}
	d, err := os.Open("/proc")
	if err != nil {
		return found
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if sid, start, ok := procStat(pid); ok && sids[sid] {
			found[sid] = append(found[sid], member{pid, start})
		}
	}
	return found
}

// procStat reads a live process's session id and start time from
// /proc/pid/stat (the fields after the parenthesised command name are
// state, ppid, pgrp, session, ...; starttime is field 22 of the line).
func procStat(pid int) (sid int, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || string(f[0]) == "Z" || string(f[0]) == "X" {
		return 0, 0, false
	}
	sid, err1 := strconv.Atoi(string(f[3]))
	start, err2 := strconv.ParseUint(string(f[19]), 10, 64)
	return sid, start, err1 == nil && err2 == nil
}

// sameSession reports whether now (members found under a session id)
// still is the session seen before: one of the processes seen then is
// alive now.
func sameSession(seen, now []member) bool {
	for _, a := range seen {
		for _, b := range now {
			if a == b {
				return true
			}
		}
	}
	return false
}

// update is called after each command, whose session is sid (its bash
// just reaped: members, if any, pin the number). In one pass over /proc
// it starts tracking sid if anything of it still runs, and forgets
// tracked sessions that have ended or are no longer the same session.
func (g leftovers) update(sid int) {
	if !procOK() {
		g[sid] = nil
		for s := range g {
			if syscall.Kill(-s, 0) != nil {
				delete(g, s)
			}
		}
		return
	}
	sids := map[int]bool{sid: true}
	for s := range g {
		sids[s] = true
	}
	now := scanSessions(sids)
	for s, seen := range g {
		if sameSession(seen, now[s]) {
			g[s] = now[s]
		} else {
			delete(g, s)
		}
	}
	if len(now[sid]) > 0 {
		g[sid] = now[sid]
	}
}

// openForWriting lists the files the processes of members hold open
// for writing or appending (from /proc: none where it is not): what a
// command left running may still write, through calls no trace sees.
func openForWriting(members []member) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range members {
		dir := "/proc/" + strconv.Itoa(m.pid)
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			info, err := os.ReadFile(dir + "/fdinfo/" + fd.Name())
			if err != nil || !writable(info) {
				continue
			}
			p, err := os.Readlink(dir + "/fd/" + fd.Name())
			if err != nil || !strings.HasPrefix(p, "/") || strings.HasSuffix(p, " (deleted)") || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// writable reports whether an fdinfo's flags (octal) open it for
// writing (O_WRONLY or O_RDWR).
func writable(info []byte) bool {
	for line := range bytes.SplitSeq(info, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("flags:")); ok {
			f, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 64)
			return err == nil && f&3 != 0
		}
	}
	return false
}

// killAll kills every tracked session that is still the same session.
func (g leftovers) killAll() {
	if !procOK() {
		for sid := range g {
			syscall.Kill(-sid, syscall.SIGKILL)
		}
		return
	}
	sids := map[int]bool{}
	for sid := range g {
		sids[sid] = true
	}
	now := scanSessions(sids)
	for sid, seen := range g {
		if sameSession(seen, now[sid]) {
			killSession(sid)
		}
	}
}

// killSession sends SIGKILL to every process of session sid: the process
// group of the same number at once, then each member found in /proc, a
// few rounds to catch processes forked meanwhile. The caller must know
// that sid is still its session (bash not yet reaped, or sameSession).
func killSession(sid int) {
	syscall.Kill(-sid, syscall.SIGKILL)
	if !procOK() {
		return
	}
	for round := 0; round < 5; round++ {
		members := scanSessions(map[int]bool{sid: true})[sid]
		if len(members) == 0 {
			return
		}
		for _, m := range members {
			syscall.Kill(m.pid, syscall.SIGKILL)
		}
	}
}
