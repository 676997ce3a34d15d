//lint:file-ignore SA1019 MCP roots are deprecated by the 2026-07-28 protocol, but hosts on the legacy protocol still send them.

package toolkit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/sandbox"
)

// rootsSlot holds a session's pending or fetched client roots.
var rootsSlot = NewSlot[*rootsFetch]("roots")

// A client's MCP roots are the roots when the server was started without
// any DIR (Env.ClientRoots) and the client offers them. On the protocols
// with sessions they are fetched when the session is initialized and again
// after roots/list_changed, and a call waits for a fetch in flight. The
// 2026-07-28 protocol has no session to fetch them on and no request from
// server to client inside a call: there a call is answered with a question
// instead (callRoots, below), and the client retries it with its roots.
// With neither, the sandbox has no root and path tools refuse (ErrNoRoots).

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
	f.sb, f.err = d.rootsSandbox(res.Roots)
}

// rootsSandbox is the sandbox of a client's roots, whichever protocol
// brought them, or nil when they name no directory (the server's default
// then stands). Each root must be a file:// URI of an absolute, clean path
// on this machine (no host but localhost, no "." or ".." element, no query,
// no NUL byte); the others are skipped and logged, as are directories that
// do not exist. The rest become roots as the command line's DIRs do
// (sandbox.New: resolved to real paths, opened as handles).
func (d *Env) rootsSandbox(roots []*mcp.Root) (*sandbox.Sandbox, error) {
	var dirs []string
	for _, r := range roots {
		if r == nil {
			continue
		}
		dir, err := rootPath(r.URI)
		if err != nil {
			d.Log.Warn("ignoring a client root", "uri", r.URI, "reason", err)
			continue
		}
		dirs = append(dirs, dir)
	}
	if len(dirs) == 0 {
		return nil, nil
	}
	sb, errs := sandbox.New(dirs)
	for _, e := range errs {
		d.Log.Warn("skipping a client root", "error", e)
	}
	if len(sb.Roots()) == 0 {
		return nil, fmt.Errorf("none of the client's roots is a usable directory")
	}
	d.Log.Info("using the client's roots", "roots", sb.Roots())
	return sb, nil
}

// rootPath is the directory a root's file:// URI names.
func rootPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", fmt.Errorf("not a URI")
	case u.Scheme != "file":
		return "", fmt.Errorf("not a file:// URI")
	case u.Host != "" && u.Host != "localhost":
		return "", fmt.Errorf("a file URI of another host")
	case u.Opaque != "" || !strings.HasPrefix(u.Path, "/"):
		return "", fmt.Errorf("the path is not absolute (file:///path)")
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("a query or fragment")
	case strings.ContainsRune(u.Path, 0):
		return "", fmt.Errorf("a NUL byte in the path")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return "", fmt.Errorf("a %q element in the path", seg)
		}
	}
	p := u.Path
	if runtime.GOOS == "windows" && len(p) > 2 && p[2] == ':' {
		p = p[1:] // file:///C:/x
	}
	return filepath.FromSlash(p), nil
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

// A call from a 2026-07-28 client, on a server started without a DIR, to
// a client that offers roots, is answered first with a question: a result
// of resultType input_required holding one input request, roots/list
// (SEP-2322, multi-round-trip). The client answers it by retrying the call
// with its roots in inputResponses and the question's requestState echoed,
// and that call is served in exactly those roots, taken as a session's
// roots are (rootsSandbox), then narrowed by _meta.allowed_dirs where that
// cannot add (sandboxFor). Nothing is kept: each call asks and is answered
// anew. A retry that answers with no roots, or with something other than
// roots (a declined question), runs without roots and is refused as
// before (ErrNoRoots); one that answers without this server's signed
// state, or with an expired one, is refused.

// rootsQuestion is the id of the input request that asks for roots.
const rootsQuestion = "roots"

// rootsAskTTL is how long a client has to answer a roots question.
const rootsAskTTL = 10 * time.Minute

