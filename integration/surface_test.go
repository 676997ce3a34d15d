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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	go func() { cmd.Wait(); close(srv.exited) }()
	t.Cleanup(func() { cs.Close() })
	srv.cs = cs
	srv.log.await(t, srv.exited, "index: following changes", "index: not following changes", "index: no watcher")
	return srv
}

// stop ends the server and waits for the process.
func (s *indexedServer) stop(t *testing.T) {
	s.cs.Close()
	select {
	case <-s.exited:
	case <-time.After(time.Minute): // only bounds a hang
		t.Fatal("fsmcp did not exit after its stdin closed")
	}
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
