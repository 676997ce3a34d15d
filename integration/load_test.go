package integration

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestBracePatternsAreBoundedBeforeMatching pins issue 18 item 12: {a,a}
// twenty-four times over took 15.8 s as an fs_list filter, 6.4 s as an
// fs_glob pattern under --timeout 1s, and seconds of CPU per event as a
// watch pattern. Every glob a client gives is refused with one sentence
// before a path is matched; a pattern within the bound still works.
func TestBracePatternsAreBoundedBeforeMatching(t *testing.T) {
	bomb := strings.Repeat("{a,a}", 24) + "b"
	const want = "stands for more than 256 patterns"
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			tr := newTree(t)
			cs := connectStdio(t, m, "--timeout", "1s", tr.root)
			mustFail(t, cs, "fs_glob", map[string]any{"pattern": "**/" + bomb, "path": tr.root}, want)
			mustFail(t, cs, "fs_list", map[string]any{"path": tr.root, "depth": 5, "filter": bomb}, want)
			mustFail(t, cs, "fs_grep", map[string]any{"pattern": "x", "path": tr.root, "glob": bomb}, want)
			mustFail(t, cs, "fs_watch", map[string]any{"path": tr.root, "patterns": []string{bomb}}, want)
			ok := strings.Repeat("{a,a}", 8) + ".txt"
			if out := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/" + ok, "path": tr.root}); strings.Contains(out, "partial") {
				t.Fatalf("fs_glob within the bound: %s", out)
			}
		})
	}
}

// TestHTTPSessionsAreCappedAndIdleOnesReaped pins issue 18 item 11 and
// issue 25's --session-idle: 10,000 bare sessions were once accepted and
// kept for 30 minutes. Past --max-sessions a new session gets 503 with one
// sentence; ending one frees its place; an idle session is closed after
// --session-idle, which frees its place too.
func TestHTTPSessionsAreCappedAndIdleOnesReaped(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	url, _ := startHTTP(t, m, "--max-sessions", "2", tr.root)
	connect := func() *mcp.ClientSession {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
		defer cancel()
		cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		return cs
	}
	a, b := connect(), connect()
	defer b.Close()
	code, body := post(t, url, nil)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "--max-sessions") {
		t.Fatalf("a third session: %d %q, want 503 naming --max-sessions", code, body)
	}
	mustCall(t, b, "fs_list", map[string]any{"path": tr.root}) // the open ones still work
	a.Close()                                                  // DELETE ends the session
	if code, body := post(t, url, nil); code != http.StatusOK {
		t.Fatalf("a session after one ended: %d %q", code, body)
	}

	url, _ = startHTTP(t, m, "--max-sessions", "1", "--session-idle", "300ms", tr.root)
	idle, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	for deadline := time.Now().Add(time.Minute); ; { // only bounds a hang
		code, _ := post(t, url, nil)
		if code == http.StatusOK {
			break // the idle session was reaped
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("status %d while the idle session should be reaped", code)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSearchBurstOverHTTPAllComplete pins issue 25's admission control at
// make test's size: a burst of concurrent searches from many sessions,
// with at most two running at once, all come back complete and the same
// as one search alone, and reads made during the burst are answered
// (make bench runs the full burst of 100 and times the reads).
func TestSearchBurstOverHTTPAllComplete(t *testing.T) {
	tr := newTree(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			url, _ := startHTTP(t, m, "--max-searches", "2", tr.root)
			const sessions, perSession = 6, 4
			var css []*mcp.ClientSession
			for range sessions {
				cs, err := newClient().Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				css = append(css, cs)
			}
			grep := map[string]any{"pattern": needle, "path": tr.root}
			glob := map[string]any{"pattern": "**/*.go", "path": tr.root}
			wantGrep := mustCall(t, css[0], "fs_grep", grep)
			wantGlob := mustCall(t, css[0], "fs_glob", glob)
			type answer struct {
				name, out string
				isErr     bool
				err       error
			}
			answers := make(chan answer, sessions*(perSession+1))
			for _, cs := range css {
				for i := range perSession {
					name, args := "fs_grep", grep
					if i%2 == 1 {
						name, args = "fs_glob", glob
					}
					go func() {
						res, err := callRaw(cs, name, args, nil)
						if err != nil {
							answers <- answer{name: name, err: err}
							return
						}
						answers <- answer{name: name, out: testenv.Text(res), isErr: res.IsError}
					}()
				}
				go func() {
					res, err := callRaw(cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.root, "a.txt")}, nil)
					if err != nil {
						answers <- answer{name: "fs_read", err: err}
						return
					}
					answers <- answer{name: "fs_read", out: testenv.Text(res), isErr: res.IsError}
				}()
			}
			for range sessions * (perSession + 1) {
				a := <-answers
				switch {
				case a.err != nil || a.isErr:
					t.Fatalf("%s: %v %s", a.name, a.err, a.out)
				case a.name == "fs_grep" && a.out != wantGrep, a.name == "fs_glob" && a.out != wantGlob:
					t.Fatalf("%s during the burst:\n%s\nalone:\n%s", a.name, a.out, map[string]string{"fs_grep": wantGrep, "fs_glob": wantGlob}[a.name])
				case a.name == "fs_read" && !strings.Contains(a.out, "alpha"):
					t.Fatalf("fs_read during the burst: %s", a.out)
				}
			}
		})
	}
}

// TestGrepPagesShareOneResult pins issue 25's paging: the pages of one
// fs_grep, asked one after another with offset, report the same total and
// together list the whole result once, in order; a write between pages
// is seen by the next page.
func TestGrepPagesShareOneResult(t *testing.T) {
	tr := newTree(t)
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		cs := connect(tr.root)
		args := func(off int) map[string]any {
			return map[string]any{"pattern": needle, "path": tr.root, "output_mode": "content", "head_limit": 2, "offset": off}
		}
		whole := mustCall(t, cs, "fs_grep", map[string]any{"pattern": needle, "path": tr.root, "output_mode": "content"})
		var lines []string
		total := ""
		for off := 0; ; off += 2 {
			out := mustCall(t, cs, "fs_grep", args(off))
			body, note, _ := strings.Cut(out, "\n\n(showing lines ")
			lines = append(lines, strings.Split(body, "\n")...)
			_, of, ok := strings.Cut(note, " of ")
			if !ok {
				t.Fatalf("page at %d has no total: %s", off, out)
			}
			// The count ends at ";" (more pages) or ")" (the last, which
			// may go on with a note of its own on the next line).
			n, _, _ := strings.Cut(of, ";")
			n, _, _ = strings.Cut(n, ")")
			if total != "" && n != total {
				t.Fatalf("page at %d says %s in all, the first said %s", off, n, total)
			}
			total = n
			if !strings.Contains(note, "pass offset=") {
				break
			}
		}
		if got := strings.Join(lines, "\n"); got != whole {
			t.Fatalf("pages:\n%s\nwhole:\n%s", got, whole)
		}
		mustCall(t, cs, "fs_write", map[string]any{"file_path": filepath.Join(tr.root, "zz-"+strings.ReplaceAll(t.Name(), "/", "-")+".txt"), "content": needle + "\n"})
		out := mustCall(t, cs, "fs_grep", args(2))
		if strings.Contains(out, " of "+total+")") || strings.Contains(out, " of "+total+";") {
			t.Fatalf("a page after a write kept the old total %s: %s", total, out)
		}
	})
}
