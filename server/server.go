// Package server assembles the MCP server from a configuration: the
// sandbox, the tools of the chosen profile, and the transports.
package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fallback"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/shell"
	"github.com/fsmcp/fsmcp/tools"
	"github.com/fsmcp/fsmcp/wire"
)

// Config is everything the server needs; main fills it from flags and env.
type Config struct {
	Name      string // serverInfo.name
	Version   string
	ReadOnly  bool
	TrustMeta bool
	// ClientRoots lets a client's MCP roots replace the default root (set
	// when no DIR was given).
	ClientRoots bool
	Limits      tools.Limits
	// Resources serves the roots' files as MCP resources (SPEC §7).
	Resources bool
	// ResourceDepth is how many directory levels resources/list goes down
	// (0: DefaultResourceDepth).
	ResourceDepth int
	// Shell is fs_bash's confinement (off: no fs_bash).
	Shell shell.Mode
	// Searcher serves fs_grep and fs_glob (nil: rg if on PATH, else native).
	Searcher backend.Searcher
	// Plain also serves clients that speak plain JSON-RPC (set by a profile
	// whose original's clients do; nil: MCP clients only).
	Plain *wire.Plain
}

// Server is an MCP server over one sandbox.
type Server struct {
	MCP  *mcp.Server
	deps *tools.Deps
	cfg  Config
	log  *slog.Logger
}

// New builds the server and registers its tools.
func New(cfg Config, sb *sandbox.Sandbox, log *slog.Logger) *Server {
	deps := &tools.Deps{
		Sandbox:     sb,
		Limits:      cfg.Limits,
		TrustMeta:   cfg.TrustMeta,
		ClientRoots: cfg.ClientRoots,
		Log:         log,
		Sessions:    tools.NewSessions(),
		Shell:       cfg.Shell,
		Searcher:    cfg.Searcher,
	}
	if deps.Searcher == nil {
		deps.Searcher, _ = backend.Select("auto", fallback.New())
	}
	opts := &mcp.ServerOptions{
		Logger:       quiet(log),
		Capabilities: &mcp.ServerCapabilities{},
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			deps.FetchRoots(req.Session)
		},
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) {
			deps.FetchRoots(req.Session)
		},
	}
	var res *resources
	if cfg.Resources {
		res = newResources(deps, cfg.ResourceDepth)
		opts.SubscribeHandler = res.subscribe
		opts.UnsubscribeHandler = res.unsubscribe
	}
	s := mcp.NewServer(&mcp.Implementation{Name: cfg.Name, Version: cfg.Version}, opts)
	if res != nil {
		res.register(s)
	}
	tools.Register(s, deps, tools.All(), cfg.ReadOnly)
	s.AddReceivingMiddleware(advertiseContextSchema)
	s.AddSendingMiddleware(tools.SessionNotifier)
	return &Server{MCP: s, deps: deps, cfg: cfg, log: log}
}

// Close ends per-session state (shells, watchers).
func (s *Server) Close() { s.deps.Sessions.Close() }

// ServeStdio serves one client on stdin/stdout, line by line (see package
// wire), until its input ends (nil) or it sends exit (wire.ErrExit). Calls
// in flight when input ends get --timeout and a little more to answer.
func (s *Server) ServeStdio(ctx context.Context) error {
	return wire.Serve(ctx, s.MCP, &wire.Stdio{Options: wire.Options{
		Drain: s.cfg.Limits.Timeout + drainGrace,
		Plain: s.cfg.Plain,
		Log:   s.log,
	}})
}

// drainGrace is the time past --timeout a call in flight at the end of
// input has to write its answer.
const drainGrace = 5 * time.Second

// advertiseContextSchema adds contextSchema to serverInfo in the initialize
// answer (and the 2026-07-28 protocol's server/discover answer), as fsMCP does, so a host knows it may send _meta.allowed_dirs.
func advertiseContextSchema(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			return &initializeResult{r}, nil
		case *mcp.DiscoverResult:
			return &discoverResult{r}, nil
		}
		return res, nil
	}
}

// initializeResult and discoverResult marshal like the SDK's results, with
// contextSchema added to serverInfo.
type initializeResult struct{ *mcp.InitializeResult }

type discoverResult struct{ *mcp.DiscoverResult }

func (r *initializeResult) MarshalJSON() ([]byte, error) {
	return withContextSchema(r.InitializeResult)
}

func (r *discoverResult) MarshalJSON() ([]byte, error) { return withContextSchema(r.DiscoverResult) }

func withContextSchema(res any) ([]byte, error) {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if info, ok := m["serverInfo"].(map[string]any); ok {
		info["contextSchema"] = tools.ContextSchema
	}
	if meta, ok := m["_meta"].(map[string]any); ok {
		if info, ok := meta[mcp.MetaKeyServerInfo].(map[string]any); ok {
			info["contextSchema"] = tools.ContextSchema
		}
	}
	return json.Marshal(m)
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

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return (l >= h.min || h.Handler.Enabled(ctx, slog.LevelDebug)) && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
