//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol, but that protocol still asks for them through an input request.

package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// connectStatelessRoots connects a go-sdk client on the 2026-07-28
// protocol (stateless HTTP) that offers roots, with the given ones. With
// manual, it answers input requests itself (MultiRoundTrip disabled):
// the caller sees the question and retries by hand.
func connectStatelessRoots(t *testing.T, url string, manual bool, caps *mcp.ClientCapabilities, roots ...string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{Capabilities: caps}
	if manual {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-integration", Version: "1"}, opts)
	for _, r := range roots {
		client.AddRoots(&mcp.Root{URI: r})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: statelessVersion})
	if err != nil {
		t.Fatalf("connect at %s: %v", statelessVersion, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != statelessVersion {
		t.Fatalf("connected at %s, want %s", got, statelessVersion)
	}
	return cs
}

// callParams calls a tool with the given params as they are (no retry
// when the client is manual) and returns the result.
func callParams(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", p.Name, err)
	}
	return res
}

// TestStatelessClientRootsAskedAnsweredAndHonoured: fsmcp over HTTP,
// started without a DIR; a 2026-07-28 client (no session) that offers
// roots. Each call is answered first with input_required asking roots/list
// (with a signed requestState); the client's retry carries its roots and
// is served in exactly them, with the checks any root gets: a path outside
// them, a sibling sharing the prefix, `..`, a link out are refused, and the
// refusal names the client's roots. A client that answers with no roots,
// declines, or offers no roots gets the refusal without a directory; an
// answer with no state, or a forged one, is refused.
func TestStatelessClientRootsAskedAnsweredAndHonoured(t *testing.T) {
	tr := newTree(t)
	url, _ := startHTTP(t, modes(t)[0], "--shell", "off")

	t.Run("asked", func(t *testing.T) {
		cs := connectStatelessRoots(t, url, true, nil, fileURI(tr.root))
		p := &mcp.CallToolParams{Name: "fs_read", Arguments: map[string]any{"file_path": tr.path("a.txt")}}
		ask := callParams(t, cs, p)
		if !ask.NeedsInput() || ask.RequestState == "" || len(ask.Content) != 0 {
			t.Fatalf("first answer: needs input %v, state %q, content %v; want a roots question", ask.NeedsInput(), ask.RequestState, ask.Content)
		}
		q, ok := ask.InputRequests["roots"].(*mcp.ListRootsParams)
		if len(ask.InputRequests) != 1 || !ok || q == nil {
			t.Fatalf("input requests %#v, want one roots/list", ask.InputRequests)
		}
		answer := func(state string, roots ...string) *mcp.CallToolResult {
			list := &mcp.ListRootsResult{Roots: []*mcp.Root{}}
			for _, r := range roots {
				list.Roots = append(list.Roots, &mcp.Root{URI: r})
			}
			retry := *p
			retry.InputResponses = mcp.InputResponseMap{"roots": list}
			retry.RequestState = state
			return callParams(t, cs, &retry)
		}
		if res := answer(ask.RequestState, fileURI(tr.root)); res.IsError || !strings.Contains(testenv.Text(res), needle) {
			t.Errorf("the answered retry: %s", testenv.Text(res))
		}
		// No state, another server's (or an altered) state: not an answer.
		for _, state := range []string{"", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.AAAA", ask.RequestState[:len(ask.RequestState)-2] + "xx"} {
			res := answer(state, fileURI(tr.outside))
			if !res.IsError || !strings.Contains(testenv.Text(res), "did not ask") {
				t.Errorf("state %q: %s (error %v), want the unasked answer refused", state, testenv.Text(res), res.IsError)
			}
		}
		// Answered with no roots: as if none were given.
		if res := answer(ask.RequestState); !res.IsError || !strings.Contains(testenv.Text(res), "no allowed directories") {
			t.Errorf("no roots answered: %s", testenv.Text(res))
		}
		// Asked again without the state: a new question.
		if again := callParams(t, cs, p); !again.NeedsInput() {
			t.Errorf("a call without an answer was not asked: %s", testenv.Text(again))
		}
	})

	t.Run("honoured", func(t *testing.T) {
		cs := connectStatelessRoots(t, url, false, nil, fileURI(tr.root))
		if out := mustCall(t, cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")}); !strings.Contains(out, needle) {
			t.Errorf("fs_read in the client's root: %s", out)
		}
		if out := mustCall(t, cs, "fs_grep", map[string]any{"pattern": needle, "output_mode": "files_with_matches"}); !strings.Contains(out, tr.path("a.txt")) || strings.Contains(out, tr.outside) {
			t.Errorf("fs_grep over the client's roots: %s", out)
		}
		want := "outside allowed directories: " + tr.root
		mustFail(t, cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}, want)
		mustFail(t, cs, "fs_read", map[string]any{"file_path": filepath.Join(tr.evil, "x.txt")}, want)
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.root + "/../outside/secret.txt"}, "outside allowed directories")
		mustFail(t, cs, "fs_read", map[string]any{"file_path": tr.path("link-out")}, "outside allowed directories")
		mustFail(t, cs, "fs_list", map[string]any{"path": tr.path("dir-out")}, "outside allowed directories")
		mustFail(t, cs, "fs_write", map[string]any{"file_path": tr.path("dangling-out"), "content": "x"}, "outside allowed directories")
		// A root through a symlink works by its link's name, as a DIR does.
		viaLink := connectStatelessRoots(t, url, false, nil, fileURI(tr.rootlink))
		if out := mustCall(t, viaLink, "fs_read", map[string]any{"file_path": filepath.Join(tr.rootlink, "a.txt")}); !strings.Contains(out, needle) {
			t.Errorf("fs_read through the root's link: %s", out)
		}
	})

	t.Run("nothing answered", func(t *testing.T) {
		empty := connectStatelessRoots(t, url, false, nil) // offers roots, has none
		mustFail(t, empty, "fs_read", map[string]any{"file_path": tr.path("a.txt")}, "no allowed directories")
		none := connectStatelessRoots(t, url, true, &mcp.ClientCapabilities{}, fileURI(tr.root)) // offers none
		res := callParams(t, none, &mcp.CallToolParams{Name: "fs_read", Arguments: map[string]any{"file_path": tr.path("a.txt")}})
		if res.NeedsInput() || !res.IsError || !strings.Contains(testenv.Text(res), "no allowed directories") {
			t.Errorf("a client without roots: needs input %v: %s", res.NeedsInput(), testenv.Text(res))
		}
		// Roots that are not this machine's absolute, clean paths name
		// nothing, and never the working directory.
		cwd, _ := os.Getwd()
		bad := connectStatelessRoots(t, url, false, nil, "file://example.com"+tr.root, "file:relative", "file:///"+tr.root[1:]+"/../outside",
			"file:///"+tr.root[1:]+"/%2e%2e/outside", "file://", "http://localhost"+tr.root, "file://localhost"+tr.root+"?q=1")
		mustFail(t, bad, "fs_read", map[string]any{"file_path": filepath.Join(cwd, "harness_test.go")}, "no allowed directories")
		mustFail(t, bad, "fs_read", map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}, "no allowed directories")
		// Directories that do not exist: refused as a session's would be.
		missing := connectStatelessRoots(t, url, false, nil, fileURI(filepath.Join(tr.base, "missing")))
		mustFail(t, missing, "fs_read", map[string]any{"file_path": filepath.Join(cwd, "harness_test.go")}, "none of the client's roots is a usable directory")
	})
	tr.assertOutsideUntouched(t)
}

