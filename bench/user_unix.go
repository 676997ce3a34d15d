//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// journalUser is -journal-user: the uid and gid the journal rows'
// servers run as, or nil for the bench's own.
var journalUser *syscall.Credential

func parseUser(s string) error {
	var uid, gid uint32
	if _, err := fmt.Sscanf(s, "%d:%d", &uid, &gid); err != nil {
		return fmt.Errorf("-journal-user wants uid:gid, not %q", s)
	}
	journalUser = &syscall.Credential{Uid: uid, Gid: gid}
	return nil
}

// asUser makes cmd run as journalUser, with what it needs reachable:
// dir (the row's roots and state) owned by that user, and the binary's
// directory open to all.
func asUser(cmd *exec.Cmd, dir, bin string) error {
	if os.Getuid() != 0 {
		return fmt.Errorf("-journal-user needs the bench to run as root")
	}
	u := journalUser
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(u.Uid), int(u.Gid))
	})
	if err != nil {
		return err
	}
	if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u}
	cmd.Env = append(cmd.Env, "HOME="+dir)
	return nil
}
