package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/goroot"
)

// TestSearchToolsSameWithAndWithoutRg runs fs_grep and fs_glob through
// real clients with rg on PATH (rg backend) and without (native backend):
// every answer must be the expected one, and identical in both modes.
func TestSearchToolsSameWithAndWithoutRg(t *testing.T) {
	tr := newTree(t)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tr.path("sub/c.go"), old, old)
	R := tr.root + "/"
	calls := []struct {
		name string
		tool string
		args map[string]any
		want string // "" = only compared across modes
	}{
		{"grep files", "fs_grep", map[string]any{"pattern": needle},
			strings.Join([]string{R + ".hidden/h.txt", R + "a.txt", R + "b.go", R + "crlf.txt", R + "keep.log",
				R + "sub/c.go", R + "sub/deeper/d.md", R + "sub/secret-ok.txt", R + "ünï cødé/naïve file.txt"}, "\n")},
		{"grep content context", "fs_grep", map[string]any{"pattern": "needle one", "output_mode": "content", "-C": 1},
			R + "a.txt-1-alpha\n" + R + "a.txt:2:needle one\n" + R + "a.txt-3-beta"},
		{"grep content no -n", "fs_grep", map[string]any{"pattern": "^package", "output_mode": "content", "-n": false},
			R + "b.go:package b\n" + R + "sub/c.go:package sub"},
		{"grep count -i", "fs_grep", map[string]any{"pattern": "NEEDLE", "-i": true, "output_mode": "count", "path": tr.path("sub")},
			R + "sub/c.go:1\n" + R + "sub/deeper/d.md:1\n" + R + "sub/secret-ok.txt:1"},
		{"grep paging", "fs_grep", map[string]any{"pattern": needle, "head_limit": 2, "offset": 1},
			R + "a.txt\n" + R + "b.go\n\n(showing files 2-3 of 9; pass offset=3 for more)"},
		// One file searched: no path prefix, as rg prints it (and fsMCP through rg).
		{"grep one file", "fs_grep", map[string]any{"pattern": needle, "path": tr.path("a.txt"), "output_mode": "content"},
			"2:needle one"},
		{"grep symlink inside root", "fs_grep", map[string]any{"pattern": needle, "path": tr.path("link-in"), "output_mode": "count"},
			"1"},
		{"grep type", "fs_grep", map[string]any{"pattern": needle, "type": "go"}, R + "b.go\n" + R + "sub/c.go"},
		{"grep glob exclude", "fs_grep", map[string]any{"pattern": needle, "glob": "!*.txt", "path": tr.path("sub")},
			R + "sub/c.go\n" + R + "sub/deeper/d.md"},
		{"grep no_ignore", "fs_grep", map[string]any{"pattern": "ignored needle|dropped|build output", "no_ignore": true},
			R + "build/out.txt\n" + R + "drop.log\n" + R + "sub/secret1.txt"},
		{"grep multiline", "fs_grep", map[string]any{"pattern": `package b\n\n//`, "multiline": true, "output_mode": "content"},
			R + "b.go:1:package b\n" + R + "b.go:2:\n" + R + "b.go:3:// needle in go"},
		{"grep crlf", "fs_grep", map[string]any{"pattern": `two needle\r$`, "output_mode": "content"},
			R + "crlf.txt:2:two needle\r"},
		{"grep flag-like pattern", "fs_grep", map[string]any{"pattern": "--pre=sh"}, "No matches found."},
		{"grep -e pattern", "fs_grep", map[string]any{"pattern": "-e", "fixed_strings": true}, "No matches found."},
		{"glob go newest first", "fs_glob", map[string]any{"pattern": "**/*.go"}, R + "b.go\n" + R + "sub/c.go"},
		{"glob top level", "fs_glob", map[string]any{"pattern": "*.log"}, R + "keep.log"},
		{"glob absolute pattern", "fs_glob", map[string]any{"pattern": R + "sub/**/*.md"}, R + "sub/deeper/d.md"},
		{"glob nothing", "fs_glob", map[string]any{"pattern": "**/*.nope"}, ""}, // fsMCP: an empty text
	}
	var mu sync.Mutex
	seen := map[string]map[string]string{} // call name -> mode -> output
	for _, m := range modes(t) {
		for _, trp := range transports {
			t.Run(m.name+"/"+trp.name, func(t *testing.T) {
				cs := trp.connect(t, m, tr.root)
				for _, c := range calls {
					got := withoutKeptNote(mustCall(t, cs, c.tool, c.args))
					if c.want != "" && got != c.want {
						t.Errorf("%s: %s(%v) =\n%s\nwant\n%s", c.name, c.tool, c.args, got, c.want)
					}
					mu.Lock()
					if seen[c.name] == nil {
						seen[c.name] = map[string]string{}
					}
					seen[c.name][m.name] = got
					mu.Unlock()
				}
			})
		}
	}
	for name, byMode := range seen {
		if a, b := byMode["rg"], byMode["norg"]; byMode["rg"] != "" && byMode["norg"] != "" && a != b {
			t.Errorf("%s: with rg and without differ:\nrg:\n%s\nnative:\n%s", name, a, b)
		}
	}
}