// ErrRootsState refuses a roots answer to no question of this server's.
var ErrRootsState = errors.New("the call answers a roots question this server did not ask (its requestState is missing, altered or expired): call again without inputResponses")

// callRoots is the sandbox a call starts from: base, or, when the call
// comes from a 2026-07-28 client that offers roots and no DIR was given,
// the sandbox of the roots it answered with (the caller closes it when it
// is not base). Before it has answered, ask is the result to send instead.
func (d *Env) callRoots(req *mcp.CallToolRequest, base *sandbox.Sandbox) (sb *sandbox.Sandbox, ask *mcp.CallToolResult, err error) {
	if !d.ClientRoots || len(base.Roots()) > 0 || req.Session == nil || !statelessEra(req.Session) || !offersRoots(req.Session) {
		return base, nil, nil
	}
	p := req.Params
	answer, answered := p.InputResponses[rootsQuestion]
	if p.RequestState == "" && !answered {
		return nil, &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{rootsQuestion: &mcp.ListRootsParams{}},
			RequestState:  d.Sessions.signState(time.Now().Add(rootsAskTTL)),
		}, nil
	}
	if !d.Sessions.validState(p.RequestState, time.Now()) {
		return nil, nil, ErrRootsState
	}
	roots, ok := answer.(*mcp.ListRootsResult)
	if !ok {
		return base, nil, nil // declined, or answered something else
	}
	sb, err = d.rootsSandbox(roots.Roots)
	if err != nil {
		return nil, nil, err
	}
	if sb == nil {
		return base, nil, nil
	}
	return sb, nil, nil
}

// statelessEra reports whether the session's client speaks the 2026-07-28
// protocol or later, which has no session-long state and answers input
// requests by retrying (the go-sdk's own test for multi-round-trip).
func statelessEra(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= StatelessEra
}

// signState is a request state that validState accepts until expires:
// the expiry and a nonce, and their HMAC under the server's key, so a
// client can echo it but not make one.
func (s *Sessions) signState(expires time.Time) string {
	var payload [24]byte
	binary.BigEndian.PutUint64(payload[:8], uint64(expires.Unix()))
	rand.Read(payload[8:])
	return base64.RawURLEncoding.EncodeToString(payload[:]) + "." + base64.RawURLEncoding.EncodeToString(s.stateMAC(payload[:]))
}

// validState reports whether state is one signState made, not expired at now.
func (s *Sessions) validState(state string, now time.Time) bool {
	p, m, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	mac, err2 := base64.RawURLEncoding.DecodeString(m)
	if err1 != nil || err2 != nil || len(payload) != 24 || !hmac.Equal(mac, s.stateMAC(payload)) {
		return false
	}
	return now.Unix() < int64(binary.BigEndian.Uint64(payload[:8]))
}

func (s *Sessions) stateMAC(payload []byte) []byte {
	h := hmac.New(sha256.New, s.stateKey[:])
	h.Write([]byte("fsmcp roots question\x00"))
	h.Write(payload)
	return h.Sum(nil)
}

// enter gives the call its sandbox: the session's roots, the client's
// roots for this call (or a roots request it answers by calling again),
// then narrowed by _meta.allowed_dirs; each closed when the call ends.
func enter(ctx context.Context, k *call, next func(context.Context)) {
	base, err := k.env.baseSandbox(ctx, k.req.Session)
	if err != nil {
		k.err = err
		return
	}
	roots, ask, err := k.env.callRoots(k.req, base)
	if err != nil {
		k.err = err
		return
	}
	if ask != nil {
		k.res = ask // the client answers by calling again
		return
	}
	if roots != base {
		defer roots.Close()
		base = roots
	}
	sb, err := k.env.sandboxFor(base, k.req)
	if err != nil {
		k.err = k.tab.refusal(err, base)
		return
	}
	if sb != base {
		defer sb.Close()
	}
	k.base, k.sb = base, sb
	next(ctx)
}
