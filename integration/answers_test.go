//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol, but hosts on the legacy protocol still send them.

package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 20's answers an agent can use whole: each test pins one item
// through the built binary.

// TestNumericArgumentsOutOfRange pins item 2: read_text_file {"head": 1e300}
// answered "" (the float overflowed int). A number past any count is the
// whole file, as the original's loops take it; where a number cannot be
// taken (a 33-bit uid), the answer is an error, never a wrong result.
func TestNumericArgumentsOutOfRange(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	a := filepath.Join(tr.root, "a.txt")
	whole := "alpha\n" + needle + " one\nbeta\n"

	ref := connectStdio(t, m, "--profile", "reference", tr.root)
	for _, args := range []map[string]any{{"head": 1e300}, {"tail": 1e300}, {"head": 9.3e18}, {"tail": 1.8e19}} {
		args["path"] = a
		if got := mustCall(t, ref, "read_text_file", args); strings.TrimSuffix(got, "\n") != strings.TrimSuffix(whole, "\n") {
			t.Errorf("read_text_file %v = %q, want the whole file", args, got)
		}
	}
	if got := mustCall(t, ref, "read_text_file", map[string]any{"path": a, "head": -1e300}); got != "" {
		t.Errorf("read_text_file head -1e300 = %q, want the original's empty answer", got)
	}

	fs := connectStdio(t, m, tr.root)
	if got := mustCall(t, fs, "fs_read", map[string]any{"file_path": a, "limit": 9.2e18}); !strings.Contains(got, "3\tbeta") {
		t.Errorf("fs_read limit 9.2e18 = %q", got)
	}
	mustFail(t, fs, "fs_read", map[string]any{"file_path": a, "offset": 1e300}, "offset")
	if got := mustCall(t, fs, "fs_grep", map[string]any{"pattern": needle, "offset": 9.2e18, "head_limit": 9.2e18}); !strings.Contains(got, "past the end") {
		t.Errorf("fs_grep offset 9.2e18 = %q, want the offset past the end", got)
	}
	if got := mustCall(t, fs, "fs_glob", map[string]any{"pattern": "**/*.txt", "offset": 9.2e18, "head_limit": 9.2e18}); !strings.Contains(got, "past the end") {
		t.Errorf("fs_glob offset 9.2e18 = %q, want the offset past the end", got)
	}
	if got := mustCall(t, fs, "fs_list", map[string]any{"path": tr.root, "depth": 9.2e18}); !strings.Contains(got, "deeper/d.md") {
		t.Errorf("fs_list depth 9.2e18 = %q", got)
	}
	if got := mustCall(t, fs, "fs_bash", map[string]any{"command": "echo ran", "timeout": 9.2e18}); got != "ran" {
		t.Errorf("fs_bash timeout 9.2e18 = %q, want the command run under the longest timeout", got)
	}

	fm := connectStdio(t, m, "--profile", "filesystem-mcp", tr.root)
	got, _ := call(t, fm, "chown_items", map[string]any{"paths": []string{"a.txt"}, "uid": 4294967296, "gid": -1})
	if !strings.Contains(got, "4294967295") {
		t.Errorf("chown_items uid 2^32 = %q, want it refused (the system call would cut it to 0, root)", got)
	}

	lc := connectStdio(t, m, "--profile", "localcowork", tr.root)
	if got := mustCall(t, lc, "filesystem.search_files", map[string]any{"path": tr.root, "pattern": "*.txt", "max_results": 9.2e18}); !strings.Contains(got, "a.txt") {
		t.Errorf("search_files max_results 9.2e18 = %q", got)
	}
}

// bigTree is a root whose default answers all pass 40,000 characters: a
// 3,000-line file, 1,500 files for a glob, and 3,000 matching lines.
func bigTree(t *testing.T) (root, big string) {
	t.Helper()
	root = newTree(t).root
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "line %04d %s\n", i, strings.Repeat("x", 40))
	}
	big = filepath.Join(root, "big.txt")
	write(t, big, b.String())
	for i := 0; i < 1500; i++ {
		write(t, filepath.Join(root, "many", fmt.Sprintf("file-with-a-longish-name-%04d.dat", i)), "")
	}
	return root, big
}

// note is the last paragraph of an answer (its note), and the entries
// before it.
func splitNote(t *testing.T, answer string) ([]string, string) {
	t.Helper()
	i := strings.LastIndex(answer, "\n\n")
	if i < 0 {
		t.Fatalf("no note after a blank line: ...%q", tailOf(answer))
	}
	return strings.Split(answer[:i], "\n"), answer[i+2:]
}

func tailOf(s string) string { return s[max(0, len(s)-300):] }