// withoutKeptNote is a page without the line that says it came from a
// result kept for paging. Whether "grep paging" is served from the first
// page's result depends on the clock, not on the backend: a result is
// kept only once its files are older than the search by the page
// cache's slack (2 s), so on a slow machine a later mode's page comes
// from it, and says so.
func withoutKeptNote(page string) string {
	if i := strings.Index(page, "\n(this page is from the result of a search made "); i >= 0 {
		if j := strings.IndexByte(page[i+1:], '\n'); j >= 0 {
			return page[:i] + page[i+1+j:]
		}
		return page[:i]
	}
	return page
}

// TestSearchToolsRefusals: search paths outside the roots, through
// symlinks, bad patterns and bad arguments.
func TestSearchToolsRefusals(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.outside}, "outside")
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.evil}, "outside")
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.path("dir-out")}, "outside")
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.path("link-out")}, "outside")
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.root + "/../outside"}, "outside")
		mustFail(t, cs, "fs_glob", map[string]any{"pattern": "**/*", "path": tr.path("dir-out")}, "outside")
		mustFail(t, cs, "fs_glob", map[string]any{"pattern": tr.outside + "/**"}, "outside")
		// A dangling link out is refused as outside, not reported missing.
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.path("dangling-out")}, "outside")
		mustFail(t, cs, "fs_glob", map[string]any{"pattern": "*", "path": tr.path("dangling-out")}, "outside")
		mustFail(t, cs, "fs_glob", map[string]any{"pattern": "*", "path": tr.path("link-out")}, "outside")
		// Pattern text that looks like an rg flag is only ever a pattern.
		for _, pat := range []string{"-e", "--files", "-L", "--pre=cat", "--follow"} {
			if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": pat}); out != "No matches found." {
				t.Errorf("fs_grep(%q) = %q, want no match", pat, out)
			}
			if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": pat}); out != "No files found." {
				t.Errorf("fs_glob(%q) = %q, want no match", pat, out)
			}
		}
		if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": "secret", "output_mode": "content", "no_ignore": true}); strings.Contains(out, "top secret") || strings.Contains(out, "more secret") {
			t.Errorf("content search reached outside the root:\n%s", out)
		}
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": "a(?=b)"}, "look-around")
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": `(a)\1`}, "backreference")
		mustFail(t, cs, "fs_grep", map[string]any{"pattern": "x", "type": "nosuchtype"}, "unrecognized file type")
		// A symlink out of the root in the pattern's static part is not
		// followed (fsMCP's fail-closed test, fs_glob "link/*").
		if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "dir-out/*"}); out != "No files found." {
			t.Errorf("fs_glob dir-out/* followed the link out of the root: %q", out)
		}
		out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*"})
		for _, bad := range []string{"secret1", "top secret", "/.git/", "link-out", "dir-out", "link-in", "drop.log"} {
			if strings.Contains(out, bad) {
				t.Errorf("fs_glob **/* lists %q:\n%s", bad, out)
			}
		}
		for _, args := range []map[string]any{
			{"pattern": "x", "output_mode": "lines"},
			{"pattern": "x", "-A": -1},
			{},
		} {
			// Argument errors are isError results (SEP-1303), as in fsMCP.
			res, err := callRaw(cs, "fs_grep", args, nil)
			if err != nil || !res.IsError {
				t.Errorf("fs_grep(%v) = %v %v, want an isError result", args, res, err)
			}
		}
	})
}

