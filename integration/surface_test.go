package integration

// The attacks of issue 35 on the surface added since the earlier replays
// (the index cache, the stateless era, the search queue, paging, the
// shell's processes), each through the built binary.

import (
	"bufio"
	"context"
	le "encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// eventLog is a server's stderr kept whole, forwarded to the test log,
// with a way to wait for a line holding some text.
type eventLog struct {
	testLog
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{} // closed and replaced on every write
}

func newEventLog(t *testing.T) *eventLog {
	return &eventLog{testLog: testLog{t: t, prefix: "fsmcp: "}, changed: make(chan struct{})}
}

func (l *eventLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.text.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
	return l.testLog.Write(p)
}

// String is everything logged so far.
func (l *eventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// count is how many times s was logged so far.
func (l *eventLog) count(s string) int { return strings.Count(l.String(), s) }

// await waits until one of texts has been logged and returns it; exited,
// when it closes first, ends the wait with a failure.
func (l *eventLog) await(t *testing.T, exited <-chan struct{}, texts ...string) string {
	t.Helper()
	deadline := time.After(3 * time.Minute) // only bounds a hang
	for {
		l.mu.Lock()
		all, changed := l.text.String(), l.changed
		l.mu.Unlock()
		for _, s := range texts {
			if strings.Contains(all, s) {
				return s
			}
		}
		select {
		case <-changed:
		case <-exited:
			t.Fatalf("fsmcp exited before logging any of %q", texts)
		case <-deadline:
			t.Fatalf("fsmcp logged none of %q", texts)
		}
	}
}

// indexedServer is fsmcp over stdio with --index on, its log and a channel
// closed when the process has exited.
type indexedServer struct {
	cs     *mcp.ClientSession
	log    *eventLog
	exited chan struct{}
}

// startIndexed starts fsmcp --index on over stdio with its index cache in
// cache and waits until its index is in use (and, on Linux, followed).
func startIndexed(t *testing.T, m mode, cache string, args ...string) *indexedServer {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--index", "on"}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+m.path, "XDG_CACHE_HOME="+cache)
	srv := &indexedServer{log: newEventLog(t), exited: make(chan struct{})}
	cmd.Stderr = srv.log
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	go func() { cs.Wait(); close(srv.exited) }() // the server's end of the stream closed: it exited
	t.Cleanup(func() { cs.Close() })
	srv.cs = cs
	srv.log.await(t, srv.exited, "index: following changes", "index: not following changes", "index: no watcher")
	return srv
}

// stop ends the server: the client closes its stdin and waits for the
// process (terminating it if it lingers).
func (s *indexedServer) stop(*testing.T) {
	s.cs.Close()
	<-s.exited
}

// settledTree writes files (relative path: content) under a new root, with
// times an hour old, and returns once their change times (which Chtimes
// sets to now) are older than the index's settle time (2 s), so that the
// index takes their content rather than reading them at every search.
func settledTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for rel, content := range files {
		p := filepath.Join(root, rel)
		write(t, p, content)
		os.Chtimes(p, old, old)
	}
	time.Sleep(indexSettle) // a clock to pass, not an event to wait for
	return root
}

// indexSettle is a little over the index's settle time (index.DefaultSettle).
const indexSettle = 2500 * time.Millisecond

// TestCraftedIndexIsSetAside: an index.bin whose checksum holds but whose
// header claims 2^32 contents (more than its size can hold) used to pass
// the parser and crash the server at every start (out of memory in the
// check). Now the server stays up, sets the file aside with one log line,
// answers exactly, and builds a good index that the next start uses.
func TestCraftedIndexIsSetAside(t *testing.T) {
	attack(t)
	m := modes(t)[0]
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%d/f%d.txt", i%4, i)] = fmt.Sprintf("line %d\n", i)
	}
	files["d1/hit.txt"] = "a CRAFTED needle\n"
	root := settledTree(t, files)
	cache := t.TempDir()
	startIndexed(t, m, cache, "--read-only", root).stop(t)
	found, _ := filepath.Glob(filepath.Join(cache, "fsmcp", "*", "index.bin"))
	if len(found) != 1 {
		t.Fatalf("index files: %v", found)
	}
	data, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	// The header: magic, then u64 files, contents, ...; the file ends in
	// a CRC-32C of the rest.
	le.LittleEndian.PutUint64(data[8+8:], 1<<32)
	le.LittleEndian.PutUint32(data[len(data)-4:], crc32.Checksum(data[:len(data)-4], crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(found[0], data, 0o600); err != nil {
		t.Fatal(err)
	}

	srv := startIndexed(t, m, cache, "--read-only", root)
	const aside = "index: the cached index is damaged"
	if n := srv.log.count(aside); n != 1 {
		t.Errorf("%d log lines saying the index was set aside, want 1", n)
	}
	if _, err := os.Stat(found[0] + ".bad"); err != nil {
		t.Errorf("the crafted file was not set aside: %v", err)
	}
	if out := mustCall(t, srv.cs, "fs_grep", map[string]any{"pattern": "CRAFTED", "path": root}); !strings.Contains(out, "hit.txt") {
		t.Errorf("fs_grep after the crafted index: %q", out)
	}
	srv.stop(t)

	again := startIndexed(t, m, cache, "--read-only", root)
	if n := again.log.count(aside); n != 0 || !strings.Contains(again.log.String(), "index: reusing the cached index") {
		t.Errorf("the rebuilt index was not reused as it is (%d set-aside lines)", n)
	}
	if out := mustCall(t, again.cs, "fs_grep", map[string]any{"pattern": "CRAFTED", "path": root}); !strings.Contains(out, "hit.txt") {
		t.Errorf("fs_grep with the rebuilt index: %q", out)
	}
}

// TestListenCapSeesTheMethodTheSDKServes: the cap on subscriptions/listen
// streams reads a request's method as the SDK does. A body with
// "METHOD":"ping" (or "Method") beside "method":"subscriptions/listen" is
// a listen to the SDK, which opens the stream; the cap used to decode it
// with encoding/json, which takes either spelling, and let 8 such streams
// open under --max-sessions 2. Now the third is refused with 503.
func TestListenCapSeesTheMethodTheSDKServes(t *testing.T) {
	attack(t)
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--resources", "--max-sessions", "2", "--shell", "off", tr.root)
	uri := fileURI(tr.path("a.txt"))
	bodies := []string{
		`{"jsonrpc":"2.0","id":%d,"METHOD":"ping","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":[%q]},%s}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","Method":"ping","params":{"notifications":{"resourceSubscriptions":[%q]},%s}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","METHOD":"ping","params":{"notifications":{"resourceSubscriptions":[%q]},%s}}`,
	}
	listen := func(id int, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(fmt.Sprintf(body, id, uri, meta)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", statelessVersion)
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for i := range 2 {
		resp := listen(i+1, bodies[i])
		defer resp.Body.Close()
		// The acknowledgement is the stream's first event: the listen is open.
		events := bufio.NewReader(resp.Body)
		ack, err := events.ReadString('\n')
		for err == nil && !strings.Contains(ack, "subscriptions/acknowledged") {
			ack, err = events.ReadString('\n')
		}
		if resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("listen %d: %d %v", i+1, resp.StatusCode, err)
		}
	}
	for i, body := range bodies {
		resp := listen(10+i, body)
		if resp.StatusCode != http.StatusServiceUnavailable { // an open stream: its body never ends
			resp.Body.Close()
			t.Errorf("a listen past --max-sessions 2 spelled %.60s...: %d, want 503", body, resp.StatusCode)
			continue
		}
		text, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if !strings.Contains(string(text), "subscriptions/listen streams") {
			t.Errorf("the refusal of a listen past --max-sessions 2: %.200q", text)
		}
	}
}

// slowTree writes, under root/dir, text that takes a search a while to
// read: files of lines no literal prefilter can skip for slowPattern.
func slowTree(t *testing.T, root, dir string, files, size int) {
	t.Helper()
	var b strings.Builder
	for b.Len() < size {
		fmt.Fprintf(&b, "some words %d and more words to match against, none of them ending the pattern\n", b.Len())
	}
	for i := range files {
		write(t, filepath.Join(root, dir, fmt.Sprintf("f%03d.txt", i)), b.String())
	}
}

// slowPattern matches nothing in slowTree, and every line must be tried.
const slowPattern = `\w+ \d{12}\b`

// TestStatelessFloodCannotStarveASession: with --max-searches 1, a flood
// of 2026-07-28 (stateless) greps from one address is one queue, served
// in turn with a session's: the session's single grep waits behind at
// most a couple of the flood's, not all of them. Each stateless request
// used to be a queue of its own, and the session's grep waited for the
// whole flood.
func TestStatelessFloodCannotStarveASession(t *testing.T) {
	attack(t)
	tr := newTree(t)
	slowTree(t, tr.root, "mid", 8, 128<<10)
	url, _ := startHTTP(t, modes(t)[0], "--max-searches", "1", "--search-backend", "native", "--shell", "off", tr.root)
	session := connectHTTPAt(t, url, legacyVersion)
	const flood = 40
	var mu sync.Mutex
	done := 0
	progress := make(chan struct{}, flood)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs_grep","arguments":{"pattern":%q,"path":%q},` + meta + `}}`
	var wg sync.WaitGroup
	for range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, answer := postModern(t, url, fmt.Sprintf(body, slowPattern, tr.path("mid")), map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "fs_grep"})
			if status != http.StatusOK || !strings.Contains(answer, "No matches") {
				t.Errorf("a stateless grep: %d %.200q", status, answer)
			}
			mu.Lock()
			done++
			mu.Unlock()
			progress <- struct{}{}
		}()
	}
	defer wg.Wait()
	// Two of the flood have run: the rest are queued (all were sent at once).
	<-progress
	<-progress
	mu.Lock()
	before := done
	mu.Unlock()
	mustCall(t, session, "fs_grep", map[string]any{"pattern": slowPattern, "path": tr.path("mid")})
	mu.Lock()
	during := done - before
	mu.Unlock()
	if during > 6 {
		t.Errorf("the session's grep waited for %d of the %d stateless greps still queued; served in turn, it waits for a couple", during, flood-before)
	}
}