// nextOffset is N in "offset=N" of a note.
func nextOffset(t *testing.T, note string) int {
	t.Helper()
	m := regexp.MustCompile(`offset=(\d+)`).FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("note %q gives no offset", note)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestEveryAnswerFitsMaxOutput pins item 4: a default fs_read of a 77 KB
// file, a content grep and a large glob passed Claude Code's 50,000
// characters (saved to a file; the model saw a 2 KB preview without the
// note), and a --max-output cut fell mid-line with no offset. Now each
// answer, note included, is within --max-output (default 40,000), ends on
// a whole entry, and its note gives the exact next offset.
func TestEveryAnswerFitsMaxOutput(t *testing.T) {
	root, big := bigTree(t)
	m := modes(t)[0]
	for _, max := range []int{40000, 5000} {
		args := []string{root}
		if max != 40000 {
			args = []string{"--max-output", strconv.Itoa(max), root}
		}
		cs := connectStdio(t, m, args...)
		whole := connectStdio(t, m, "--max-output", "10000000", "--max-results", "100000", root)

		fits := func(name, got string) {
			t.Helper()
			if n := utf8.RuneCountInString(got); n > max {
				t.Errorf("%s (max %d): %d characters", name, max, n)
			}
		}

		// fs_read: whole lines, then the line to read on from.
		got := mustCall(t, cs, "fs_read", map[string]any{"file_path": big})
		fits("fs_read", got)
		lines, note := splitNote(t, got)
		next := nextOffset(t, note)
		if want := fmt.Sprintf("%d\tline %04d %s", next-1, next-1, strings.Repeat("x", 40)); strings.TrimLeft(lines[len(lines)-1], " ") != want {
			t.Errorf("fs_read (max %d) last line %q, want %q (whole, before offset=%d)", max, lines[len(lines)-1], want, next)
		}
		if !strings.Contains(note, fmt.Sprintf("of 3000, %d more", 3000-(next-1))) {
			t.Errorf("fs_read note %q does not count what was left out", note)
		}
		page2 := mustCall(t, cs, "fs_read", map[string]any{"file_path": big, "offset": next, "limit": 1})
		if !strings.Contains(page2, fmt.Sprintf("line %04d ", next)) {
			t.Errorf("fs_read offset=%d = %.100q", next, page2)
		}

		// fs_grep content: whole matches, the next offset is the next match.
		grep := map[string]any{"pattern": "^line", "path": big, "output_mode": "content"}
		got = mustCall(t, cs, "fs_grep", grep)
		fits("fs_grep", got)
		lines, note = splitNote(t, got)
		next = nextOffset(t, note)
		if next != len(lines) || lines[next-1] != fmt.Sprintf("%d:line %04d %s", next, next, strings.Repeat("x", 40)) {
			t.Errorf("fs_grep (max %d): %d lines, last %q, note %q", max, len(lines), lines[len(lines)-1], note)
		}
		if !strings.Contains(note, "of 3000") {
			t.Errorf("fs_grep note %q does not give the total", note)
		}
		// Ignored arguments add a line; the note and the line still fit.
		noisy := map[string]any{"pattern": "^line", "path": big, "output_mode": "content", "include": "*.txt"}
		for i := range 20 {
			noisy[fmt.Sprintf("bogus_argument_number_%02d_%s", i, strings.Repeat("z", 80))] = true
		}
		got = mustCall(t, cs, "fs_grep", noisy)
		fits("fs_grep with ignored arguments", got)
		if !strings.Contains(got, fmt.Sprintf("pass offset=%d for more)\n\nignored: ", next)) || !strings.Contains(got, "ignored: include (use glob), bogus") || !strings.Contains(got, "and 16 more (fs_grep takes pattern,") {
			t.Errorf("fs_grep with ignored arguments (max %d): ...%q", max, tailOf(got))
		}
		grep["offset"], grep["head_limit"] = next, 1
		if got := mustCall(t, cs, "fs_grep", grep); !strings.HasPrefix(got, fmt.Sprintf("%d:line %04d", next+1, next+1)) {
			t.Errorf("fs_grep offset=%d = %.100q", next, got)
		}

		// fs_glob: pages of whole paths that add up to every match, once.
		all := strings.Split(mustCall(t, whole, "fs_glob", map[string]any{"pattern": "many/*.dat"}), "\n")
		var paged []string
		offset := 0
		for page := 0; ; page++ {
			if page > 200 {
				t.Fatal("fs_glob pages do not end")
			}
			got := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "many/*.dat", "offset": offset})
			fits("fs_glob", got)
			if !strings.Contains(got, "\n\n(") {
				paged = append(paged, strings.Split(got, "\n")...)
				break
			}
			lines, note := splitNote(t, got)
			paged = append(paged, lines...)
			if !strings.Contains(note, "of 1500") {
				t.Errorf("fs_glob note %q does not give the total", note)
			}
			// The last page has no "pass offset=N"; a page served from
			// a kept result (the tree's times settled, more than the page
			// cache's slack before the search) also says "offset=0
			// searches afresh", which is not the next page.
			if !strings.Contains(note, "pass offset=") {
				break
			}
			offset = nextOffset(t, note)
			if offset != len(paged) {
				t.Fatalf("fs_glob next offset %d after %d paths", offset, len(paged))
			}
		}
		if strings.Join(paged, "\n") != strings.Join(all, "\n") {
			t.Errorf("fs_glob pages (max %d): %d paths, want the %d of one whole answer", max, len(paged), len(all))
		}

		// fs_list: whole entries, and how many were left out.
		got = mustCall(t, cs, "fs_list", map[string]any{"path": filepath.Join(root, "many")})
		fits("fs_list", got)
		if !regexp.MustCompile(`\(showing (\d+) of 1500 entries.*, (\d+) left out`).MatchString(got) {
			t.Errorf("fs_list (max %d) note: ...%q", max, tailOf(got))
		}
	}
}

