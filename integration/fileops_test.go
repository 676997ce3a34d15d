package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eachWith is each with client options (notification handlers): the
// built binary over stdio and over Streamable HTTP, with and without rg.
func eachWith(t *testing.T, opts *mcp.ClientOptions, f func(t *testing.T, connect func(args ...string) *mcp.ClientSession)) {
	for _, m := range modes(t) {
		for _, kind := range []string{"stdio", "http"} {
			t.Run(m.name+"/"+kind, func(t *testing.T) {
				f(t, func(args ...string) *mcp.ClientSession {
					t.Helper()
					client := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-integration", Version: "1"}, opts)
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					var tp mcp.Transport
					var copts *mcp.ClientSessionOptions
					if kind == "stdio" {
						cmd := exec.Command(binary, args...)
						cmd.Env = append(os.Environ(), "PATH="+m.path)
						cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
						tp = &mcp.CommandTransport{Command: cmd}
					} else {
						url, _ := startHTTP(t, m, args...)
						tp = &mcp.StreamableClientTransport{Endpoint: url}
						copts = sessionEra // watches and subscriptions live in the session
					}
					cs, err := client.Connect(ctx, tp, copts)
					if err != nil {
						t.Fatalf("connect over %s: %v", kind, err)
					}
					t.Cleanup(func() { cs.Close() })
					return cs
				})
			})
		}
	}
}

var watcherID = regexp.MustCompile(`as watcher (w\d+)`)

// A watch sees a file created in a directory that did not exist when the
// watch started, as a notification and through poll.
func TestWatchSeesNewSubdirectory(t *testing.T) {
	updated := make(chan string, 1000)
	opts := &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}}
	eachWith(t, opts, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		out := mustCall(t, cs, "fs_watch", map[string]any{"path": tr.root})
		m := watcherID.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("fs_watch start: %s", out)
		}
		write(t, tr.path("fresh/deeper/new.txt"), "new")
		want := fileURI(tr.path("fresh/deeper/new.txt"))
		timeout := time.After(time.Minute) // only bounds a hang
	wait:
		for {
			select {
			case u := <-updated:
				if u == want {
					break wait
				}
			case <-timeout:
				t.Fatalf("no notifications/resources/updated for %s", want)
			}
		}
		polled := mustCall(t, cs, "fs_watch", map[string]any{"action": "poll", "watcher_id": m[1]})
		if !strings.Contains(polled, "created\t"+tr.path("fresh/deeper/new.txt")) {
			t.Errorf("poll:\n%s", polled)
		}
		mustCall(t, cs, "fs_watch", map[string]any{"action": "stop", "watcher_id": m[1]})
		mustFail(t, cs, "fs_watch", map[string]any{"path": filepath.Join(tr.root, "dir-out")}, "outside allowed directories")
		tr.assertOutsideUntouched(t)
	})
}

// A catalog cancelled by the client while it runs leaves neither the
// output file nor its temporary file.
func TestCatalogCancelledLeavesNothing(t *testing.T) {
	big := t.TempDir()
	big, _ = filepath.EvalSymlinks(big)
	for d := range 100 {
		dir := filepath.Join(big, "tree", fmt.Sprintf("d%03d", d))
		os.MkdirAll(dir, 0o755)
		for f := range 200 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", f)), []byte("x"), 0o644)
		}
	}
	eachWith(t, nil, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		outDir := t.TempDir()
		outDir, _ = filepath.EvalSymlinks(outDir)
		cs := connect(big, outDir)
		out := filepath.Join(outDir, "catalog.tsv")

		// The whole catalog works.
		full := mustCall(t, cs, "fs_catalog", map[string]any{"target_dir": filepath.Join(big, "tree"), "output_file": filepath.Join(outDir, "full.tsv")})
		if !strings.Contains(full, "(20000 files") {
			t.Fatalf("full catalog: %s", full)
		}
		os.Remove(filepath.Join(outDir, "full.tsv"))

		// Cancel once the catalog is under way (its temporary file
		// appeared). Cancellation is advisory: the server may finish
		// first, and then the catalog must be whole; then try again, a
		// bounded number of times: the test fails if it never lands.
		const tries = 20
		cancelled := false
		for range tries {
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				for !hasTemp(outDir) {
					select {
					case <-ctx.Done():
						return
					case <-time.After(time.Millisecond): // polls for the temporary file
					}
				}
				cancel()
			}()
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_catalog", Arguments: map[string]any{
				"target_dir": filepath.Join(big, "tree"), "output_file": out}})
			cancel()
			// The server's last act is to remove the temporary file or
			// rename it to the output: once it is gone, the outcome is
			// settled (the minute only bounds a hang).
			deadline := time.Now().Add(time.Minute)
			for hasTemp(outDir) {
				if time.Now().After(deadline) {
					t.Fatalf("the catalog's temporary file is still there a minute after the cancellation")
				}
				time.Sleep(20 * time.Millisecond)
			}
			data, rerr := os.ReadFile(out)
			if rerr != nil {
				if err == nil {
					t.Fatalf("the catalog succeeded but %s is missing", out)
				}
				cancelled = true
				break
			}
			if n := strings.Count(string(data), "\n"); n != 20001 {
				t.Fatalf("a catalog that ended by cancellation left a partial file of %d lines", n)
			}
			os.Remove(out) // finished before the cancellation arrived
		}
		if !cancelled {
			t.Fatalf("in %d tries the catalog always finished before the cancellation arrived", tries)
		}
		// Nothing comes later: the temporary file, there when the client
		// cancelled, was the server's only file and it is gone.
		if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
			t.Fatalf("a cancelled catalog left %v", ents)
		}
	})
}

// With --resources, the binary lists the tree page by page, reads files,
// and refuses URIs that leave the root.
func TestResourcesOverTransports(t *testing.T) {
	eachWith(t, nil, func(t *testing.T, connect func(...string) *mcp.ClientSession) {
		tr := newTree(t)
		for i := range 600 {
			write(t, tr.path(fmt.Sprintf("many/f%03d.txt", i)), "x")
		}
		cs := connect("--resources", tr.root)
		ctx := context.Background()
		var uris []string
		pages := 0
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		// Count pages separately: the iterator hides them.
		for cursor := ""; ; pages++ {
			res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
		if pages < 1 || len(uris) < 600 {
			t.Errorf("%d resources over %d extra pages", len(uris), pages)
		}
		for _, u := range uris {
			if strings.Contains(u, "/.git/") || strings.HasSuffix(u, "/.git") || strings.Contains(u, "/build/") || strings.Contains(u, "outside") || strings.Contains(u, "dir-out/") {
				t.Errorf("listed %s", u)
			}
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: fileURI(tr.path("a.txt"))})
		if err != nil || !strings.Contains(res.Contents[0].Text, needle) {
			t.Fatalf("read a.txt: %v", err)
		}
		for _, bad := range []string{
			"file://" + tr.root + "/sub/%2e%2e/%2e%2e/outside/secret.txt",
			fileURI(filepath.Join(tr.outside, "secret.txt")),
			fileURI(tr.path("link-out")),
			fileURI(filepath.Join(tr.evil, "x.txt")),
			"https://example.com/a.txt",
		} {
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: bad}); err == nil {
				t.Errorf("read %s succeeded", bad)
			}
		}
		tr.assertOutsideUntouched(t)
	})
}

// hasTemp reports whether dir holds one of fsmcp's temporary files.
func hasTemp(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".fsmcp-") {
			return true
		}
	}
	return false
}
