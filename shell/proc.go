//go:build unix

package shell

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sessionMembers returns the live (non-zombie) processes whose session id
// is sid, read from /proc. Each command runs in its own session, so this
// finds the processes it left even when they moved to another process
// group; only a process that called setsid itself escapes.
func sessionMembers(sid int) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil // no /proc (macOS): killSession falls back to the group
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if s, ok := procSession(pid); ok && s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procSession reads the session id of a live process from /proc/pid/stat
// (fields after the parenthesised command name: state ppid pgrp session).
func procSession(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || string(f[0]) == "Z" || string(f[0]) == "X" {
		return 0, false
	}
	sid, err := strconv.Atoi(string(f[3]))
	return sid, err == nil
}

// killSession sends SIGKILL to every process of session sid: the process
// group (same number) at once, then each member found in /proc, a few
// rounds to catch processes forked meanwhile. It does nothing when no
// member is left, so a reused pid number is never hit: a pid cannot be
// reused while a process still has it as its session id.
func killSession(sid int) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		syscall.Kill(-sid, syscall.SIGKILL) // no /proc: the process group only
		return
	}
	for round := 0; round < 5; round++ {
		members := sessionMembers(sid)
		if len(members) == 0 {
			return
		}
		syscall.Kill(-sid, syscall.SIGKILL)
		for _, pid := range members {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