// TestToolsDeclareResultSize pins item 4's declaration: Claude Code keeps a
// result whole up to a tool's _meta["anthropic/maxResultSizeChars"]
// (code.claude.com/docs/en/mcp, "Raise the limit for a specific tool"),
// so each fsmcp tool declares --max-output there.
func TestToolsDeclareResultSize(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	for max, want := range map[string]float64{"": 40000, "12345": 12345, "900000": 500000} {
		args := []string{tr.root}
		if max != "" {
			args = append(args, "--max-output", max)
		}
		cs := connectStdio(t, m, args...)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if got := tool.Meta["anthropic/maxResultSizeChars"]; got != want {
				t.Errorf("--max-output %q: %s declares %v, want %v", max, tool.Name, got, want)
			}
		}
	}
	ref := connectStdio(t, m, "--profile", "reference", tr.root)
	res, err := ref.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Tools[0].Meta["anthropic/maxResultSizeChars"]; ok {
		t.Errorf("the reference profile's tools/list is the original's; it declares no size")
	}
}

// TestGlobNoMatch pins item 9: no match answered an empty text, which
// Claude Code shows as "completed with no output".
func TestGlobNoMatch(t *testing.T) {
	tr := newTree(t)
	cs := connectStdio(t, modes(t)[0], tr.root)
	if got := mustCall(t, cs, "fs_glob", map[string]any{"pattern": "**/*.nothing"}); got != "No files found." {
		t.Errorf("fs_glob with no match = %q", got)
	}
}

// TestUnknownArgumentsReported pins item 7: fs_grep {"include": "*_test.go"}
// listed every file as if filtered, fs_list {"recursive": true} gave depth
// 1, fs_read {"start_line", "end_line"} the whole file, all silently. The
// call is still answered (fsMCP's clients rely on that), and a last line
// names what was ignored and the parameter to use.
func TestUnknownArgumentsReported(t *testing.T) {
	tr := newTree(t)
	cs := connectStdio(t, modes(t)[0], tr.root)
	a := filepath.Join(tr.root, "a.txt")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fs_grep", map[string]any{"pattern": needle, "include": "*.go"}, "\n\nignored: include (use glob)"},
		{"fs_list", map[string]any{"path": tr.root, "recursive": true}, "\n\nignored: recursive (use depth)"},
		{"fs_read", map[string]any{"file_path": a, "start_line": 2, "end_line": 3}, "3\tbeta\n\nignored: end_line (use limit), start_line (use offset)"},
		{"fs_read", map[string]any{"file_path": a, "bogus": 1}, "\n\nignored: bogus (fs_read takes file_path, offset, limit)"},
	} {
		got := mustCall(t, cs, c.tool, c.args)
		if !strings.HasSuffix(got, c.want) {
			t.Errorf("%s %v = ...%q, want it to end %q", c.tool, c.args, tailOf(got), c.want)
		}
	}
	// A call that fails for want of the parameter meant says both.
	mustFail(t, cs, "fs_read", map[string]any{"path": a}, "ignored: path (use file_path)")
	// No unknown argument, no line.
	if got := mustCall(t, cs, "fs_read", map[string]any{"file_path": a}); strings.Contains(got, "ignored") {
		t.Errorf("fs_read with known arguments: %q", got)
	}
}

