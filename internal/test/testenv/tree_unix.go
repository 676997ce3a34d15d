//go:build unix

package testenv

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// TreeState is every path below root (those skip names left out) with
// its type, mode, owner, modification time and content or link target:
// two states compare equal only if an undo brought back everything.
// Access times are left out (reading changes them).
func TreeState(root string, skip func(rel string) bool) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		st := fi.Sys().(*syscall.Stat_t)
		s := fmt.Sprintf("%v %d:%d mtime=%d", fi.Mode(), st.Uid, st.Gid, fi.ModTime().UnixNano())
		switch {
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			s += fmt.Sprintf(" %x", sha256.Sum256(b)) + inodeFlags(p)
		case fi.IsDir():
			s += inodeFlags(p)
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			s += " -> " + l
		}
		s += xattrs(p)
		out[rel] = s
		return nil
	})
	return out
}

// StateDiff lists the paths whose state differs between a and b, one a
// line ("" when none does).
func StateDiff(a, b map[string]string) string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%s: %q != %q", k, a[k], b[k]))
		}
	}
	return strings.Join(out, "\n")
}
