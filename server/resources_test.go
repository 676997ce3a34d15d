package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/server"
	"github.com/fsmcp/fsmcp/toolkit"
)

func uri(p string) string { return toolkit.FileURI(p) }

// listAll pages through resources/list and checks each page's size.
func listAll(t *testing.T, e *testenv.Env) []*mcp.Resource {
	t.Helper()
	var all []*mcp.Resource
	cursor := ""
	for pages := 0; ; pages++ {
		res, err := e.CS.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Resources) > 500 {
			t.Fatalf("page of %d resources", len(res.Resources))
		}
		all = append(all, res.Resources...)
		if res.NextCursor == "" {
			return all
		}
		if pages > 1000 {
			t.Fatal("endless paging")
		}
		cursor = res.NextCursor
	}
}

func find(rs []*mcp.Resource, u string) *mcp.Resource {
	for _, r := range rs {
		if r.URI == u {
			return r
		}
	}
	return nil
}

func TestResourcesList(t *testing.T) {
	e := testenv.New(t, testenv.WithResources())
	e.Write("root/.git/HEAD", "x")
	e.Write("root/.gitignore", "build/\n")
	e.Write("root/build/out", "x")
	rs := listAll(t, e)
	a := find(rs, uri(filepath.Join(e.Root, "a.txt")))
	if a == nil {
		t.Fatalf("a.txt not listed: %v", rs)
	}
	if a.Name != "/a.txt" || a.MIMEType != "text/plain; charset=utf-8" || a.Size != 6 || a.Meta["type"] != "file" || a.Meta["size"] != float64(6) {
		t.Errorf("a.txt: %+v", a)
	}
	sub := find(rs, uri(filepath.Join(e.Root, "sub")))
	if sub == nil || sub.MIMEType != "inode/directory" || sub.Meta["type"] != "directory" || sub.Meta["hasChildren"] != true {
		t.Errorf("sub: %+v", sub)
	}
	if find(rs, uri(filepath.Join(e.Root, "sub", "b.txt"))) == nil {
		t.Errorf("sub/b.txt not listed")
	}
	for _, r := range rs {
		if strings.Contains(r.URI, "/.git/") || strings.Contains(r.URI, "/build") || strings.Contains(r.URI, "dirlink/") {
			t.Errorf("listed %s", r.URI)
		}
	}
	tmpl, err := e.CS.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "file:///{+path}" {
		t.Errorf("templates: %v %v", tmpl, err)
	}
	caps := e.CS.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged {
		t.Errorf("resources capability: %+v", caps.Resources)
	}
}

func TestResourcesPaginate(t *testing.T) {
	e := testenv.New(t, testenv.WithResources())
	e.BigTree("root/big", 3, 400)
	rs := listAll(t, e)
	seen := map[string]bool{}
	for _, r := range rs {
		if seen[r.URI] {
			t.Fatalf("%s listed twice", r.URI)
		}
		seen[r.URI] = true
	}
	// 1200 files, 3+1 directories in big, and the fixture's 7 + root2's 0.
	if len(rs) != 1200+4+7 {
		t.Errorf("%d resources, want %d", len(rs), 1211)
	}
	// Walk order: by path, a directory as its path plus "/".
	var keys []string
	for _, r := range rs {
		k := r.URI
		if r.Meta["type"] == "directory" {
			k += "/"
		}
		keys = append(keys, k)
	}
	if !slices.IsSorted(keys) {
		t.Errorf("not in walk order")
	}
	if _, err := e.CS.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: "garbage!"}); !isCode(err, jsonrpc.CodeInvalidParams) {
		t.Errorf("bad cursor: %v", err)
	}
}

func TestResourcesDepth(t *testing.T) {
	e := testenv.New(t, testenv.WithResources(), testenv.WithServer(func(c *server.Config) { c.ResourceDepth = 1 }))
	rs := listAll(t, e)
	if find(rs, uri(filepath.Join(e.Root, "sub"))) == nil || find(rs, uri(filepath.Join(e.Root, "sub", "b.txt"))) != nil {
		t.Errorf("depth 1: %d resources", len(rs))
	}
}

func isCode(err error, code int64) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == code
}