// TestRefusalsSayWhereToLook pins item 8: a relative path was refused
// without the absolute path it would have been, and a missing file
// without what exists near it.
func TestRefusalsSayWhereToLook(t *testing.T) {
	tr := newTree(t)
	cs := connectStdio(t, modes(t)[0], tr.root)
	mustFail(t, cs, "fs_read", map[string]any{"file_path": "sub/c.go"},
		"path must be absolute; under "+tr.root+" that is "+filepath.Join(tr.root, "sub/c.go"))
	mustFail(t, cs, "fs_write", map[string]any{"file_path": "new.txt", "content": "x"},
		"file_path must be absolute; under "+tr.root+" that is "+filepath.Join(tr.root, "new.txt"))
	mustFail(t, cs, "fs_grep", map[string]any{"pattern": "x", "path": "sub"}, "that is "+filepath.Join(tr.root, "sub"))

	two := connectStdio(t, modes(t)[0], tr.root, tr.outside)
	mustFail(t, two, "fs_list", map[string]any{"path": "sub"},
		"the allowed directories are "+tr.root+", "+tr.outside+": under "+tr.root+" that is "+filepath.Join(tr.root, "sub"))

	// A near name in the directory.
	mustFail(t, cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.root, "sub", "C.go")}, "did you mean "+filepath.Join(tr.root, "sub", "c.go")+"?")
	mustFail(t, cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.root, "sub", "c.txt")}, "did you mean "+filepath.Join(tr.root, "sub", "c.go")+"?")
	mustFail(t, cs, "fs_stat", map[string]any{"path": filepath.Join(tr.root, "a.tx")}, "did you mean "+filepath.Join(tr.root, "a.txt")+"?")
	// The directory exists, with nothing close.
	mustFail(t, cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.root, "sub", "zzzzzzzz")}, filepath.Join(tr.root, "sub")+" exists but has no name close to zzzzzzzz")
	// A missing directory: the closest that exists, and a near name in it.
	mustFail(t, cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.root, "sbu", "deeper", "d.md")}, "did you mean "+filepath.Join(tr.root, "sub")+"?")
	mustFail(t, cs, "fs_glob", map[string]any{"pattern": "*", "path": filepath.Join(tr.root, "sub", "nope", "deeper")}, "the closest directory that exists is "+filepath.Join(tr.root, "sub"))
	// Outside the roots, nothing is told about what exists there.
	out, _ := call(t, cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.outside, "secrets.txt")})
	if strings.Contains(out, "did you mean") || strings.Contains(out, "exists") {
		t.Errorf("a refusal outside the roots tells what exists there: %q", out)
	}
}

// TestFailuresLookLikeFailures pins item 10: a refused cd in fs_bash was a
// success result, and a wrong HTTP token got a bare Bearer challenge, so
// clients started OAuth instead of saying the token is wrong.
func TestFailuresLookLikeFailures(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	cs := connectStdio(t, m, tr.root)
	out, isErr := call(t, cs, "fs_bash", map[string]any{"command": "cd " + tr.evil})
	// Unconfined, fsmcp refuses the cd in fsMCP's words; in the shell's own
	// namespace the directory does not exist at all, and bash says so.
	if !isErr || !(strings.Contains(out, "is outside allowed directories") || strings.Contains(out, "No such file or directory")) {
		t.Errorf("refused cd = %v %q, want an isError result", isErr, out)
	}
	if out, isErr := call(t, cs, "fs_bash", map[string]any{"command": "pwd"}); isErr || out != tr.root {
		t.Errorf("after the refused cd: %v %q", isErr, out)
	}

	url, _ := startHTTP(t, m, "--auth-token", "s3cret", tr.root)
	for token, want := range map[string]string{
		"Bearer wrong": `Bearer realm="fsmcp", error="invalid_token"`,
		"":             `Bearer realm="fsmcp"`,
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(got, want) || token == "" && strings.Contains(got, "error=") {
			t.Errorf("Authorization %q: %d, WWW-Authenticate %q, want %q", token, resp.StatusCode, got, want)
		}
	}
}

// TestInstructionsStayTrue pins item 6: started without a DIR under a host
// that sends its roots after initialize, the instructions said none was
// set, and nothing said fs_bash reaches where the file tools do not. They
// now say where the roots come from and where they are named, which stays
// true once they arrive: a relative path's refusal then names them.
func TestInstructionsStayTrue(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	withDir := connectStdio(t, m, tr.root).InitializeResult().Instructions
	if !strings.Contains(withDir, "allowed directories: "+tr.root+".") || !strings.Contains(withDir, "fs_bash") || len(withDir) > 500 {
		t.Errorf("instructions with a DIR: %q", withDir)
	}

	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), "PATH="+m.path)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	client := newClient()
	client.AddRoots(&mcp.Root{URI: fileURI(tr.root), Name: "project"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := cs.InitializeResult().Instructions
	if strings.Contains(got, "none") || !strings.Contains(got, "MCP roots") || !strings.Contains(got, "names them") || !strings.Contains(got, "fs_bash") || len(got) > 500 {
		t.Errorf("instructions without a DIR: %q", got)
	}
	mustFail(t, cs, "fs_read", map[string]any{"file_path": "a.txt"}, "under "+tr.root+" that is "+filepath.Join(tr.root, "a.txt"))
}