// TestStatelessClientRootsCannotWiden: roots answered over HTTP add
// nothing where the client may not add. Started with a DIR, the client is
// never asked, and an answer it sends anyway, state or not, reaches
// nothing outside the DIR. Without a DIR, _meta.allowed_dirs on a call
// (no --trust-meta) narrows the client's roots and cannot add to them.
func TestStatelessClientRootsCannotWiden(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	t.Run("with a DIR", func(t *testing.T) {
		url, _ := startHTTP(t, m, "--shell", "off", tr.root)
		cs := connectStatelessRoots(t, url, true, nil, fileURI(tr.outside))
		p := &mcp.CallToolParams{Name: "fs_read", Arguments: map[string]any{"file_path": filepath.Join(tr.outside, "secret.txt")}}
		res := callParams(t, cs, p)
		if res.NeedsInput() || !res.IsError || !strings.Contains(testenv.Text(res), "outside allowed directories: "+tr.root) {
			t.Errorf("started with a DIR: needs input %v: %s", res.NeedsInput(), testenv.Text(res))
		}
		forged := *p
		forged.InputResponses = mcp.InputResponseMap{"roots": &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: fileURI(tr.outside)}}}}
		forged.RequestState = "AAAA.AAAA"
		if res := callParams(t, cs, &forged); !res.IsError || strings.Contains(testenv.Text(res), "top secret") {
			t.Errorf("a forged roots answer with a DIR: %s", testenv.Text(res))
		}
	})
	t.Run("meta narrows", func(t *testing.T) {
		url, _ := startHTTP(t, m, "--shell", "off")
		cs := connectStatelessRoots(t, url, false, nil, fileURI(tr.root))
		outside := filepath.Join(tr.outside, "secret.txt")
		res, err := callRaw(cs, "fs_read", map[string]any{"file_path": outside}, map[string]any{"allowed_dirs": []any{tr.outside}})
		if err != nil || !res.IsError || strings.Contains(testenv.Text(res), "top secret") {
			t.Errorf("_meta naming a directory outside the client's roots: %v %s", err, testenv.Text(res))
		}
		sub := map[string]any{"allowed_dirs": []any{tr.path("sub")}}
		if res, err := callRaw(cs, "fs_read", map[string]any{"file_path": tr.path("a.txt")}, sub); err != nil || !res.IsError || !strings.Contains(testenv.Text(res), "outside allowed directories: "+tr.path("sub")) {
			t.Errorf("_meta narrowed to sub, a.txt: %v %s", err, testenv.Text(res))
		}
		if res, err := callRaw(cs, "fs_read", map[string]any{"file_path": tr.path("sub/c.go")}, sub); err != nil || res.IsError {
			t.Errorf("_meta narrowed to sub, sub/c.go: %v %s", err, testenv.Text(res))
		}
	})
	tr.assertOutsideUntouched(t)
}
