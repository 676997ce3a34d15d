//go:build windows

package windows

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sortedKeys is m's keys in order, so subtests run in a fixed order.
func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestDefaultToolsTakeEverySpelling: each of fsmcp's file tools takes a
// file or directory in the root by every spelling a Windows client uses
// (drive letter, forward slashes, mixed separators, other cases, \\?\
// and \\.\) and answers about that very file, with paths printed in
// Windows' own form.
func TestDefaultToolsTakeEverySpelling(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		a, sub := spellings(tr.path("a.txt")), spellings(tr.path("sub"))
		for i, how := range sortedKeys(a) {
			t.Run(how, func(t *testing.T) {
				if out := ok(t, cs, "fs_read", map[string]any{"file_path": a[how]}); !strings.Contains(out, "2\t"+needle+" one") {
					t.Errorf("fs_read(%s) = %q", a[how], out)
				}
				if out := ok(t, cs, "fs_stat", map[string]any{"path": a[how]}); !strings.Contains(out, "file") {
					t.Errorf("fs_stat(%s) = %q", a[how], out)
				}
				if out := ok(t, cs, "fs_list", map[string]any{"path": sub[how]}); !strings.Contains(out, "b.txt") {
					t.Errorf("fs_list(%s) = %q", sub[how], out)
				}
				if out := ok(t, cs, "fs_glob", map[string]any{"pattern": "*.txt", "path": sub[how]}); !strings.Contains(out, tr.path(`sub\b.txt`)) {
					t.Errorf("fs_glob in %s = %q, want %s", sub[how], out, tr.path(`sub\b.txt`))
				}
				if out := ok(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": sub[how]}); !strings.Contains(out, tr.path(`sub\b.txt`)) {
					t.Errorf("fs_grep in %s = %q, want %s", sub[how], out, tr.path(`sub\b.txt`))
				}
				name := fmt.Sprintf("new-%d.txt", i)
				target := spellings(tr.path(`sub\` + name))[how]
				ok(t, cs, "fs_write", map[string]any{"file_path": target, "content": "x\n"})
				if got := read(t, tr.path(`sub\`+name)); got != "x\n" {
					t.Errorf("fs_write(%s) wrote %q", target, got)
				}
				ok(t, cs, "fs_edit", map[string]any{"file_path": target, "old_string": "x", "new_string": "y"})
				if got := read(t, tr.path(`sub\`+name)); got != "y\n" {
					t.Errorf("fs_edit(%s) left %q", target, got)
				}
				dir := spellings(tr.path(`made\` + name))[how]
				ok(t, cs, "fs_mkdir", map[string]any{"path": dir})
				if !exists(tr.path(`made\` + name)) {
					t.Errorf("fs_mkdir(%s) made nothing", dir)
				}
				cp := spellings(tr.path(`copies\` + name))[how]
				ok(t, cs, "fs_copy", map[string]any{"source": target, "destination": cp})
				if got := read(t, tr.path(`copies\`+name)); got != "y\n" {
					t.Errorf("fs_copy to %s made %q", cp, got)
				}
				mv := spellings(tr.path(`moved\` + name))[how]
				ok(t, cs, "fs_move", map[string]any{"source": cp, "destination": mv})
				if exists(tr.path(`copies\`+name)) || !exists(tr.path(`moved\`+name)) {
					t.Errorf("fs_move %s to %s did not move it", cp, mv)
				}
				write(t, tr.path(`over\`+name), "old")
				write(t, tr.path(`over\moved-`+name), "old")
				ok(t, cs, "fs_copy", map[string]any{"source": target, "destination": spellings(tr.path(`over\` + name))[how], "overwrite": true})
				ok(t, cs, "fs_move", map[string]any{"source": spellings(tr.path(`over\` + name))[how], "destination": spellings(tr.path(`over\moved-` + name))[how], "overwrite": true})
				if got := read(t, tr.path(`over\moved-`+name)); got != "y\n" || exists(tr.path(`over\`+name)) {
					t.Errorf("fs_copy and fs_move over existing files by %s left %q", how, got)
				}
				tsv := spellings(tr.path(`catalogs\` + name + ".tsv"))[how]
				os.MkdirAll(tr.path("catalogs"), 0o755)
				if out := ok(t, cs, "fs_catalog", map[string]any{"target_dir": sub[how], "output_file": tsv}); !strings.Contains(out, "Catalog created") {
					t.Errorf("fs_catalog(%s, %s) = %q", sub[how], tsv, out)
				}
				if got := read(t, tr.path(`catalogs\`+name+".tsv")); !strings.Contains(got, "b.txt") {
					t.Errorf("the catalog of %s: %q", sub[how], got)
				}
				if out := ok(t, cs, "fs_history", map[string]any{"path": sub[how]}); !strings.Contains(strings.ToLower(out), name) {
					t.Errorf("fs_history(%s) = %q, want the change to %s", sub[how], out, name)
				}
			})
		}
		noLitter(t, tr.root)
	})
}

// TestDefaultToolsLongPaths: a file past 260 characters is read, listed,
// found, searched, edited, copied and moved, spelled with and without the
// \\?\ prefix.
func TestDefaultToolsLongPaths(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		dir := filepath.Dir(tr.long)
		for _, p := range []string{tr.long, `\\?\` + tr.long} {
			if out := ok(t, cs, "fs_read", map[string]any{"file_path": p}); !strings.Contains(out, "long "+needle) {
				t.Errorf("fs_read(%d characters) = %q", len(p), out)
			}
		}
		for _, d := range []string{dir, `\\?\` + dir} {
			if out := ok(t, cs, "fs_list", map[string]any{"path": d}); !strings.Contains(out, "long.txt") {
				t.Errorf("fs_list(%d characters) = %q", len(d), out)
			}
		}
		if out := ok(t, cs, "fs_glob", map[string]any{"pattern": "**/long.txt"}); !strings.Contains(out, tr.long) {
			t.Errorf("fs_glob **/long.txt = %q, want %s", out, tr.long)
		}
		if out := ok(t, cs, "fs_grep", map[string]any{"pattern": "long " + needle}); !strings.Contains(out, tr.long) {
			t.Errorf("fs_grep = %q, want %s", out, tr.long)
		}
		ok(t, cs, "fs_edit", map[string]any{"file_path": `\\?\` + tr.long, "old_string": "long", "new_string": "longer"})
		if got := read(t, tr.long); got != "longer "+needle+"\n" {
			t.Errorf("fs_edit of the long path left %q", got)
		}
		cp := filepath.Join(dir, "copy.txt")
		ok(t, cs, "fs_copy", map[string]any{"source": tr.long, "destination": `\\?\` + cp})
		ok(t, cs, "fs_move", map[string]any{"source": cp, "destination": filepath.Join(dir, "moved.txt")})
		if got := read(t, filepath.Join(dir, "moved.txt")); got != "longer "+needle+"\n" {
			t.Errorf("the long copy, moved, holds %q", got)
		}
		deeper := filepath.Join(dir, strings.Repeat("z", 100), "w.txt")
		ok(t, cs, "fs_write", map[string]any{"file_path": deeper, "content": "w"})
		if got := read(t, deeper); got != "w" {
			t.Errorf("fs_write of %d characters wrote %q", len(deeper), got)
		}
		noLitter(t, tr.root)
	})
}

// TestCRLFFiles: a CRLF file is read line by line without the CR, edited
// keeping CRLF (an old_string and new_string with \n match and write
// \r\n), and searched.
func TestCRLFFiles(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		p := tr.path("crlf.txt")
		if out := ok(t, cs, "fs_read", map[string]any{"file_path": p}); out != "1\tone\n2\ttwo "+needle+"\n3\tthree" {
			t.Errorf("fs_read of the CRLF file = %q", out)
		}
		ok(t, cs, "fs_edit", map[string]any{"file_path": p, "old_string": "one\ntwo", "new_string": "uno\ndos\nmore"})
		if got, want := read(t, p), "uno\r\ndos\r\nmore "+needle+"\r\nthree"; got != want {
			t.Errorf("fs_edit of the CRLF file left %q, want %q", got, want)
		}
		if out := ok(t, cs, "fs_grep", map[string]any{"pattern": "more " + needle, "output_mode": "content"}); !strings.Contains(out, fmt.Sprintf("%s:3:more %s", p, needle)) {
			t.Errorf("fs_grep in the CRLF file = %q", out)
		}
		noLitter(t, tr.root)
	})
}

// TestReplaceAFileHeldOpen: fsmcp keeps a file it changes open for its
// lock while it renames the new content over it, which Windows refuses
// where it has no POSIX-semantics rename (FAT32, exFAT, many SMB shares,
// Wine): fs_write and fs_edit let go of it there and land, leaving no
// temporary file. A file another program holds open without sharing
// deletion is refused with a sentence that says so, and left as it was.
func TestReplaceAFileHeldOpen(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		p := tr.path("a.txt")
		ok(t, cs, "fs_edit", map[string]any{"file_path": p, "old_string": "alpha", "new_string": "ALPHA"})
		ok(t, cs, "fs_write", map[string]any{"file_path": p, "content": "whole\n"})
		if got := read(t, p); got != "whole\n" {
			t.Errorf("after fs_edit and fs_write: %q", got)
		}
		noLitter(t, tr.root)

		f, err := os.Open(p) // Go opens without FILE_SHARE_DELETE
		if err != nil {
			t.Fatal(err)
		}
		refused(t, cs, "fs_write", map[string]any{"file_path": p, "content": "other\n"}, "Windows refused to replace "+p)
		refused(t, cs, "fs_edit", map[string]any{"file_path": p, "old_string": "whole", "new_string": "half"}, "Windows refused to replace "+p)
		f.Close()
		if got := read(t, p); got != "whole\n" {
			t.Errorf("a refused replace changed the file: %q", got)
		}
		ok(t, cs, "fs_edit", map[string]any{"file_path": p, "old_string": "whole", "new_string": "half"})
		if got := read(t, p); got != "half\n" {
			t.Errorf("after the holder let go, fs_edit left %q", got)
		}
		skipUnderWine(t, "the refused replaces' temporary files stay: "+wineRemove)
		noLitter(t, tr.root)
	})
}

// noLitter fails the test when a temporary file of fsmcp's is left in dir.
func noLitter(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".fsmcp-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// TestGlobPatternsTakeWindowsSeparators: a backslash in a pattern is the
// path separator on Windows (as ripgrep takes it there), in fs_glob's
// pattern, absolute or relative, \\?\ prefix or not, in fs_grep's glob
// and in fs_list's filter.
func TestGlobPatternsTakeWindowsSeparators(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		b := tr.path(`sub\b.txt`)
		for _, args := range []map[string]any{
			{"pattern": tr.root + `\**\b.txt`},
			{"pattern": filepath.ToSlash(tr.root) + `/**/b.txt`},
			{"pattern": `\\?\` + tr.root + `\**\b.txt`},
			{"pattern": `sub\*.txt`, "path": tr.root},
			{"pattern": `**\b.txt`},
		} {
			if out := ok(t, cs, "fs_glob", args); !strings.Contains(out, b) || strings.Contains(out, "a.txt") {
				t.Errorf("fs_glob %v = %q, want %s alone", args, out, b)
			}
		}
		if out := ok(t, cs, "fs_grep", map[string]any{"pattern": needle, "glob": `sub\*.txt`}); !strings.Contains(out, b) || strings.Contains(out, "a.txt") {
			t.Errorf("fs_grep with glob sub\\*.txt = %q, want %s alone", out, b)
		}
		if out := ok(t, cs, "fs_list", map[string]any{"path": tr.root, "depth": 2, "filter": `sub\*.txt`}); !strings.Contains(out, `b.txt`) || strings.Contains(out, "a.txt") {
			t.Errorf("fs_list with filter sub\\*.txt = %q", out)
		}
	})
}

// TestDeleteBySpellings: fs_delete removes a file and a tree named by
// every spelling; with the journal on they go into it and fs_undo brings
// them back, with the journal off they are removed for good.
func TestDeleteBySpellings(t *testing.T) {
	for _, journal := range []string{"on", "off"} {
		t.Run("journal "+journal, func(t *testing.T) {
			skipUnderWine(t, "fs_delete removes through os.Root: "+wineRemove)
			tr := newTree(t)
			cs := connectStdio(t, "--journal", journal, tr.root)
			for i, how := range sortedKeys(spellings(tr.root)) {
				file, dir := tr.path(fmt.Sprintf("del-%d.txt", i)), tr.path(fmt.Sprintf(`deldir-%d\inner`, i))
				write(t, file, "x")
				write(t, filepath.Join(dir, "f.txt"), "y")
				ok(t, cs, "fs_delete", map[string]any{"path": spellings(file)[how]})
				ok(t, cs, "fs_delete", map[string]any{"path": spellings(filepath.Dir(dir))[how], "recursive": true})
				if exists(file) || exists(filepath.Dir(dir)) {
					t.Errorf("%s: fs_delete left %s or %s", how, file, filepath.Dir(dir))
				}
			}
			if journal == "on" {
				ok(t, cs, "fs_undo", map[string]any{"since": "1h"})
				for i := range len(spellings(tr.root)) {
					if got := read(t, tr.path(fmt.Sprintf(`deldir-%d\inner\f.txt`, i))); got != "y" {
						t.Errorf("fs_undo brought back %q", got)
					}
				}
			}
			noLitter(t, tr.root)
		})
	}
}
