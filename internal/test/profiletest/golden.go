package profiletest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/fsmcp/fsmcp/backend/stack"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/toolkit"
)

// A golden wire exchange is a txtar file:
//
//	comment: what the exchange pins down
//	-- config --       optional, one word a line: read-only, resources, shell=off,
//	                   no-dir (started without DIR: roots from the client),
//	                   trust-meta (_meta.allowed_dirs adds roots, as over stdio),
//	                   max-results=N
//	-- root/a.txt --   files of the allowed directory ($ROOT)
//	-- client --       JSON-RPC messages the client sends, in order ($ROOT expands)
//	-- server --       what the server answers, one indented JSON value each
//
// The harness serves the tables with server.New over an in-memory
// transport, sends each client message and, after a request, reads until
// its answer; everything the server sent is the server section, with the
// root written as $ROOT. UPDATE_GOLDEN=true rewrites the server sections.

// Golden runs every txtar file matching pattern against the union of
// tables.
func Golden(t *testing.T, tables []*toolkit.Table, pattern string) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no golden exchanges match %s", pattern)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runGolden(t, tables, file)
		})
	}
}

// answerTimeout bounds the wait for one answer: a failure bound, not a
// timing assumption.
const answerTimeout = 60 * time.Second

func runGolden(t *testing.T, tables []*toolkit.Table, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{Name: "fsmcp", Version: "test", Profiles: tables, Settings: toolkit.Settings{Shell: string(shell.ModeOn),
		Limits: toolkit.Limits{MaxFileSize: 10 << 20, MaxOutput: 100000, Timeout: 30 * time.Second, MaxResults: 1000}}}
	var client []byte
	serverAt := -1
	noDir := false
	for i, f := range ar.Files {
		switch {
		case f.Name == "config":
			for _, w := range strings.Fields(string(f.Data)) {
				switch w {
				case "read-only":
					cfg.ReadOnly = true
				case "resources":
					cfg.Resources = true
				case "shell=off":
					cfg.Shell = string(shell.ModeOff)
				case "no-dir":
					noDir, cfg.ClientRoots = true, true
				case "trust-meta":
					cfg.TrustMeta = true
				case "max-results=" + strings.TrimPrefix(w, "max-results="):
					n, err := strconv.Atoi(strings.TrimPrefix(w, "max-results="))
					if err != nil || n <= 0 {
						t.Fatalf("config: %q: not a positive count", w)
					}
					cfg.Limits.MaxResults = n
				default:
					t.Fatalf("config: unknown word %q", w)
				}
			}
		case strings.HasPrefix(f.Name, "root/"):
			p := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(f.Name, "root/")))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		case f.Name == "client":
			client = bytes.ReplaceAll(f.Data, []byte("$ROOT"), []byte(root))
		case f.Name == "server":
			serverAt = i
		default:
			t.Fatalf("unknown section %q", f.Name)
		}
	}
	dirs := []string{root}
	if noDir {
		dirs = nil
	}
	got := exchange(t, cfg, dirs, client)
	got = strings.ReplaceAll(got, root, "$ROOT")
	if os.Getenv("UPDATE_GOLDEN") == "true" {
		if serverAt < 0 {
			ar.Files = append(ar.Files, txtar.File{Name: "server"})
			serverAt = len(ar.Files) - 1
		}
		ar.Files[serverAt].Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if serverAt < 0 {
		t.Fatalf("no server section; run with UPDATE_GOLDEN=true and review it")
	}
	if want := string(ar.Files[serverAt].Data); got != want {
		t.Errorf("the server's answers differ from %s (UPDATE_GOLDEN=true rewrites it; review the diff)\ngot:\n%s", file, got)
	}
}

// exchange sends the client messages to a fresh server and returns what it
// sent back, one indented JSON value per message.
func exchange(t *testing.T, cfg server.Config, dirs []string, client []byte) string {
	sb, errs := sandbox.New(dirs)
	if len(dirs) > 0 && len(errs) > 0 {
		t.Fatal(errs)
	}
	defer sb.Close()
	search, err := stack.New(stack.Options{Roots: sb.Roots()})
	if err != nil {
		t.Fatal(err)
	}
	defer search.Close()
	cfg.Search = search.Stack
	srv, err := server.New(cfg, sb, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	dec := json.NewDecoder(bytes.NewReader(client))
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("client section: %v", err)
		}
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			t.Fatalf("client message %s: %v", raw, err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatalf("sending %s: %v", raw, err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		for {
			in, err := conn.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for the answer to %s: %v", raw, err)
			}
			out.WriteString(indent(t, in))
			if resp, ok := in.(*jsonrpc.Response); ok && resp.ID == req.ID {
				break
			}
		}
	}
	conn.Close()
	ss.Wait()
	return out.String()
}

// indent renders a message as indented JSON with sorted keys.
func indent(t *testing.T, msg jsonrpc.Message) string {
	raw, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
