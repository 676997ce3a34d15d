//go:build windows

package windows

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// attack is a path a hostile or confused client sends, and the words its
// refusal must hold.
type attack struct {
	name, path, want string
}

const (
	outsideWords = "outside allowed directories"
	streamWords  = "alternate data stream"
	deviceWords  = "the Windows device"
	devPathWords = "device or volume path"
	relWords     = "path must be absolute"
)

// attacks are the Windows path attacks on tr: leaving the root by ..,
// by a sibling that starts with the root's name, by prefixes (\\?\,
// \\.\, //?/), by UNC and administrative shares, by 8.3 short names, by
// trailing dots and spaces; streams, device names and device paths;
// relative, rooted and drive-relative paths.
func attacks(tr *tree) []attack {
	secret := filepath.Join(tr.outside, "secret.txt")
	vol := filepath.VolumeName(tr.root)
	a := tr.path("a.txt")
	out := []attack{
		{"dotdot", tr.root + `\..\outside\secret.txt`, outsideWords},
		{"dotdot slashes", filepath.ToSlash(tr.root) + `/../outside/secret.txt`, outsideWords},
		{"dotdot mixed", tr.root + `/..\outside/secret.txt`, outsideWords},
		{"dotdot dir", tr.root + `\..\outside`, outsideWords},
		{"sibling prefix", filepath.Join(tr.evil, "x.txt"), outsideWords},
		{"sibling prefix upper case", strings.ToUpper(filepath.Join(tr.evil, "x.txt")), outsideWords},
		{"sibling prefix dir", tr.evil, outsideWords},
		{`\\?\ dotdot`, `\\?\` + tr.root + `\..\outside\secret.txt`, outsideWords},
		{`\\?\ outside`, `\\?\` + secret, outsideWords},
		{`\\.\ outside`, `\\.\` + secret, outsideWords},
		{`//?/ outside`, `//?/` + filepath.ToSlash(secret), outsideWords},
		{`\??\ outside`, `\??\` + secret, outsideWords},
		{`\\?\UNC outside`, `\\?\UNC\localhost\` + secret[:1] + `$` + secret[2:], outsideWords},
		{"admin share outside", uncOf(secret), outsideWords},
		{"admin share of the root", uncOf(a), outsideWords},
		{"127.0.0.1 share", `\\127.0.0.1\` + a[:1] + `$` + a[2:], outsideWords},
		{"long escape", tr.root + strings.Repeat(`\a`, 150) + strings.Repeat(`\..`, 151) + `\outside\secret.txt`, outsideWords},
		{"outside trailing dot", secret + ".", outsideWords},
		{"outside trailing space", secret + " ", outsideWords},
		{"outside trailing dots and spaces", secret + ". . ", outsideWords},
		{"outside dir trailing dot", tr.outside + `.\secret.txt`, outsideWords},
		{"8.3 name of the sibling", filepath.Join(tr.base, "ROOT_E~1", "x.txt"), outsideWords},
		{"8.3 name through dotdot", tr.root + `\..\OUTSID~1\secret.txt`, outsideWords},
		{"stream", a + `:x`, streamWords},
		{"stream $DATA", a + `::$DATA`, streamWords},
		{"named stream $DATA", a + `:x:$DATA`, streamWords},
		{"stream on the root", tr.root + `:x`, streamWords},
		{"stream on a directory", tr.path("sub") + `:x`, streamWords},
		{"stream outside", secret + `:x`, streamWords},
		{"stream index", tr.path("sub") + `::$INDEX_ALLOCATION`, streamWords},
		{"CON", tr.path("CON"), deviceWords},
		{"nul lower case", tr.path("nul"), deviceWords},
		{"COM1", tr.path("COM1"), deviceWords},
		{"LPT1 in a path", tr.path(`LPT1\x.txt`), deviceWords},
		{"CONIN$", tr.path("CONIN$"), deviceWords},
		{"CON with a space", tr.path("CON "), deviceWords},
		{`\\.\CON`, `\\.\CON`, devPathWords},
		{`\\.\NUL`, `\\.\NUL`, devPathWords},
		{"physical drive", `\\.\PhysicalDrive0`, devPathWords},
		{"GLOBALROOT", `\\?\GLOBALROOT\Device\HarddiskVolume1\Windows\win.ini`, devPathWords},
		{"pipe", `\\.\pipe\fsmcp`, devPathWords},
		{"volume GUID", `\\?\Volume{00000000-0000-0000-0000-000000000000}\x`, devPathWords},
		{"relative dotdot", `..\outside\secret.txt`, relWords},
		{"drive-relative", vol + `..\outside\secret.txt`, relWords},
		{"rooted", secret[len(vol):], relWords},
		{"rooted slashes", filepath.ToSlash(secret[len(vol):]), relWords},
	}
	if !filepath.IsLocal("aux.txt") { // Windows 10 and older (and Wine) reserve it
		out = append(out, attack{"aux.txt", tr.path("aux.txt"), deviceWords})
	}
	return out
}

// TestPathAttacksAreRefused sends every attack to every tool, in every
// argument that takes a path: each is refused with its own words, no
// answer holds what lies outside, and nothing outside (or beside the
// root) is read, created or changed.
func TestPathAttacksAreRefused(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		before := snapshot(t, tr.base, tr.root)
		a, newFile := tr.path("a.txt"), tr.path("new.txt")
		n := 0
		for _, at := range attacks(tr) {
			p := at.path
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"fs_read", map[string]any{"file_path": p}},
				{"fs_write", map[string]any{"file_path": p, "content": "pwned"}},
				{"fs_edit", map[string]any{"file_path": p, "old_string": "secret", "new_string": "pwned"}},
				{"fs_stat", map[string]any{"path": p}},
				{"fs_list", map[string]any{"path": p}},
				{"fs_glob", map[string]any{"pattern": "*", "path": p}},
				{"fs_grep", map[string]any{"pattern": needle, "path": p}},
				{"fs_mkdir", map[string]any{"path": p}},
				{"fs_delete", map[string]any{"path": p, "recursive": true}},
				{"fs_copy", map[string]any{"source": p, "destination": newFile}},
				{"fs_copy", map[string]any{"source": a, "destination": p, "overwrite": true}},
				{"fs_move", map[string]any{"source": p, "destination": newFile}},
				{"fs_move", map[string]any{"source": tr.path(`sub\b.txt`), "destination": p, "overwrite": true}},
				{"fs_catalog", map[string]any{"target_dir": p, "output_file": tr.path("cat.tsv")}},
				{"fs_catalog", map[string]any{"target_dir": tr.path("sub"), "output_file": p}},
				{"fs_watch", map[string]any{"path": p}},
				{"fs_history", map[string]any{"path": p}},
			} {
				n++
				out, isErr := call(t, cs, c.tool, c.args)
				switch {
				case !isErr:
					t.Errorf("%s: %s(%v) succeeded: %q", at.name, c.tool, c.args, out)
				case !strings.Contains(out, at.want):
					t.Errorf("%s: %s(%v) = %q, want a refusal holding %q", at.name, c.tool, c.args, out, at.want)
				}
				if strings.Contains(out, "top secret") || strings.Contains(out, "evil "+needle) {
					t.Errorf("%s: %s(%v) told what lies outside: %q", at.name, c.tool, c.args, out)
				}
			}
		}
		if after := snapshot(t, tr.base, tr.root); after != before {
			t.Errorf("outside the root, before:\n%s\nafter:\n%s", before, after)
		}
		if exists(newFile) || exists(tr.path("cat.tsv")) {
			t.Error("an attack made a file in the root")
		}
		t.Logf("%d attacks, %d calls", len(attacks(tr)), n)
	})
}

// snapshot lists every name below base but inside skip, with its content
// for files: what an attack must leave as it was.
func snapshot(t *testing.T, base, skip string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			lines = append(lines, p+" "+err.Error())
			return nil
		}
		if p == skip {
			return filepath.SkipDir
		}
		line := p
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			line += " " + string(b)
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestTheRootByTrailingDotsAndSpaces: root\. , root\.. , root\... and
// their \\?\ and slash forms name the root itself on Windows (Win32
// strips trailing dots and spaces; fsmcp opens every name through its
// root's handle, which does too), and every guard that protects the root
// sees it: it is neither deleted, moved, written as a file nor copied
// over (issue 47, item 14).
func TestTheRootByTrailingDotsAndSpaces(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		for _, journal := range []string{"on", "off"} {
			guardsSeeTheRoot(t, connect, journal)
		}
	})
}

// guardsSeeTheRoot is TestTheRootByTrailingDotsAndSpaces with the journal
// on or off (not a subtest: the server's cleanup belongs to t).
func guardsSeeTheRoot(t *testing.T, connect func(args ...string) *mcp.ClientSession, journal string) {
	tr := newTree(t)
	cs := connect("--journal", journal, tr.root)
	var spelled []string
	for _, tail := range []string{`\. `, `\.. `, `\...`, `\. . .`, `\.`, `\ `, `\sub\..\. `, `\sub\..\...`} {
		spelled = append(spelled, tr.root+tail, `\\?\`+tr.root+tail, filepath.ToSlash(tr.root+tail))
	}
	for _, p := range spelled {
		refused(t, cs, "fs_delete", map[string]any{"path": p, "recursive": true}, "allowed directory")
		refused(t, cs, "fs_delete", map[string]any{"path": p}, "allowed directory")
		refused(t, cs, "fs_move", map[string]any{"source": p, "destination": filepath.Join(tr.base, "moved")}, "")
		refused(t, cs, "fs_move", map[string]any{"source": p, "destination": tr.path("moved")}, "")
		refused(t, cs, "fs_write", map[string]any{"file_path": p, "content": "x"}, "")
		refused(t, cs, "fs_copy", map[string]any{"source": tr.path("sub"), "destination": p, "overwrite": true}, "")
		refused(t, cs, "fs_move", map[string]any{"source": tr.path("sub"), "destination": p, "overwrite": true}, "")
		if out := ok(t, cs, "fs_stat", map[string]any{"path": p}); !strings.Contains(out, "directory") {
			t.Errorf("fs_stat(%s) = %q, want the root directory", p, out)
		}
	}
	// The guard against copying or moving a directory into itself.
	sub := tr.path("sub")
	for _, c := range []struct{ dst, want string }{
		{sub + `\. `, "onto itself"},
		{sub + `\...`, "onto itself"},
		{`\\?\` + sub + `\.. `, "onto itself"},
		{sub + `\deeper\..\. `, "onto itself"},
		{sub + `\. \inner`, "into itself"},
		{sub + `\...\inner`, "shortens to .."},
	} {
		refused(t, cs, "fs_copy", map[string]any{"source": sub, "destination": c.dst, "overwrite": true}, c.want)
		refused(t, cs, "fs_move", map[string]any{"source": sub, "destination": c.dst, "overwrite": true}, c.want)
	}
	for _, rel := range []string{"a.txt", `sub\b.txt`, "crlf.txt"} {
		if !exists(tr.path(rel)) {
			t.Errorf("journal %s: %s is gone", journal, rel)
		}
	}
	if exists(filepath.Join(tr.base, "moved")) || exists(tr.path("moved")) {
		t.Errorf("journal %s: the root was moved", journal)
	}
}

// TestLinksOut: a symlink and a junction in the root that lead outside
// are refused as outside through every tool that reads or writes.
func TestLinksOut(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		skipUnderWine(t, wineLinks)
		tr := newTree(t)
		link := tr.path("link-out")
		if err := os.Symlink(filepath.Join(tr.outside, "secret.txt"), link); err != nil {
			t.Skipf("SKIPPED: cannot make a symlink here (Windows gives the right to administrators and Developer Mode): %v", err)
		}
		linksRefused(t, tr, link, link)
	})
	t.Run("junction", func(t *testing.T) {
		skipUnderWine(t, wineJunc)
		tr := newTree(t)
		junc := tr.path("junc-out")
		if out, err := exec.Command("cmd", "/c", "mklink", "/J", junc, tr.outside).CombinedOutput(); err != nil {
			t.Skipf("SKIPPED: cannot make a junction: %v %s", err, out)
		}
		linksRefused(t, tr, filepath.Join(junc, "secret.txt"), junc)
	})
}

func linksRefused(t *testing.T, tr *tree, file, dir string) {
	cs := connectStdio(t, tr.root)
	before := snapshot(t, tr.base, tr.root)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"fs_read", map[string]any{"file_path": file}},
		{"fs_write", map[string]any{"file_path": file, "content": "pwned"}},
		{"fs_edit", map[string]any{"file_path": file, "old_string": "secret", "new_string": "pwned"}},
		{"fs_list", map[string]any{"path": dir}},
		{"fs_grep", map[string]any{"pattern": needle, "path": dir}},
		{"fs_copy", map[string]any{"source": file, "destination": tr.path("stolen.txt")}},
	} {
		out, isErr := call(t, cs, c.tool, c.args)
		if !isErr || strings.Contains(out, "top secret") {
			t.Errorf("%s(%v) = %v %q, want a refusal", c.tool, c.args, isErr, out)
		}
	}
	if out := ok(t, cs, "fs_grep", map[string]any{"pattern": "secret"}); strings.Contains(out, "top secret") {
		t.Errorf("a search from the root followed the link: %q", out)
	}
	if after := snapshot(t, tr.base, tr.root); after != before {
		t.Errorf("outside changed:\n%s\n%s", before, after)
	}
}

// TestDotNamesStayInside: a path whose middle holds a name made of dots
// and spaces (.. , ..., . ) is not a way out: Win32 strips trailing dots
// and spaces from the last name only, so such a name in the middle is a
// name of its own ("..." loses one dot) inside the root, or the path is
// refused. Whatever the tools do with it happens inside the root.
func TestDotNamesStayInside(t *testing.T) {
	tr := newTree(t)
	cs := connectStdio(t, tr.root)
	before := snapshot(t, tr.base, tr.root)
	for _, p := range []string{
		tr.root + `\.. \outside\secret.txt`,
		tr.root + `\...\..\outside\secret.txt`,
		tr.root + `\..\...\outside\secret.txt`,
		tr.root + `\. \..\outside\secret.txt`,
		tr.root + `\.. .\outside\secret.txt`,
		`\\?\` + tr.root + `\.. \outside\secret.txt`,
	} {
		out, isErr := call(t, cs, "fs_write", map[string]any{"file_path": p, "content": "pwned"})
		if !isErr {
			written := strings.TrimPrefix(out, "Wrote 5 bytes to ")
			if !strings.HasPrefix(written, tr.root+`\`) || read(t, written) != "pwned" {
				t.Errorf("fs_write(%s) = %q, not inside the root", p, out)
			}
		}
		if out, _ := call(t, cs, "fs_read", map[string]any{"file_path": p}); strings.Contains(out, "top secret") {
			t.Errorf("fs_read(%s) = %q", p, out)
		}
	}
	if after := snapshot(t, tr.base, tr.root); after != before {
		t.Errorf("outside changed:\n%s\n%s", before, after)
	}
}

// TestNarrowingTakesWindowsSpellings: over HTTP, where _meta.allowed_dirs
// only narrows the DIRs (over stdio it adds to them, as in fsMCP), a call
// narrowed to a directory spelled with trailing dots and spaces or \\?\
// is narrowed to that very directory; one that leaves the root is
// refused.
func TestNarrowingTakesWindowsSpellings(t *testing.T) {
	tr := newTree(t)
	cs := connectHTTP(t, tr.root)
	b, a := tr.path(`sub\b.txt`), tr.path("a.txt")
	read := func(dir, file string) (string, bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_read", Arguments: map[string]any{"file_path": file}, Meta: mcp.Meta{"allowed_dirs": []any{dir}}})
		if err != nil {
			t.Fatalf("fs_read(%s) narrowed to %s: %v", file, dir, err)
		}
		var out string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				out += tc.Text
			}
		}
		return out, res.IsError
	}
	for _, dir := range []string{tr.path(`sub\. `), tr.path(`sub\...`), `\\?\` + tr.path("sub"), `\\?\` + tr.path(`sub\.. `), filepath.ToSlash(tr.path("sub"))} {
		if out, isErr := read(dir, b); isErr || !strings.Contains(out, needle) {
			t.Errorf("narrowed to %s, fs_read(%s) = %v %q", dir, b, isErr, out)
		}
		if out, isErr := read(dir, a); !isErr || !strings.Contains(out, outsideWords) {
			t.Errorf("narrowed to %s, fs_read(%s) = %v %q, want it outside", dir, a, isErr, out)
		}
	}
	for _, dir := range []string{tr.root + `\..\outside`, `\\?\` + tr.root + `\..\outside`, tr.outside + `. `, tr.evil, uncOf(tr.outside)} {
		if out, isErr := read(dir, filepath.Join(tr.outside, "secret.txt")); !isErr || strings.Contains(out, "top secret") {
			t.Errorf("narrowed to %s: %v %q, want a refusal", dir, isErr, out)
		}
	}
}
