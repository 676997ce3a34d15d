// Package server assembles the MCP server from a configuration: the
// sandbox, the tables of the chosen profiles (package profiles names them;
// this package knows none), the resources (package resources), and the
// transports.
package server

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend/queue"
	"github.com/fsmcp/fsmcp/resources"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
	"github.com/fsmcp/fsmcp/wire"
)

// Config is everything the server needs: the operator's settings the
// runtime reads (toolkit.Settings, embedded as they are) and what only the
// server uses. main fills it once from flags and env.
type Config struct {
	toolkit.Settings
	Name    string // serverInfo.name
	Version string
	// Resources serves the roots' files as MCP resources (SPEC §7).
	Resources bool
	// ResourceDepth is how many directory levels resources/list goes down
	// (0: resources.DefaultResourceDepth).
	ResourceDepth int
	// Search serves fs_grep and fs_glob, finished: what stack.New built
	// (main's, or a test's through the same constructor). A Config
	// without one is refused: the server builds no stack of its own.
	Search queue.Stack
	// Plain also serves clients that speak plain JSON-RPC (set by a profile
	// whose original's clients do; nil: MCP clients only).
	Plain *wire.Plain
	// Profiles are the tables served, their union (profiles.Lookup); the
	// tables are checked to go together once, when they are registered.
	Profiles []*toolkit.Table
	// Journal keeps what each call changes (nil: --journal off).
	Journal toolkit.Journal
}

// Server is an MCP server over one sandbox.
type Server struct {
	MCP  *mcp.Server
	deps *toolkit.Env
	cfg  Config
	// httpExit: a served table lets a plain exit over HTTP end the server.
	httpExit bool
	log      *slog.Logger
	res      *resources.Service // nil: no resources served
}

// New builds the server and registers its profiles' tools. The error says
// why the profiles cannot be served together.
func New(cfg Config, sb *sandbox.Sandbox, log *slog.Logger) (*Server, error) {
	deps := &toolkit.Env{
		Settings: cfg.Settings,
		Default:  sb,
		Log:      log,
		Sessions: toolkit.NewSessions(),
		Journal:  cfg.Journal,
		// A call's clock stops while it waits for a search slot.
		CallClock: queue.WithCallTimeout,
	}
	if cfg.Search.Searcher == nil {
		return nil, errors.New("no search stack in the configuration (Config.Search: stack.New builds it)")
	}
	// One admission for every search: the Searcher's, and the calls of
	// tools marked Search; a write makes the kept search pages stale.
	deps.Searcher, deps.Changed = cfg.Search.Searcher, cfg.Search.Changed
	if cfg.Search.Admission != nil {
		deps.Admission = cfg.Search.Admission
	}
	opts := &mcp.ServerOptions{
		Logger:       quiet(log),
		Capabilities: &mcp.ServerCapabilities{},
		Instructions: toolkit.Instructions(cfg.Profiles, sb.Roots(), deps),
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			deps.FetchRoots(req.Session)
		},
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) {
			deps.FetchRoots(req.Session)
		},
		SetCacheable: cacheHints,
	}
	var res *resources.Service
	shape := toolkit.Resources(cfg.Profiles)
	if cfg.Resources || shape != nil && shape.Always {
		res = resources.New(deps, cfg.ResourceDepth, shape)
		opts.SubscribeHandler = res.Subscribe
		opts.UnsubscribeHandler = res.Unsubscribe
	}
	s := mcp.NewServer(&mcp.Implementation{Name: cfg.Name, Version: cfg.Version}, opts)
	s.AddReceivingMiddleware(queueBySession)
	if res != nil {
		res.Register(s)
	}
	if err := toolkit.Register(s, deps, cfg.Profiles); err != nil {
		return nil, err
	}
	if toolkit.WireOf(cfg.Profiles) == toolkit.Plain && cfg.Plain == nil {
		cfg.Plain = &wire.Plain{}
	}
	srv := &Server{MCP: s, deps: deps, cfg: cfg, log: log, res: res}
	for _, t := range cfg.Profiles {
		srv.httpExit = srv.httpExit || t.HTTPExit
	}
	return srv, nil
}

// Close ends per-session state (shells, watchers).
func (s *Server) Close() { s.deps.Sessions.Close() }

// ServeStdio serves one client on stdin/stdout, line by line (see package
// wire), until its input ends (nil) or it sends exit (wire.ErrExit). Calls
// in flight when input ends get --timeout and a little more to answer.
func (s *Server) ServeStdio(ctx context.Context) error {
	return wire.Serve(ctx, s.MCP, &wire.Stdio{Options: wire.Options{
		Drain:          s.cfg.Limits.Timeout + drainGrace,
		Plain:          s.cfg.Plain,
		MethodNotFound: toolkit.UnknownMethod(s.cfg.Profiles),
		Log:            s.log,
	}})
}

// drainGrace is the time past --timeout a call in flight at the end of
// input has to write its answer.
const drainGrace = 5 * time.Second

// ListTTL is how long a client on the stateless era may keep the answers
// fixed for the run: server/discover and the tool, prompt and template
// lists.
const ListTTL = 5 * time.Minute

// cacheHints sets ttlMs and cacheScope on the 2026-07-28 protocol over
// HTTP, where a client keeps no session and would otherwise ask again on
// every connection: the answers fixed for the run may be kept for
// ListTTL, by this user's client only (they name the user's directories
// and the server's settings). Answers that say their own scope (resources,
// whose files change at any time: private, 0) keep it, and every other
// transport keeps the SDK's defaults, which the drop-in profiles' goldens
// pin.
func cacheHints(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil || extra.Header.Get("Mcp-Protocol-Version") < toolkit.StatelessEra || c.CacheScope != "" {
		return
	}
	c.TTLMs = int(ListTTL / time.Millisecond)
	c.CacheScope = "private"
}

// queueBySession marks each request with its session, the queue its
// searches wait in (queue.Admission): an MCP session's (stdio's, or an
// HTTP session's, of which --max-sessions are open at most). A request
// that belongs to no session keeps the queue the HTTP front gave it, its
// client address's (queueByClient): the SDK makes each such request a
// session of its own, which a flood could multiply at will.
func queueBySession(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss := req.GetSession(); ss != nil && (ss.ID() != "" || !queue.HasOwner(ctx)) {
			ctx = queue.WithOwner(ctx, ss)
		}
		return next(ctx, method, req)
	}
}

// quiet keeps the SDK's per-session chatter at debug level: it logs
// connects and disconnects at info, which is noise for a stdio subprocess.
func quiet(log *slog.Logger) *slog.Logger {
	return slog.New(minLevel{log.Handler(), slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

// Handle keeps the SDK's complaint about a tool name outside its
// recommended characters at debug level: a profile's tool names are the
// seed system's own (the catalog's catalog/create), fixed by its clients.
func (h minLevel) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "AddTool: invalid tool name") {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return (l >= h.min || h.Handler.Enabled(ctx, slog.LevelDebug)) && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
