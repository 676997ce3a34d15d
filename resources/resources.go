// Package resources serves the roots' files as MCP resources (SPEC §7,
// --resources), beside the other file features: every file and
// directory under the roots is a resource with a file:// URI.
//
// The go-sdk lists resources from a registry that holds every resource in
// memory and pages through it; a 100k-file tree must not be registered
// whole, so resources/list is answered by a receiving middleware that walks
// the roots one page at a time (files.Page) and resumes from an opaque
// cursor. resources/read goes through the registered template
// file:///{+path}; the middleware checks the URI first so that a refusal
// names its reason. Subscriptions are served by watchers from package
// watch, shared by the sessions that subscribed to the same URI.
package resources

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
	"github.com/fsmcp/fsmcp/watch"
)

// Resource settings.
const (
	resourcePageSize     = 500 // resources in one resources/list answer
	DefaultResourceDepth = 10  // directory levels listed, as peekaboo's PEEKABOO_MAX_DEPTH
	fileTemplate         = "file:///{+path}"
	// MaxSubscriptions bounds one session's resource subscriptions, so a
	// client cannot make the server watch without end (all watchers share
	// the process's one inotify instance, see package watch).
	MaxSubscriptions = 64
	// cacheScope is what resources/list and resources/read say alike: a
	// user's files are theirs, no intermediary may cache or share them.
	cacheScope = "private"
)

// Service serves the roots' files as MCP resources for one server: built
// by New, added to the server by Register, its Subscribe and Unsubscribe
// the server's handlers.
type Service struct {
	srv      *mcp.Server
	deps     *toolkit.Env
	depth    int
	pageSize int
	shape    *toolkit.ResourceShape // nil: the standard answers
	tmpl     *mcp.ResourceTemplate

	mu   sync.Mutex
	subs map[string]*subscription // by what is watched (watchKey)
}

// subscription is one watched file or directory, with the URIs it was
// subscribed by (file:///R, file:///R/ and a link to R are one watch) and
// the sessions that asked for each.
type subscription struct {
	w    *watch.Watcher
	uris map[string]map[*mcp.ServerSession]bool
	// list is the URIs for changed, which may not take r.mu (a watcher
	// starts under it); replaced whenever uris changes.
	list atomic.Pointer[[]string]
}

// relist publishes sub's URIs to changed (r.mu held).
func (sub *subscription) relist() {
	l := make([]string, 0, len(sub.uris))
	for uri := range sub.uris {
		l = append(l, uri)
	}
	sub.list.Store(&l)
}

// watchKey names what a subscription to p watches: a directory by its
// target (links followed within the root), a file by its cleaned path.
func watchKey(p *sandbox.Path, dir bool) (string, error) {
	if !dir {
		return "file:" + p.Abs, nil
	}
	t, err := p.Target()
	if err != nil {
		return "", err
	}
	return "dir:" + t.Abs, nil
}

// New is the resources of the server whose runtime is deps, listed depth
// levels down (0: the shape's, else DefaultResourceDepth), in shape's
// view (nil: the standard answers).
func New(deps *toolkit.Env, depth int, shape *toolkit.ResourceShape) *Service {
	pageSize := resourcePageSize
	if shape != nil {
		if depth <= 0 && shape.DepthFrom != nil {
			depth = shape.DepthFrom(os.Getenv)
		}
		if depth <= 0 && shape.Depth > 0 {
			depth = shape.Depth
		}
		if shape.PageSize > 0 {
			pageSize = shape.PageSize
		}
	}
	if depth <= 0 {
		depth = DefaultResourceDepth
	}
	return &Service{deps: deps, depth: depth, pageSize: pageSize, shape: shape, subs: map[string]*subscription{},
		tmpl: &mcp.ResourceTemplate{
			URITemplate: fileTemplate,
			Name:        "file",
			Title:       "Files under the allowed directories",
			Description: "Any file under the allowed directories, by its absolute path: file:///path/to/file. " +
				"Text comes back as text, anything else as a base64 blob, up to --max-file-size.",
		}}
}

// Register adds the template (which also advertises the resources
// capability) and the middleware to s.
func (r *Service) Register(s *mcp.Server) {
	r.srv = s
	s.AddResourceTemplate(r.tmpl, r.read)
	s.AddReceivingMiddleware(r.middleware)
}

