//go:build windows

package windows

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReferenceToolsTakeWindowsPaths: --profile reference (the official
// filesystem server's stand-in) takes Windows absolute paths on Windows,
// by every spelling, and relative ones as the official server resolves
// them (from the allowed directory; C:sub\b.txt from the root on drive
// C:), in each of its tools.
func TestReferenceToolsTakeWindowsPaths(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect("--profile", "reference", tr.root)
		if out := ok(t, cs, "list_allowed_directories", map[string]any{}); !strings.Contains(out, tr.root) {
			t.Errorf("list_allowed_directories = %q, want %s", out, tr.root)
		}
		vol := filepath.VolumeName(tr.root)
		a := spellings(tr.path("a.txt"))
		a["relative"] = "a.txt"
		a[`relative .\`] = `.\a.txt`
		a["drive-relative"] = vol + "a.txt"
		sub := spellings(tr.path("sub"))
		sub["relative"] = "sub"
		sub[`relative .\`] = `.\sub`
		sub["drive-relative"] = vol + "sub"
		for i, how := range sortedKeys(a) {
			t.Run(how, func(t *testing.T) {
				if out := ok(t, cs, "read_text_file", map[string]any{"path": a[how]}); out != "alpha\n"+needle+" one\nbeta\n" {
					t.Errorf("read_text_file(%s) = %q", a[how], out)
				}
				if out := ok(t, cs, "get_file_info", map[string]any{"path": a[how]}); !strings.Contains(out, "isFile: true") {
					t.Errorf("get_file_info(%s) = %q", a[how], out)
				}
				if out := ok(t, cs, "read_multiple_files", map[string]any{"paths": []any{a[how], tr.path(`sub\b.txt`)}}); strings.Count(out, needle) != 2 {
					t.Errorf("read_multiple_files(%s, ...) = %q", a[how], out)
				}
				if out := ok(t, cs, "list_directory", map[string]any{"path": sub[how]}); !strings.Contains(out, "[FILE] b.txt") {
					t.Errorf("list_directory(%s) = %q", sub[how], out)
				}
				if out := ok(t, cs, "directory_tree", map[string]any{"path": sub[how]}); !strings.Contains(out, `"b.txt"`) {
					t.Errorf("directory_tree(%s) = %q", sub[how], out)
				}
				if out := ok(t, cs, "search_files", map[string]any{"path": sub[how], "pattern": "*.txt"}); !strings.Contains(out, tr.path(`sub\b.txt`)) {
					t.Errorf("search_files(%s) = %q, want %s", sub[how], out, tr.path(`sub\b.txt`))
				}
				name := fmt.Sprintf("ref-%d.txt", i)
				spelled := spellings(tr.path(`sub\` + name))
				spelled["relative"], spelled[`relative .\`], spelled["drive-relative"] = `sub\`+name, `.\sub\`+name, vol+`sub\`+name
				ok(t, cs, "write_file", map[string]any{"path": spelled[how], "content": "one\r\ntwo\r\n"})
				ok(t, cs, "edit_file", map[string]any{"path": spelled[how], "edits": []any{map[string]any{"oldText": "two", "newText": "deux"}}})
				if got := read(t, tr.path(`sub\`+name)); got != "one\r\ndeux\r\n" {
					t.Errorf("write_file and edit_file(%s) left %q", spelled[how], got)
				}
				dir := spellings(tr.path(`refdirs\` + name))
				dir["relative"], dir[`relative .\`], dir["drive-relative"] = `refdirs\`+name, `.\refdirs\`+name, vol+`refdirs\`+name
				ok(t, cs, "create_directory", map[string]any{"path": dir[how]})
				moved := spellings(tr.path(`refdirs\` + name + `\moved.txt`))
				moved["relative"], moved[`relative .\`], moved["drive-relative"] = `refdirs\`+name+`\moved.txt`, `.\refdirs\`+name+`\moved.txt`, vol+`refdirs\`+name+`\moved.txt`
				ok(t, cs, "move_file", map[string]any{"source": spelled[how], "destination": moved[how]})
				if got := read(t, tr.path(`refdirs\`+name+`\moved.txt`)); got != "one\r\ndeux\r\n" {
					t.Errorf("move_file to %s: %q", moved[how], got)
				}
			})
		}
		noLitter(t, tr.root)
	})
}

// TestReferenceRootedPaths: a path rooted on no drive (\dir\a.txt or
// /dir/a.txt) is, as the official server takes it, on the current drive.
func TestReferenceRootedPaths(t *testing.T) {
	tr := newTree(t)
	cs := connectStdioIn(t, tr.base, "--profile", "reference", tr.root)
	rooted := tr.path("a.txt")[len(filepath.VolumeName(tr.root)):]
	for _, p := range []string{rooted, filepath.ToSlash(rooted)} {
		if out := ok(t, cs, "read_text_file", map[string]any{"path": p}); !strings.Contains(out, "alpha") {
			t.Errorf("read_text_file(%s) = %q", p, out)
		}
	}
}

// TestReferenceOfficialWindowsCases runs the official server's own
// Windows-only isPathWithinAllowedDirectories cases (its
// path-validation tests, kept as data in
// profiles/reference/testdata/path-validation-cases.json) through
// fsmcp.exe --profile reference on real directories: each case's
// directories are made below a temporary base (C:\Users\project becomes
// BASE\Users\project; a UNC share \\server\share\project becomes
// \\localhost\C$\...\BASE\server\share\project), the server is started
// with the allowed ones, and get_file_info on the path must be refused
// with "Access denied" exactly where the official server says outside.
// sandbox's TestWinPathOfficialCases runs all 16 on the names alone.
func TestReferenceOfficialWindowsCases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "profiles", "reference", "testdata", "path-validation-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Test    string
		Path    string
		Allowed []string
		Want    bool
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	drive := regexp.MustCompile(`^[A-Za-z]:`)
	ran, unc := 0, 0
	for i, c := range cases {
		isUNC := strings.HasPrefix(c.Path, `\\`)
		if !drive.MatchString(c.Path) && !isUNC {
			continue
		}
		t.Run(fmt.Sprintf("%d %s", i, c.Test), func(t *testing.T) {
			base := tempDir(t)
			mapped := func(p string) string {
				switch {
				case drive.MatchString(p) && strings.EqualFold(p[:2], "C:"):
					return base + p[2:]
				case strings.HasPrefix(p, `\\`):
					return uncOf(base) + p[1:]
				}
				return p // "/", or another drive: as it is
			}
			if isUNC {
				unc++
				if _, err := os.Stat(uncOf(base)); err != nil {
					if wine {
						skipUnderWine(t, "Wine has no SMB client, so no UNC share (\\\\localhost\\C$) can be reached")
					}
					t.Skipf("SKIPPED: the administrative share %s cannot be reached (%v)", uncOf(base), err)
				}
			}
			args := []string{"--profile", "reference", "--index", "off"}
			for _, d := range c.Allowed {
				d = mapped(d)
				if d != "/" {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				args = append(args, d)
			}
			p := mapped(c.Path)
			if p != c.Path || !c.Want {
				os.MkdirAll(p, 0o755) // a path on another drive stays as it is
			}
			cs := connectStdioIn(t, base, args...)
			out, _ := call(t, cs, "get_file_info", map[string]any{"path": p})
			if got := !strings.Contains(out, "Access denied"); got != c.Want {
				t.Errorf("%s: %q in %q (as %q in %q) = %v (%q), the official server says %v", c.Test, c.Path, c.Allowed, p, args[4:], got, out, c.Want)
			}
			ran++
		})
	}
	if ran+unc < 16 {
		t.Errorf("%d of the official server's 16 Windows-only cases ran", ran)
	}
	t.Logf("official Windows-only path-validation cases through fsmcp.exe: %d of 16 ran (%d UNC)", ran, unc)
}

// uncOf is the local path p (C:\...) as the administrative share
// \\localhost\C$\... names it.
func uncOf(p string) string {
	return `\\localhost\` + p[:1] + `$` + p[2:]
}
