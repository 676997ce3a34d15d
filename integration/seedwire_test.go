package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// A seed-wire golden is a txtar file of one exchange, as a client without
// an MCP SDK (the catalog's, LocalCowork's host) has it with the built
// binary, line by line:
//
//	-- args --        the command line, one word a line ($ROOT, $BASE, $OUTSIDE expand)
//	-- env --         optional KEY=VALUE lines
//	-- root/a.txt --  files of the allowed directory $ROOT ($BASE/root)
//	-- outside/x --   files of $OUTSIDE ($BASE/root_evil: a sibling sharing the prefix)
//	-- links --       optional "link -> target" lines, link under $BASE
//	-- times --       optional "path mtime=T atime=T" lines (either or both), path
//	                  under $BASE, T as JavaScript's toISOString writes it; set last,
//	                  and those times are kept in the answers where TIME stands for others
//	-- client --      the raw lines the client sends, in order
//	-- server --      what comes back over stdio, one compact JSON value a line, then "exit N"
//	-- http --        optional: the same lines POSTed one by one to /mcp: "STATUS BODY" a line
//	-- want/<path> -- optional: a file under $BASE after the stdio exchange
//	-- tree/<path> -- optional: the paths under $BASE/<path> after it
//	-- atime/<path> -- optional: the access time of $BASE/<path> after it (Linux)
//
// After a call (a line with an id, or a line that is not JSON) the harness
// reads until that call is answered; after a notification it reads
// nothing, so a reply to one would show up before the next answer. Times
// and Date.now() stamps are written as TIME and MS, the build's version
// as VERSION, a directory's size in get_metadata as DIRSIZE. UPDATE_GOLDEN=true
// rewrites server, http and want/ sections: check them against the
// original's documented or observed answer before committing.
//
// SEEDWIRE_ORIGINAL records instead: it is a shell command that starts the
// original (LocalCowork's server, say), run with the golden's env on the
// same fixture in place of fsmcp; with UPDATE_GOLDEN=true the server and
// atime/ sections become what the original answered:
//
//	SEEDWIRE_ORIGINAL='exec /path/to/tsx /path/to/filesystem/src/index.ts' \
//	  UPDATE_GOLDEN=true go test ./integration -run 'TestSeedWireGoldens/NAME$'
//
// Where fsmcp differs on purpose, the golden's comment says so and the
// recorded lines are edited to fsmcp's answer by hand.
func TestSeedWireGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/seedwire/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runSeedGolden(t, file)
		})
	}
}

type seedGolden struct {
	ar                *txtar.Archive
	base, root, out   string
	args, env, client []string
	// fixed are the times the times section set: answers keep them.
	fixed map[string]bool
}

func (g *seedGolden) expand(s string) string {
	s = strings.ReplaceAll(s, "$ROOT", g.root)
	s = strings.ReplaceAll(s, "$OUTSIDE", g.out)
	return strings.ReplaceAll(s, "$BASE", g.base)
}

// setup lays out the files and links of a fresh base directory.
func setupSeedGolden(t *testing.T, file string) *seedGolden {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &seedGolden{ar: ar, base: base, root: filepath.Join(base, "root"), out: filepath.Join(base, "root_evil"), fixed: map[string]bool{}}
	for _, d := range []string{g.root, g.out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(data []byte) []string {
		var out []string
		for _, l := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(l) != "" {
				out = append(out, g.expand(l))
			}
		}
		return out
	}
	for _, f := range ar.Files {
		switch {
		case f.Name == "args":
			g.args = lines(f.Data)
		case f.Name == "env":
			g.env = lines(f.Data)
		case f.Name == "client":
			g.client = lines(f.Data)
		case f.Name == "links":
			for _, l := range lines(f.Data) {
				link, target, ok := strings.Cut(l, " -> ")
				if !ok {
					t.Fatalf("links: %q is not `link -> target`", l)
				}
				symlink(t, target, filepath.Join(base, link))
			}
		case strings.HasPrefix(f.Name, "root/"), strings.HasPrefix(f.Name, "outside/"):
			dir := g.root
			name := strings.TrimPrefix(f.Name, "root/")
			if strings.HasPrefix(f.Name, "outside/") {
				dir, name = g.out, strings.TrimPrefix(f.Name, "outside/")
			}
			if strings.HasSuffix(name, "/") {
				os.MkdirAll(filepath.Join(dir, name), 0o755)
				continue
			}
			write(t, filepath.Join(dir, filepath.FromSlash(name)), string(f.Data))
		}
	}
	// Times last: making the files and links above moved them.
	if f := section(ar, "times"); f != nil {
		for _, l := range lines(f.Data) {
			g.setTimes(t, l)
		}
	}
	return g
}

// setTimes applies one times line, "path mtime=T atime=T".
func (g *seedGolden) setTimes(t *testing.T, line string) {
	t.Helper()
	fields := strings.Fields(line)
	if len(fields) < 2 {
		t.Fatalf("times: %q is not `path mtime=T atime=T`", line)
	}
	var atime, mtime time.Time // zero: left as it is
	for _, f := range fields[1:] {
		key, val, _ := strings.Cut(f, "=")
		when, err := time.Parse(time.RFC3339Nano, val)
		if err != nil || key != "mtime" && key != "atime" {
			t.Fatalf("times: %q in %q is not mtime=T or atime=T (RFC 3339)", f, line)
		}
		g.fixed[val] = true
		if key == "mtime" {
			mtime = when
		} else {
			atime = when
		}
	}
	if err := os.Chtimes(filepath.Join(g.base, filepath.FromSlash(fields[0])), atime, mtime); err != nil {
		t.Fatal(err)
	}
}