func (r *Service) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	serve := r.serve(next)
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := serve(ctx, method, req)
		if err != nil && r.shape != nil && r.shape.Errors != nil && strings.HasPrefix(method, "resources/") {
			err = r.shape.Errors(err)
		}
		return res, err
	}
}

func (r *Service) serve(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			params, _ := req.GetParams().(*mcp.ListResourcesParams)
			sb, err := r.sandbox(ctx, req)
			if err != nil {
				return nil, err
			}
			return r.list(ctx, sb, params)
		case "resources/read":
			if params, ok := req.GetParams().(*mcp.ReadResourceParams); ok && params != nil {
				sb, err := r.sandbox(ctx, req)
				if err != nil {
					return nil, err
				}
				if r.shape != nil && r.shape.Path != nil {
					// The profile's URIs need not fit the template
					// (peekaboo's file://src/a.ts): served here.
					return r.readURI(sb, params.URI)
				}
				if _, err := r.resolve(sb, params.URI); err != nil {
					return nil, err
				}
			}
		}
		return next(ctx, method, req)
	}
}

// sandbox is the sandbox in force for the session a request came on.
func (r *Service) sandbox(ctx context.Context, req mcp.Request) (*sandbox.Sandbox, error) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	sb, err := r.deps.SessionSandbox(ctx, ss)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return sb, nil
}

// uriError is a refused resource URI: a JSON-RPC invalid-params error
// whose message names the reason.
func uriError(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// resolve turns a file:// URI into a sandboxed path, refusing other
// schemes, hosts, queries, traversal (encoded or not), NUL bytes and paths
// outside the roots.
func (r *Service) resolve(sb *sandbox.Sandbox, uri string) (*sandbox.Path, error) {
	if r.shape != nil && r.shape.Path != nil {
		return r.profilePath(sb, uri)
	}
	p, err := toolkit.ResolveURI(sb, uri)
	var bad *toolkit.URIError
	switch {
	case errors.As(err, &bad):
		return nil, uriError("%s", bad.Error())
	case sandbox.IsOutside(err):
		return nil, outsideURI(sb, uri)
	case err != nil:
		return nil, uriError("resource URI %q: %v", uri, err)
	}
	return p, nil
}

// profilePath resolves a URI the profile's way (ResourceShape.Path): a
// relative path is taken from the first root (toolkit.RelativeToRoot),
// and the result is contained like any other; a refusal goes through the
// profile's Errors.
func (r *Service) profilePath(sb *sandbox.Sandbox, uri string) (*sandbox.Path, error) {
	path, err := r.shape.Path(uri)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(path) && len(sb.Roots()) == 0 {
		return nil, r.fail(fault.Errorf(fault.Outside, path, "no allowed directory to resolve %q in", path))
	}
	p, err := toolkit.RelativeToRoot.Resolve(sb, path)
	if err != nil {
		return nil, r.fail(err)
	}
	return p, nil
}

// fail hands a core error to the profile's Errors (with ResourceShape.Path
// set) and reports whether it did.
func (r *Service) fail(err error) error {
	if r.shape != nil && r.shape.Errors != nil {
		return r.shape.Errors(err)
	}
	return err
}

// outsideURI refuses a URI outside sb's roots, naming them (SPEC §2: a
// refusal names the allowed directories).
func outsideURI(sb *sandbox.Sandbox, uri string) error {
	roots := sb.Roots()
	if len(roots) == 0 {
		return uriError("resource URI %q: %v", uri, toolkit.ErrNoRoots)
	}
	return uriError("resource URI %q is outside the allowed directories: %s", uri, strings.Join(roots, ", "))
}

// The list cursor is opaque to clients: the index of a root and the walk
// key of the last entry listed in it.
func encodeCursor(root int, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(root) + ":" + key))
}

func decodeCursor(c string, roots int) (int, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		i, key, ok := strings.Cut(string(raw), ":")
		if n, err := strconv.Atoi(i); ok && err == nil && n >= 0 && n < roots {
			return n, key, nil
		}
	}
	return 0, "", uriError("invalid cursor %q: pass back the nextCursor of the previous page", c)
}