// TestEverySearchToolWaitsForTheSlot: with --max-searches 1 and the one
// slot held by a running fs_grep, every profile's search tool waits for
// it, and past --search-wait is refused as busy (reference search_files,
// peekaboo search_path and LocalCowork filesystem.search_files used to
// answer at once), whatever means it searches by: the rule is the
// core's, the same admission for all. Any tool of these profiles whose
// name says it searches is tried, so a new one cannot skip the queue
// unnoticed.
func TestEverySearchToolWaitsForTheSlot(t *testing.T) {
	attack(t)
	tr := newTree(t)
	slowTree(t, tr.root, "big", 20, 256<<10)
	args := map[string]map[string]any{
		"fs_grep":                 {"pattern": needle, "path": tr.path("sub")},
		"fs_glob":                 {"pattern": "**/*.go", "path": tr.path("sub")},
		"search_path":             {"pattern": "**/*.go"},
		"search_content":          {"query": needle},
		"filesystem.search_files": {"path": tr.path("sub"), "pattern": "*.go"},
	}
	servers := []struct {
		profiles string
		args     map[string]map[string]any
	}{
		{"fsmcp,reference,peekaboo,localcowork", map[string]map[string]any{"search_files": {"path": tr.path("sub"), "pattern": "*.go"}}},
		{"fsmcp,filesystem-mcp", map[string]map[string]any{"search_files": {"path": "sub", "regex": needle}}},
	}
	searchName := regexp.MustCompile(`search|grep|glob|find`)
	for _, srv := range servers {
		t.Run(srv.profiles, func(t *testing.T) {
			progress := make(chan any, 100)
			client := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-integration", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					select {
					case progress <- req.Params.ProgressToken:
					default:
					}
				},
			})
			cmd := exec.Command(binary, "--profile", srv.profiles, "--max-searches", "1", "--search-wait", "50ms", "--search-backend", "native", "--shell", "off", tr.root)
			cmd.Env = append(os.Environ(), "PATH="+modes(t)[0].path)
			cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // only bounds a hang
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			tried := 0
			for _, tool := range list.Tools {
				if !searchName.MatchString(tool.Name) {
					continue
				}
				a, ok := srv.args[tool.Name]
				if !ok {
					a, ok = args[tool.Name]
				}
				if !ok {
					t.Errorf("the search tool %s has no arguments in this test: add them", tool.Name)
					continue
				}
				tried++
				// The holder runs for far longer than the 50 ms the tool may
				// wait; should it end that soon, the tool is admitted, and the
				// round is tried again.
				var answer string
				for round := 0; round < 3; round++ {
					token := fmt.Sprintf("holder-%s-%d", tool.Name, round)
					held := make(chan error, 1)
					go func() {
						_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_grep", Arguments: map[string]any{"pattern": slowPattern, "path": tr.path("big")},
							Meta: mcp.Meta{"progressToken": token}})
						held <- err
					}()
					for tok := <-progress; tok != token; tok = <-progress { // the holder runs: it has the one slot
					}
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: a})
					answer = fmt.Sprint(err)
					if res != nil {
						answer = testenv.Text(res)
					}
					if err := <-held; err != nil {
						t.Fatalf("the holder: %v", err)
					}
					if strings.Contains(answer, "busy") {
						break
					}
				}
				if !strings.Contains(answer, "the server is busy") {
					t.Errorf("%s answered while the one search slot was held, past --search-wait: %.300q", tool.Name, answer)
				}
			}
			if tried == 0 {
				t.Fatal("no search tool listed")
			}
		})
	}
}

