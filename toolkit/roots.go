//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol, but hosts on the legacy protocol still send them.

package toolkit

import (
	"context"
	"fmt"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/sandbox"
)

// rootsSlot holds a session's pending or fetched client roots.
var rootsSlot = NewSlot[*rootsFetch]("roots")

// A client's MCP roots are the roots when the server was started without
// any DIR (Env.ClientRoots) and the client offers them. They are fetched
// when the session is initialized and again after roots/list_changed —
// never inside a tool call, which the 2026-07-28 protocol forbids (roots
// are deprecated there, so such clients scope calls with
// _meta.allowed_dirs). A call waits for a fetch in flight. With neither,
// the sandbox has no root and path tools refuse (ErrNoRoots).

// FetchRoots starts fetching the session's roots, when that applies.
func (d *Env) FetchRoots(ss *mcp.ServerSession) {
	if !d.ClientRoots || ss == nil || !offersRoots(ss) {
		return
	}
	rootsSlot.Retire(d.Sessions, ss)
	f := &rootsFetch{done: make(chan struct{})}
	if _, err := rootsSlot.Get(d.Sessions, ss, func() (*rootsFetch, error) { return f, nil }); err != nil {
		return
	}
	go f.run(d, ss)
}

// baseSandbox is the sandbox a session starts from: the client's roots when
// they apply, else the server's (with no DIR, one without roots).
func (d *Env) baseSandbox(ctx context.Context, ss *mcp.ServerSession) (*sandbox.Sandbox, error) {
	f, ok := rootsSlot.Lookup(d.Sessions, ss)
	if !ok {
		return d.Default, nil
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the client's roots: %v", ctx.Err())
	}
	if f.err != nil {
		return nil, f.err
	}
	if f.sb == nil {
		return d.Default, nil // the client named no directory: keep the server's
	}
	return f.sb, nil
}

type rootsFetch struct {
	done chan struct{}
	sb   *sandbox.Sandbox // nil: keep the default
	err  error
}

func (f *rootsFetch) run(d *Env, ss *mcp.ServerSession) {
	defer close(f.done)
	res, err := ss.ListRoots(context.Background(), nil)
	if err != nil {
		f.err = fmt.Errorf("asking the client for its roots: %v", err)
		return
	}
	var dirs []string
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" {
			d.Log.Warn("ignoring a client root that is not a file:// URI", "uri", r.URI)
			continue
		}
		dirs = append(dirs, u.Path)
	}
	if len(dirs) == 0 {
		return
	}
	sb, errs := sandbox.New(dirs)
	for _, e := range errs {
		d.Log.Warn("skipping a client root", "error", e)
	}
	if len(sb.Roots()) == 0 {
		f.err = fmt.Errorf("none of the client's roots is a usable directory")
		return
	}
	d.Log.Info("using the client's roots", "roots", sb.Roots())
	f.sb = sb
}

func (f *rootsFetch) Close() error {
	<-f.done
	if f.sb != nil {
		return f.sb.Close()
	}
	return nil
}

func offersRoots(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil
}

// SessionSandbox is the sandbox in force for a session outside tool calls
// (resources): the client's roots when they apply, else the server's.
func (d *Env) SessionSandbox(ctx context.Context, ss *mcp.ServerSession) (*sandbox.Sandbox, error) {
	if ss == nil {
		return d.Default, nil
	}
	return d.baseSandbox(ctx, ss)
}