func TestResourcesRead(t *testing.T) {
	e := testenv.New(t, testenv.WithResources(), testenv.WithLimits(func(l *toolkit.Limits) { l.MaxFileSize = 1000 }))
	res, err := e.CS.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri(filepath.Join(e.Root, "a.txt"))})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "hello\n" || !strings.HasPrefix(res.Contents[0].MIMEType, "text/plain") {
		t.Fatalf("read a.txt: %v %+v", err, res)
	}
	bin := []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 3}
	os.WriteFile(e.Path("root/prog"), bin, 0o644)
	res, err = e.CS.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri(filepath.Join(e.Root, "prog"))})
	if err != nil || string(res.Contents[0].Blob) != string(bin) || res.Contents[0].Text != "" {
		t.Fatalf("read binary: %v %+v", err, res)
	}
	// Through a symlink inside the root.
	res, err = e.CS.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri(filepath.Join(e.Root, "inlink"))})
	if err != nil || res.Contents[0].Text != "hello\n" {
		t.Fatalf("read inlink: %v", err)
	}
	// A name that needs escaping in a URI.
	e.Write("root/with space%.txt", "sp")
	res, err = e.CS.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri(filepath.Join(e.Root, "with space%.txt"))})
	if err != nil || res.Contents[0].Text != "sp" {
		t.Fatalf("read escaped name: %v", err)
	}
	e.Write("root/big.txt", strings.Repeat("x", 2000))
	// A refusal names the allowed directories (SPEC §2).
	outside := "is outside the allowed directories: " + e.Root + ", " + e.Root2
	cases := []struct {
		uri  string
		code int64
		msg  string
	}{
		{uri(filepath.Join(e.Root, "nope")), jsonrpc.CodeInvalidParams, "Resource not found"},
		{uri(filepath.Join(e.Root, "big.txt")), jsonrpc.CodeInvalidParams, "over the 1000-byte limit"},
		{uri(filepath.Join(e.Root, "sub")), jsonrpc.CodeInvalidParams, "is a directory"},
		{"http://example.com" + filepath.Join(e.Root, "a.txt"), jsonrpc.CodeInvalidParams, "only file:// URIs are supported"},
		{"ftp:" + filepath.Join(e.Root, "a.txt"), jsonrpc.CodeInvalidParams, "only file:// URIs are supported"},
		{"file://evil.example" + filepath.Join(e.Root, "a.txt"), jsonrpc.CodeInvalidParams, "must have an empty host"},
		{"file://" + e.Root + "/sub/%2e%2e/a.txt", jsonrpc.CodeInvalidParams, "path traversal"},
		{"file://" + e.Root + "/sub/%2E%2E/%2e%2e/outside/secret", jsonrpc.CodeInvalidParams, "path traversal"},
		{"file://" + e.Root + "/../outside/secret", jsonrpc.CodeInvalidParams, "path traversal"},
		{"file://" + e.Root + "/a.txt%00.png", jsonrpc.CodeInvalidParams, "NUL"},
		{uri(filepath.Join(e.Outside, "secret")), jsonrpc.CodeInvalidParams, outside},
		{uri(filepath.Join(e.Base, "root_evil", "x")), jsonrpc.CodeInvalidParams, outside},
		{uri(filepath.Join(e.Root, "filelink")), jsonrpc.CodeInvalidParams, outside},
		{uri(filepath.Join(e.Root, "dirlink", "secret")), jsonrpc.CodeInvalidParams, outside},
		{uri(filepath.Join(e.Root, "dangling")), jsonrpc.CodeInvalidParams, outside},
		{"file:relative/a.txt", jsonrpc.CodeInvalidParams, "absolute"},
	}
	for _, c := range cases {
		_, err := e.CS.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: c.uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != c.code || !strings.Contains(je.Message, c.msg) {
			t.Errorf("read %s: %v, want code %d with %q", c.uri, err, c.code, c.msg)
		}
	}
}

// events collects resource notifications.
type events struct {
	updated chan string
	listed  chan struct{}
}

func newEvents() *events {
	return &events{updated: make(chan string, 100), listed: make(chan struct{}, 100)}
}

func (ev *events) option() testenv.Option {
	return testenv.WithClient(func(o *mcp.ClientOptions) {
		o.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { ev.updated <- req.Params.URI }
		o.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { ev.listed <- struct{}{} }
	})
}

func (ev *events) awaitUpdate(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(time.Minute) // only bounds a hang
	for {
		select {
		case u := <-ev.updated:
			if u == want {
				return
			}
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for %s", want)
		}
	}
}

// awaitUpdateOf runs change, and again every half second, until an update
// for want arrives (the pace only spares the machine; nothing depends on it).
func (ev *events) awaitUpdateOf(t *testing.T, want string, change func()) {
	t.Helper()
	deadline := time.After(time.Minute) // only bounds a hang
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	change()
	for {
		select {
		case u := <-ev.updated:
			if u == want {
				return
			}
		case <-tick.C:
			change()
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for %s", want)
		}
	}
}

func TestResourcesSubscribe(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			ev := newEvents()
			opts := []testenv.Option{testenv.WithResources(), ev.option()}
			if legacy {
				opts = append(opts, testenv.WithLegacyProtocol())
			}
			e := testenv.New(t, opts...)
			ctx := context.Background()
			fileURI := uri(filepath.Join(e.Root, "a.txt"))
			if err := e.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: fileURI}); err != nil {
				t.Fatal(err)
			}
			dirURI := uri(filepath.Join(e.Root, "sub"))
			if err := e.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: dirURI}); err != nil {
				t.Fatal(err)
			}
			// The client sets up its listen stream in the background, and
			// a notification sent before it is up is lost: change the file
			// again until one arrives.
			ev.awaitUpdateOf(t, fileURI, func() { os.WriteFile(e.Path("root/a.txt"), []byte("changed\n"), 0o644) })
			e.Write("root/sub/new/deep.txt", "x")
			ev.awaitUpdate(t, dirURI)
			select {
			case <-ev.listed:
			case <-time.After(time.Minute): // only bounds a hang
				t.Fatal("no notifications/resources/list_changed")
			}
			if err := e.CS.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: fileURI}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestResourcesSubscribeRefusals(t *testing.T) {
	e := testenv.New(t, testenv.WithResources(), testenv.WithLegacyProtocol())
	ctx := context.Background()
	for _, u := range []string{
		"http://example.com/x",
		uri(filepath.Join(e.Outside, "secret")),
		"file://" + e.Root + "/sub/%2e%2e/%2e%2e/outside",
		uri(filepath.Join(e.Root, "dirlink")),
	} {
		if err := e.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); !isCode(err, jsonrpc.CodeInvalidParams) {
			t.Errorf("subscribe %s: %v, want invalid params", u, err)
		}
	}
	if err := e.CS.Subscribe(ctx, &mcp.SubscribeParams{URI: uri(filepath.Join(e.Root, "nope"))}); !isCode(err, jsonrpc.CodeInvalidParams) {
		t.Errorf("subscribe to a missing file: %v", err)
	}
}

// Without --resources there are no resources at all.
func TestResourcesOff(t *testing.T) {
	e := testenv.New(t)
	if caps := e.CS.InitializeResult().Capabilities; caps.Resources != nil {
		t.Errorf("resources capability without --resources: %+v", caps.Resources)
	}
}