// TestLaterPageNeverPassesForTheTree: after page 1 of an fs_grep (or
// fs_glob), a file on page 3 is rewritten in place by another program,
// its directory untouched. Page 3 used to show the old line with no word
// that it came from a kept result; now it either shows the tree as it is
// or says it comes from a search of a given age and how to search afresh.
func TestLaterPageNeverPassesForTheTree(t *testing.T) {
	attack(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			for i := range 6 {
				p := filepath.Join(root, "d", fmt.Sprintf("f%d.txt", i))
				write(t, p, fmt.Sprintf("NEEDLE old %d\n", i))
				os.Chtimes(p, old.Add(time.Duration(i)*time.Minute), old.Add(time.Duration(i)*time.Minute))
			}
			// A directory changed since a result was kept drops it: these are old.
			os.Chtimes(filepath.Join(root, "d"), old, old)
			os.Chtimes(root, old, old)
			cs := connectStdio(t, m, "--read-only", root)

			grep := map[string]any{"pattern": "NEEDLE", "path": root, "output_mode": "content", "head_limit": 2}
			if first := mustCall(t, cs, "fs_grep", grep); !strings.Contains(first, "f0.txt") || !strings.Contains(first, "pass offset=2") {
				t.Fatalf("page 1: %q", first)
			}
			// Rewritten in place: the same inode, its directory untouched.
			if err := os.WriteFile(filepath.Join(root, "d", "f4.txt"), []byte("NEEDLE new 4\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			grep["offset"] = 4
			page3 := mustCall(t, cs, "fs_grep", grep)
			fresh := strings.Contains(page3, "NEEDLE new 4")
			said := strings.Contains(page3, "search made") && strings.Contains(page3, "offset=0")
			if !fresh && !said {
				t.Errorf("page 3 of fs_grep after f4.txt was rewritten in place shows it as it was, and does not say so:\n%s", page3)
			}

			glob := map[string]any{"pattern": "**/*.txt", "path": root, "head_limit": 2}
			mustCall(t, cs, "fs_glob", glob) // newest first: f4 (just written), f5, f3, ...
			if err := os.WriteFile(filepath.Join(root, "d", "f0.txt"), []byte("NEEDLE newer 0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			glob["offset"] = 4 // the oldest two: f1, and f0, which is now the newest
			last := mustCall(t, cs, "fs_glob", glob)
			if strings.Contains(last, "f0.txt") && !(strings.Contains(last, "search made") && strings.Contains(last, "offset=0")) {
				t.Errorf("the last page of fs_glob lists f0.txt, rewritten since (now the newest), and does not say it is from a kept result:\n%s", last)
			}
		})
	}
}

// TestLaterPageIsFreshRightAfterAnInPlaceRewrite: fs_grep, ten lines a
// page; after page 1 (and page 2, served from the kept result), a file of
// page 3 is rewritten in place (the same inode, its directory's time
// unchanged) and page 3 is asked for at once. It showed the old line as
// current, three runs of three: the page cache asked only the
// directories whether anything changed. Now it asks each file of the
// result, as the index asks of a file it skips, and the page shows the
// new line.
func TestLaterPageIsFreshRightAfterAnInPlaceRewrite(t *testing.T) {
	attack(t)
	// A tree per run (a file rewritten is too new for the next run's
	// kept result to be trusted).
	roots := map[string][]string{}
	old := time.Now().Add(-time.Hour)
	for _, m := range modes(t) {
		for range 3 {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for i := range 30 {
				write(t, filepath.Join(root, "d", fmt.Sprintf("f%02d.txt", i)), fmt.Sprintf("NEEDLE old %d\n", i))
			}
			os.Chtimes(filepath.Join(root, "d"), old, old)
			roots[m.name] = append(roots[m.name], root)
		}
	}
	// A tree edited before the search, as a project is: its times more
	// than the page cache's slack (2 s) behind.
	time.Sleep(2500 * time.Millisecond)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			for run, root := range roots[m.name] {
				cs := connectStdio(t, m, "--read-only", root)
				grep := func(offset int) string {
					return mustCall(t, cs, "fs_grep", map[string]any{"pattern": "NEEDLE", "path": root, "output_mode": "content", "head_limit": 10, "offset": offset})
				}
				grep(0)
				if page2 := grep(10); !strings.Contains(page2, "search made") {
					t.Fatalf("run %d: page 2 was not served from the kept result (the test would prove nothing):\n%s", run, page2)
				}
				victim := filepath.Join(root, "d", fmt.Sprintf("f%02d.txt", 20+3*run))
				dirBefore, err := os.Stat(filepath.Join(root, "d"))
				if err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(victim, os.O_WRONLY|os.O_TRUNC, 0) // in place: the same inode
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(f, "NEEDLE new %d\n", 20+3*run)
				f.Close()
				if dirAfter, err := os.Stat(filepath.Join(root, "d")); err != nil || !dirAfter.ModTime().Equal(dirBefore.ModTime()) {
					t.Fatalf("the directory's time moved: %v", err)
				}
				page3 := grep(20)
				if strings.Contains(page3, fmt.Sprintf("NEEDLE old %d", 20+3*run)) || !strings.Contains(page3, fmt.Sprintf("NEEDLE new %d", 20+3*run)) {
					t.Errorf("run %d: page 3, asked for at once after %s was rewritten in place, shows it as it was:\n%s", run, filepath.Base(victim), page3)
				}
			}
		})
	}
}