// TestSearchTimeoutIsPartial: a search cut by --timeout answers with what
// it found, marked partial, in both modes — and promptly.
func TestSearchTimeoutIsPartial(t *testing.T) {
	src := goroot.Src(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			// A 1 ns limit is up before any search could finish, on any
			// machine (the call's clock ends when asked, not only when its
			// timer runs).
			cs := connectStdio(t, m, "--timeout", "1ns", src)
			start := time.Now()
			got := mustCall(t, cs, "fs_grep", map[string]any{"pattern": `(\w+\s*){6}zq`, "output_mode": "count"})
			if !strings.HasSuffix(got, "so the result is partial)") {
				t.Errorf("no partial note in:\n%s", got)
			}
			if el := time.Since(start); el > time.Minute { // the note shows the limit; this only bounds a hang
				t.Errorf("a 1ns search took %v", el)
			}
		})
	}
}

// TestSearchProgress: a call with a progress token gets progress
// notifications (files searched) during a long search, in both modes.
func TestSearchProgress(t *testing.T) {
	src := goroot.Src(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []float64
			arrived := make(chan struct{}, 1)
			client := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-integration", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					got = append(got, req.Params.Progress)
					mu.Unlock()
					select {
					case arrived <- struct{}{}:
					default:
					}
				},
			})
			cmd := exec.Command(binary, src)
			cmd.Env = append(os.Environ(), "PATH="+m.path)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // only bounds a hang
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			p := &mcp.CallToolParams{Name: "fs_grep", Arguments: map[string]any{"pattern": "package", "output_mode": "count"}}
			p.SetProgressToken("grep-1")
			if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
				t.Fatalf("fs_grep: %v %v", err, res)
			}
			select { // notifications may trail the result
			case <-arrived:
			case <-time.After(time.Minute): // only bounds a hang
				t.Fatal("no progress notification")
			}
			mu.Lock()
			defer mu.Unlock()
			for i := 1; i < len(got); i++ {
				if got[i] <= got[i-1] {
					t.Errorf("progress not increasing: %v", got)
				}
			}
		})
	}
}

// TestSearchMaxResultsCapsHeadLimit: head_limit cannot exceed --max-results.
func TestSearchMaxResultsCapsHeadLimit(t *testing.T) {
	tr := newTree(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cs := connectStdio(t, m, "--max-results", "2", tr.root)
			got := mustCall(t, cs, "fs_grep", map[string]any{"pattern": needle, "head_limit": 100})
			want := tr.root + "/.hidden/h.txt\n" + tr.root + "/a.txt\n\n(showing files 1-2 of 9; pass offset=2 for more)"
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			got = mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*.{go,md}"})
			if lines := strings.Split(got, "\n"); len(lines) != 4 || lines[2] != "" || lines[3] != "(showing 2 of 3 matches; pass offset=2 for more)" {
				t.Errorf("fs_glob: %s", got)
			}
		})
	}
}

// TestSearchBackendFlag: --search-backend picks the backend and says so at
// start; asking for rg where there is none is a start-up error.
func TestSearchBackendFlag(t *testing.T) {
	tr := newTree(t)
	for _, m := range modes(t) {
		for _, kind := range []string{"native", "find"} {
			cmd := exec.Command(binary, "--search-backend", kind, tr.root)
			cmd.Env = append(os.Environ(), "PATH="+m.path)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cs, err := newClient().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*.go"}); out != tr.path("b.go")+"\n"+tr.path("sub/c.go") && out != tr.path("sub/c.go")+"\n"+tr.path("b.go") {
				t.Errorf("%s/%s: fs_glob **/*.go = %q", m.name, kind, out)
			}
			cs.Close()
			if !strings.Contains(stderr.String(), "search_backend="+kind) {
				t.Errorf("%s/%s: start-up line does not name the backend:\n%s", m.name, kind, stderr.String())
			}
		}
	}
	p, err := pathWithoutRg()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--search-backend", "rg", tr.root)
	cmd.Env = append(os.Environ(), "PATH="+p)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "rg (ripgrep) not found") {
		t.Fatalf("--search-backend rg without rg: %v, %s", err, out)
	}
}