func (r *Service) list(ctx context.Context, sb *sandbox.Sandbox, params *mcp.ListResourcesParams) (mcp.Result, error) {
	roots := sb.Roots()
	start, after := 0, ""
	if params != nil && params.Cursor != "" {
		var err error
		if start, after, err = decodeCursor(params.Cursor, len(roots)); err != nil {
			return nil, err
		}
	}
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	res.CacheScope = cacheScope
	for i := start; i < len(roots); i++ {
		if len(res.Resources) == r.pageSize {
			res.NextCursor = encodeCursor(i, after)
			break
		}
		root, err := sb.Resolve(roots[i])
		if err != nil {
			continue
		}
		ents, more, err := files.Page(ctx, root, files.PageOptions{MaxDepth: r.depth, Limit: r.pageSize - len(res.Resources), After: after})
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		for _, e := range ents {
			res.Resources = append(res.Resources, r.resourceOf(root, e))
		}
		if more {
			last := ents[len(ents)-1]
			res.NextCursor = encodeCursor(i, files.Key(last.Rel, last.Type == files.TypeDir))
			break
		}
		after = ""
	}
	if r.shape != nil && r.shape.List != nil {
		return r.shape.List(res), nil
	}
	return res, nil
}

func (r *Service) resourceOf(root *sandbox.Path, e files.Entry) *mcp.Resource {
	return &mcp.Resource{
		URI:      toolkit.FileURI(e.Abs),
		Name:     "/" + e.Rel,
		MIMEType: r.mime(root.Join(e.Rel), e.Type),
		Size:     e.Size,
		Meta:     mcp.Meta{"type": string(e.Type), "size": e.Size, "hasChildren": e.HasChildren},
	}
}

// mime is a resource's type, the profile's way when it has one.
func (r *Service) mime(p *sandbox.Path, t files.Type) string {
	if r.shape != nil && r.shape.MIME != nil {
		return r.shape.MIME(p.Rel, t == files.TypeDir)
	}
	return files.MIMEOf(p, t)
}

// read serves resources/read for the template.
func (r *Service) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	sb, err := r.sandbox(ctx, req)
	if err != nil {
		return nil, err
	}
	return r.readURI(sb, req.Params.URI)
}

// readURI reads the file a URI names: text, or a base64 blob.
func (r *Service) readURI(sb *sandbox.Sandbox, uri string) (*mcp.ReadResourceResult, error) {
	p, err := r.resolve(sb, uri)
	if err != nil {
		return nil, err
	}
	w, err := files.ReadWhole(p, r.deps.Limits.MaxFileSize)
	if err != nil && r.shape != nil && r.shape.Path != nil {
		return nil, r.fail(err)
	}
	switch fault.KindOf(err) {
	case fault.Other:
		if err != nil {
			return nil, err
		}
	case fault.NotFound:
		return nil, mcp.ResourceNotFoundError(uri)
	case fault.Outside:
		return nil, outsideURI(sb, uri)
	case fault.IsDir:
		return nil, uriError("resource URI %q is a directory: resources/list shows what is in it", uri)
	case fault.TooLarge:
		return nil, uriError("%s", err)
	default:
		return nil, err
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: w.MIME}
	if r.shape != nil && r.shape.MIME != nil {
		c.MIMEType = r.shape.MIME(p.Rel, false)
	}
	if w.IsText {
		c.Text = string(w.Data)
	} else {
		c.Blob = w.Data
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}
	res.CacheScope = cacheScope
	return res, nil
}

