package integration

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawServer is the binary on stdio, driven with raw JSON-RPC lines.
type rawServer struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	answers chan map[string]any // each line of stdout, decoded
	done    chan error          // the process's end
	stderr  *lockedBuffer
}

// lockedBuffer keeps what fsmcp wrote on stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	return startRawEnv(t, nil, args...)
}

// startRawEnv is startRaw with env (KEY=VALUE) added to the server's.
func startRawEnv(t *testing.T, env []string, args ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	return startCmd(t, cmd)
}

// startCmd starts cmd (the fsmcp binary) as a raw stdio server; cmd.Env,
// if set, is added to the test's environment.
func startCmd(t *testing.T, cmd *exec.Cmd) *rawServer {
	t.Helper()
	cmd.Env = append(append(os.Environ(), "PATH="+modes(t)[0].path), cmd.Env...)
	stderr := &lockedBuffer{}
	cmd.Stderr = io.MultiWriter(&testLog{t: t, prefix: "fsmcp: "}, stderr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawServer{t: t, cmd: cmd, stdin: stdin, answers: make(chan map[string]any, 100), done: make(chan error, 1), stderr: stderr}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unreadable": sc.Text()}
			}
			s.answers <- m
		}
		close(s.answers)
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
	})
	return s
}

func (s *rawServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("writing to fsmcp: %v", err)
	}
}

// next waits for the next answer line.
func (s *rawServer) next() map[string]any {
	s.t.Helper()
	select {
	case m, ok := <-s.answers:
		if !ok {
			s.t.Fatal("fsmcp ended its output before answering")
		}
		return m
	case <-time.After(60 * time.Second):
		s.t.Fatal("no answer within 60s")
	}
	return nil
}

// exit waits for the process to end and returns its status; an end that
// logs an error fails the test.
func (s *rawServer) exit() int {
	s.t.Helper()
	for range s.answers {
	}
	select {
	case err := <-s.done:
		if strings.Contains(s.stderr.String(), "level=ERROR") {
			s.t.Errorf("a normal end logged an error:\n%s", s.stderr)
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			s.t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		s.t.Fatal("fsmcp did not end within 60s of its input")
	}
	return -1
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const rawInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestStdioSurvivesBadLines: a line that is not JSON, JSON that is not
// JSON-RPC and a message over 16 MiB each get an error answer, and the
// server goes on serving.
func TestStdioSurvivesBadLines(t *testing.T) {
	tr := newTree(t)
	s := startRaw(t, tr.root)
	s.send("hello")
	if m := s.next(); errorCode(m) != -32700 || m["id"] != nil {
		t.Fatalf("hello: %v, want -32700 with id null", m)
	}
	s.send("[1,2,3]")
	if m := s.next(); errorCode(m) != -32600 {
		t.Fatalf("[1,2,3]: %v, want -32600", m)
	}
	s.send("")
	big, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": "fs_write", "arguments": map[string]any{"file_path": tr.path("big.txt"), "content": strings.Repeat("x", 17<<20)}}})
	s.send(string(big))
	if m := s.next(); errorCode(m) != -32600 || m["id"] != float64(7) || !strings.Contains(m["error"].(map[string]any)["message"].(string), "limit") {
		t.Fatalf("17 MiB message: %v, want -32600 with id 7", m)
	}
	s.send(rawInit)
	if m := s.next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize after bad lines: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":"call-001","method":"tools/call","params":{"name":"fs_read","arguments":{"file_path":"` + tr.path("a.txt") + `"}}}`)
	m := s.next()
	if m["id"] != "call-001" || !strings.Contains(toJSON(m), needle) {
		t.Fatalf("fs_read after bad lines: %v", m)
	}
	if _, err := os.Stat(tr.path("big.txt")); err == nil {
		t.Fatal("the oversized fs_write was carried out")
	}
	s.stdin.Close()
	if code := s.exit(); code != 0 {
		t.Fatalf("exit status %d at the end of input, want 0", code)
	}
}

// TestStdioAnswersCallsInFlightAtEOF: a call still running when stdin
// closes is answered before the process ends.
func TestStdioAnswersCallsInFlightAtEOF(t *testing.T) {
	tr := newTree(t)
	s := startRaw(t, "--shell", "on", tr.root)
	s.send(rawInit)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fs_bash","arguments":{"command":"sleep 0.5; echo finished"}}}`)
	s.stdin.Close()
	if m := s.next(); m["id"] != float64(1) {
		t.Fatalf("initialize: %v", m)
	}
	if m := s.next(); m["id"] != float64(2) || !strings.Contains(toJSON(m), "finished") {
		t.Fatalf("the call in flight at EOF: %v", m)
	}
	if code := s.exit(); code != 0 {
		t.Fatalf("exit status %d, want 0", code)
	}
}

func toJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