var (
	isoTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)
	msStamp = regexp.MustCompile(`\b1\d{12}_`)
	// dirSize is a directory's size in get_metadata, which depends on the
	// file system the test runs on.
	// buildVersion says which build answers (dev, dev-<rev>, a release).
	serverVersion = regexp.MustCompile(`("serverInfo":\{"name":"fsmcp","version":")[^"]*"`)
	dirSize       = regexp.MustCompile(`(\\"size\\":)\d+(,[^}]*\\"type\\":\\"directory\\")`)
)

// normal writes the paths and times of one run the way the golden does.
func (g *seedGolden) normal(s string) string {
	s = strings.ReplaceAll(s, g.out, "$OUTSIDE")
	s = strings.ReplaceAll(s, g.root, "$ROOT")
	s = strings.ReplaceAll(s, g.base, "$BASE")
	s = isoTime.ReplaceAllStringFunc(s, func(m string) string {
		if g.fixed[m] {
			return m
		}
		return "TIME"
	})
	s = dirSize.ReplaceAllString(s, "${1}DIRSIZE$2")
	s = serverVersion.ReplaceAllString(s, `${1}VERSION"`)
	return msStamp.ReplaceAllString(s, "MS_")
}

// compact re-encodes one JSON value with sorted keys.
func compact(t *testing.T, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// isCall reports whether the line expects an answer, and its id.
func isCall(line string) (any, bool) {
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return nil, true // a bad line is answered
	}
	id, ok := m["id"]
	return id, ok
}

func runSeedGolden(t *testing.T, file string) {
	g := setupSeedGolden(t, file)
	var out strings.Builder
	original := os.Getenv("SEEDWIRE_ORIGINAL")
	var s *rawServer
	if original != "" {
		cmd := exec.Command("sh", "-c", original)
		cmd.Env = g.env
		s = startCmd(t, cmd)
	} else {
		s = startRawEnv(t, g.env, g.args...)
	}
	ended := false
	for _, line := range g.client {
		if ended {
			break // after exit: what is left is never read
		}
		io.WriteString(s.stdin, line+"\n") // after exit the pipe may be closed: the answers tell
		id, call := isCall(line)
		if !call {
			continue
		}
		for {
			m, ok := <-s.answers
			if !ok {
				ended = true
				break
			}
			out.WriteString(compact(t, m))
			if got, ok := m["id"]; ok && fmt.Sprint(got) == fmt.Sprint(id) || id == nil {
				break
			}
		}
	}
	s.stdin.Close()
	for m := range s.answers { // after exit, or at the end of input
		out.WriteString(compact(t, m))
	}
	fmt.Fprintf(&out, "exit %d\n", s.exit())
	check(t, g, file, "server", g.normal(out.String()))
	// Access times before anything here reads the tree.
	for _, f := range g.ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "atime/"); ok {
			at, ok := atimeOf(filepath.Join(g.base, filepath.FromSlash(name)))
			if !ok {
				t.Logf("%s: no access time on this system; not checked", f.Name)
				continue
			}
			check(t, g, file, f.Name, g.normal(at.UTC().Format("2006-01-02T15:04:05.000Z")+"\n"))
		}
	}
	if original != "" {
		return // the original is recorded over stdio only
	}
	for _, f := range g.ar.Files {
		if name, ok := strings.CutPrefix(f.Name, "tree/"); ok {
			var names strings.Builder
			filepath.WalkDir(filepath.Join(g.base, filepath.FromSlash(name)), func(p string, d os.DirEntry, err error) error {
				if err == nil {
					names.WriteString(p + "\n")
				}
				return nil
			})
			check(t, g, file, f.Name, g.normal(names.String()))
		}
		if name, ok := strings.CutPrefix(f.Name, "want/"); ok {
			data, err := os.ReadFile(filepath.Join(g.base, filepath.FromSlash(name)))
			if err != nil {
				data = []byte("(missing)\n")
			}
			check(t, g, file, f.Name, g.normal(string(data)))
		}
	}
	if section(g.ar, "http") != nil {
		g2 := setupSeedGolden(t, file)
		check(t, g2, file, "http", g2.normal(postAll(t, g2)))
	}
}

// postAll sends each client line as one POST (the catalog's HTTP clients).
func postAll(t *testing.T, g *seedGolden) string {
	url, cmd := startHTTP(t, modes(t)[0], g.args...)
	var out strings.Builder
	for _, line := range g.client {
		resp, err := http.Post(url, "application/json", strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var v any
		text := strings.TrimSpace(string(body))
		if json.Unmarshal(body, &v) == nil {
			text = strings.TrimSpace(compact(t, v))
		}
		fmt.Fprintf(&out, "%d %s\n", resp.StatusCode, text)
		if strings.Contains(line, `"method":"exit"`) {
			// exit ends the server (status 0); later lines are never sent.
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			fmt.Fprintf(&out, "exit %d\n", code)
			break
		}
	}
	return out.String()
}

func section(ar *txtar.Archive, name string) *txtar.File {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			return &ar.Files[i]
		}
	}
	return nil
}

// check compares got with a section, or rewrites it under UPDATE_GOLDEN.
func check(t *testing.T, g *seedGolden, file, name, got string) {
	t.Helper()
	f := section(g.ar, name)
	if os.Getenv("UPDATE_GOLDEN") == "true" {
		if f == nil {
			g.ar.Files = append(g.ar.Files, txtar.File{Name: name})
			f = &g.ar.Files[len(g.ar.Files)-1]
		}
		f.Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(g.ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if f == nil {
		t.Fatalf("%s: no %s section; run with UPDATE_GOLDEN=true and review it", file, name)
	}
	if want := string(f.Data); got != want {
		t.Errorf("%s: %s differs (UPDATE_GOLDEN=true rewrites it; review the diff)\ngot:\n%s\nwant:\n%s", file, name, got, want)
	}
}