// subscribe starts (or shares) a watcher for the URI: a directory is
// watched recursively, a file through its directory.
func (r *Service) Subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	sb, err := r.sandbox(ctx, req)
	if err != nil {
		return err
	}
	p, err := r.resolve(sb, uri)
	if err != nil {
		return err
	}
	fi, err := p.Stat()
	if errors.Is(err, fs.ErrNotExist) {
		return mcp.ResourceNotFoundError(uri)
	} else if err != nil {
		return uriError("resource URI %q: %v", uri, err)
	}
	ss := req.Session
	if _, err := subsSlot.Get(r.deps.Sessions, ss, func() (sessionSubs, error) { return sessionSubs{r, ss}, nil }); err != nil {
		return err
	}
	// The lock is held while a watcher starts (changed, which watchers
	// call, does not take it); watchers are only closed outside it.
	key, err := watchKey(p, fi.IsDir())
	if err != nil {
		return uriError("resource URI %q: %v", uri, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sub := r.subs[key]
	if sub == nil || !sub.uris[uri][ss] {
		// The URI may name something else now (a link was changed): its
		// old subscription ends for this session.
		if w := r.dropLocked(ss, uri); w != nil {
			go w.Close() // not under r.mu: the watcher may be delivering
		}
		sub = r.subs[key]
	}
	if (sub == nil || !sub.uris[uri][ss]) && r.countFor(ss) >= MaxSubscriptions {
		return uriError("cannot subscribe to %q: this session already has %d subscriptions, the most allowed; unsubscribe from some first", uri, MaxSubscriptions)
	}
	if sub == nil {
		sub = &subscription{uris: map[string]map[*mcp.ServerSession]bool{}}
		var w *watch.Watcher
		if fi.IsDir() {
			w, err = watch.New(p, watch.Options{OnEvents: func(evs []watch.Event) { r.changed(sub, evs) }})
		} else {
			w, err = watch.New(p.Dir(), watch.Options{Flat: true, OnEvents: func(evs []watch.Event) {
				var mine []watch.Event
				for _, e := range evs {
					if e.Path == p.Abs {
						mine = append(mine, e)
					}
				}
				r.changed(sub, mine)
			}})
		}
		if err != nil {
			return uriError("cannot subscribe to %q: %v", uri, err)
		}
		sub.w = w
		r.subs[key] = sub
	}
	if sub.uris[uri] == nil {
		sub.uris[uri] = map[*mcp.ServerSession]bool{}
	}
	sub.uris[uri][ss] = true
	sub.relist()
	return nil
}

// Watching is how many watchers serve the subscriptions: one per
// directory or file, however many sessions and URI spellings name it.
func (r *Service) Watching() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.subs)
}

// countFor is the number of URIs ss is subscribed to (r.mu held).
func (r *Service) countFor(ss *mcp.ServerSession) int {
	n := 0
	for _, sub := range r.subs {
		for _, sessions := range sub.uris {
			if sessions[ss] {
				n++
			}
		}
	}
	return n
}

func (r *Service) Unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	r.drop(req.Session, req.Params.URI)
	return nil
}

// drop removes a session from a URI's subscribers, stopping the watcher
// when none is left.
func (r *Service) drop(ss *mcp.ServerSession, uri string) {
	r.mu.Lock()
	w := r.dropLocked(ss, uri)
	r.mu.Unlock()
	if w != nil {
		w.Close() // outside the lock: the watcher may be delivering
	}
}

// dropLocked is drop with r.mu held; it returns the watcher that no
// subscriber is left for, which the caller closes outside the lock.
func (r *Service) dropLocked(ss *mcp.ServerSession, uri string) *watch.Watcher {
	for key, sub := range r.subs {
		if !sub.uris[uri][ss] {
			continue
		}
		delete(sub.uris[uri], ss)
		if len(sub.uris[uri]) == 0 {
			delete(sub.uris, uri)
			sub.relist()
		}
		if len(sub.uris) > 0 {
			return nil
		}
		delete(r.subs, key)
		return sub.w
	}
	return nil
}

// subsSlot ends a session's subscriptions with the session.
var subsSlot = toolkit.NewSlot[sessionSubs]("resource-subscriptions")

// sessionSubs ends a session's subscriptions with the session.
type sessionSubs struct {
	r  *Service
	ss *mcp.ServerSession
}

func (s sessionSubs) Close() error {
	s.r.mu.Lock()
	var uris []string
	for _, sub := range s.r.subs {
		for uri, sessions := range sub.uris {
			if sessions[s.ss] {
				uris = append(uris, uri)
			}
		}
	}
	s.r.mu.Unlock()
	for _, uri := range uris {
		s.r.drop(s.ss, uri)
	}
	return nil
}

// changed tells the subscribers of uri that it changed, and every session
// that the list changed when entries appeared or vanished.
func (r *Service) changed(sub *subscription, evs []watch.Event) {
	if len(evs) == 0 {
		return
	}
	if l := sub.list.Load(); l != nil {
		for _, uri := range *l {
			r.srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
	for _, e := range evs {
		if e.Op == watch.Created || e.Op == watch.Removed || e.Op == watch.Renamed {
			// Re-adding the template is the go-sdk's public way to send
			// notifications/resources/list_changed (debounced) to the
			// sessions that take it.
			r.srv.AddResourceTemplate(r.tmpl, r.read)
			return
		}
	}
}
