package toolkit

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/jsonorder"
)

// Table is one profile: the face fsmcp shows a client written for some
// other server. Everything in it adapts; the work is done by the core.
// Its fields come in groups, by what they are for: what is served, how
// arguments are read, the handshake, the words of errors, what tools/list
// shows, and the transport.
type Table struct {
	Name  string // as --profile names it
	Tools []Tool
	// Methods are direct JSON-RPC methods besides the MCP ones
	// (catalog/create).
	Methods []Method
	// Resources, when --resources is on, shapes the resource answers.
	Resources *ResourceShape
	Arguments
	Handshake
	Wording
	Listing
	Transport
}

// Arguments is how a table reads tool arguments.
type Arguments struct {
	// Paths is how tool arguments name files.
	Paths PathRule
	// ExtraArgs is what happens to arguments a tool's schema does not
	// name: refused with -32602 (RefuseExtra, the default: zod .strict()
	// servers), or dropped before validation and left out of the schema's
	// additionalProperties (IgnoreExtra: fsMCP, the official server), and
	// maybe reported (ReportExtra: fsmcp).
	ExtraArgs ExtraArgs
}

// Handshake is what a table answers before any tool runs: initialize,
// the other standard methods, and the roots it serves by default.
type Handshake struct {
	// Instructions, when set, is the initialize answer's instructions for
	// the server's configured roots (none: the client gives them), and
	// whether a tool that runs commands (NeedsShell) is served. nil sends
	// none, as the drop-ins' originals do. With several tables the first
	// wins.
	Instructions func(roots []string, shell bool) string
	// Initialize reshapes the initialize answer (and the 2026-07-28
	// protocol's server/discover answer): res is *mcp.InitializeResult or
	// *mcp.DiscoverResult, or already another table's wrapper when several
	// profiles are served; return a wrapper (see Reshape). nil keeps the
	// standard answer.
	Initialize func(res mcp.Result) mcp.Result
	// PlainInitialize, when set, replaces Initialize for a client that sent
	// initialize without params (Wire Plain: the front marks those, see
	// wire.Bare): the original's own shape where it cannot coexist with
	// the standard one (the catalog's capabilities.tools array).
	PlainInitialize func(res mcp.Result) mcp.Result
	// Answers reshape the answers to other standard methods, by method
	// name (LocalCowork's tools/list manifest, its ping {status: "ok"}).
	Answers map[string]func(res mcp.Result) mcp.Result
	// DefaultRoots, when set, gives the allowed directories from the
	// environment when the command line names none (LocalCowork's
	// LOCALCOWORK_ALLOWED_PATHS); nil or an empty answer keeps fsmcp's
	// default. An entry that names no directory is an error naming the
	// variable: an empty path would serve the working directory.
	DefaultRoots func(getenv func(string) string) ([]string, error)
}

// Wording is how a table words what goes wrong.
type Wording struct {
	// Errors maps a handler's error (a core error, see fault.KindOf, or
	// an argument error: *jsonrpc.Error -32602) to what the client gets:
	// a plain error becomes an isError result with its text, a
	// *jsonrpc.Error a protocol error with its code. nil keeps errors as
	// they are.
	Errors func(error) error
	// NameRoots ends every outside refusal (fault.Outside) of a tool with
	// the call's allowed directories, before Errors sees it: `path X is
	// outside allowed directories: /a, /b` (SPEC §2: the agent is told its
	// roots). Off for drop-ins whose original words refusals its own way.
	NameRoots bool
	// Explain, when set, may add to a handler's error what the call tells
	// about it (the absolute path a relative one would have been, the
	// nearest name that exists); it keeps the error's kind (wrap it).
	Explain func(c *Call, err error) error
	// UnknownTool is what a tools/call naming no served tool gets: a plain
	// error becomes an isError result (fsMCP, the official server), a
	// *jsonrpc.Error a protocol error with its code (peekaboo's -32601).
	// nil keeps the SDK's answer. With several tables the first wins.
	UnknownTool func(name string) error
	// UnknownMethod is the message of the -32601 a request naming no
	// method gets, on the stdio front (the SDK answers it before any
	// middleware: `method not found: "X"`). nil keeps the SDK's. With
	// several tables the first wins.
	UnknownMethod func(method string) string
}

// Listing is what a table's tools/list says about each tool beyond its
// definition, for hosts that read it.
type Listing struct {
	// DeclareResultSize lists each tool with _meta["anthropic/maxResultSizeChars"]
	// set to --max-output (at most 500000, Claude Code's ceiling): Claude
	// Code documents it ("Raise the limit for a specific tool",
	// code.claude.com/docs/en/mcp) and keeps a result up to that size in
	// the conversation instead of saving it to a file the model sees only
	// a 2 KB preview of. Off for drop-ins whose tools/list is the
	// original's.
	DeclareResultSize bool
	// Upfront names the tools a host that defers tools behind a search
	// step should load from the first request: each is listed with
	// _meta["anthropic/alwaysLoad"] = true (Claude Code 2.1.328 and later
	// defer every other MCP tool behind ToolSearch). The rest carry no such
	// key, so they stay deferred, and a user's per-server alwaysLoad still
	// loads them all (Claude Code keeps a tool deferred that says false).
	// A profile lists the few tools its agents reach for on every task;
	// docs/profiles.md says why each is or is not, and
	// profiles/hosts_test.go holds every tool of every profile to it.
	Upfront []string
	// SearchHints gives a deferred tool the words a user or a model
	// would search for it by ("undo that", "revert the last change"),
	// listed as _meta["anthropic/searchHint"]: Claude Code (2.1.332)
	// adds them to what its ToolSearch matches, so a deferred tool is
	// found by what it does, not only by its name.
	SearchHints map[string]string
}

// Transport is how a table's clients frame and end a session.
type Transport struct {
	// Wire is the framing the profile's clients speak.
	Wire Wire
	// HTTPExit lets a plain `exit` POSTed over HTTP end the server, as the
	// catalog's HTTP clients stop it. Off elsewhere: over HTTP any token
	// holder could otherwise stop a server other clients use. (On stdio,
	// exit always ends the process: the client owns it.)
	HTTPExit bool
}

// MetaMaxResultSize is the tools/list _meta key Claude Code reads for the
// largest text result it keeps whole.
const MetaMaxResultSize = "anthropic/maxResultSizeChars"

// MetaSearchHint is the tools/list _meta key Claude Code reads for
// words its tool search matches a deferred tool by.
const MetaSearchHint = "anthropic/searchHint"

// MetaAlwaysLoad is the tools/list _meta key Claude Code reads for a tool
// it sends the model in full from the first request instead of deferring
// it behind ToolSearch.
const MetaAlwaysLoad = "anthropic/alwaysLoad"

// maxDeclaredResultSize is Claude Code's ceiling for MetaMaxResultSize.
const maxDeclaredResultSize = 500000

// ExtraArgs is a table's policy for arguments its schemas do not name.
type ExtraArgs int

const (
	// RefuseExtra answers an unknown argument with -32602.
	RefuseExtra ExtraArgs = iota
	// IgnoreExtra drops unknown arguments, as JavaScript servers do.
	IgnoreExtra
	// ReportExtra drops them too, so a client that relies on that keeps
	// working, and ends the answer with one line naming them and the
	// parameter that does what was meant (Tool.Hints): a model that wrote
	// include for glob learns its filter was not applied.
	ReportExtra
)

// drops reports whether unknown arguments are dropped, not refused.
func (e ExtraArgs) drops() bool { return e != RefuseExtra }

// Wire is the framing a profile's clients speak.
type Wire int

const (
	// Standard is MCP as the go-sdk serves it.
	Standard Wire = iota
	// Plain is the seeds' plain JSON-RPC front: initialize optional, calls
	// before it answered, shutdown and exit (built in package wire). It
	// serves standard MCP clients as before, so a union with a Standard
	// table speaks it.
	Plain
)

// ResourceShape is a profile's view of the resources (--resources).
type ResourceShape struct {
	// List reshapes a resources/list page (e.g. peekaboo's metadata on
	// each resource); nil keeps it.
	List func(*mcp.ListResourcesResult) mcp.Result
	// Errors maps resource errors to the profile's codes; nil keeps them.
	// With Path set it sees the core's errors (fault kinds) of
	// resources/read before any other mapping.
	Errors func(error) error
	// Always serves resources without --resources: they are the
	// profile's surface (peekaboo).
	Always bool
	// Depth is how many directory levels resources/list shows (1: the
	// root's own entries); 0 leaves the server's.
	Depth int
	// DepthFrom, when set, gives Depth from the environment (the server
	// calls it once at start with os.Getenv): peekaboo's
	// PEEKABOO_MAX_DEPTH. Profiles cannot read the environment themselves.
	DepthFrom func(getenv func(string) string) int
	// PageSize is how many resources one resources/list answer holds
	// (0: the server's); clients that never follow nextCursor need one
	// page for a whole project.
	PageSize int
	// MIME names the type of a listed or read resource (nil: by
	// extension, then by content).
	MIME func(name string, isDir bool) string
	// Path maps a resource URI to the path it names, absolute or relative
	// to the first root, or refuses it with the profile's error; the
	// server still contains the path. nil accepts file:///abs only.
	Path func(uri string) (string, error)
}

// Method is a direct JSON-RPC method; build one with NewMethod.
type Method struct {
	Name string
	// ReadOnly: the method never changes anything, so --read-only serves
	// it; a method not marked so is left out there, as a writing tool is.
	ReadOnly bool
	register func(s *mcp.Server, env *Env, tab *Table) error
}

// NewMethod is a direct JSON-RPC method (mcp.AddReceivingCustomMethod):
// params decode into *T, a struct embedding mcp.ParamsBase; R is a pointer
// to a struct embedding mcp.ResultBase. An error from h goes through the
// table's Errors; a *jsonrpc.Error reaches the wire with its code. Env.CallFor
// gives h the session's sandbox and the table's path rule.
func NewMethod[P interface {
	*T
	mcp.Params
}, R mcp.Result, T any](name string, h func(ctx context.Context, env *Env, ss *mcp.ServerSession, params P) (R, error)) Method {
	return Method{Name: name, register: func(s *mcp.Server, env *Env, tab *Table) error {
		return mcp.AddReceivingCustomMethod(s, name, func(ctx context.Context, ss *mcp.ServerSession, params P) (R, error) {
			// One call of a method is one entry of the change journal,
			// as a tool call is.
			if env.Journal != nil {
				client := ""
				if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
					client = ip.ClientInfo.Name
				}
				var end func() []string
				ctx, end = env.Journal.BeginCall(ctx, name, ss.ID(), client, env.Default.Roots())
				defer end()
			}
			res, err := h(ctx, env, ss, params)
			if err != nil && tab.Errors != nil {
				err = tab.Errors(err)
			}
			return res, err
		})
	}}
}

// Reshape returns a result that marshals like res, after edit has changed
// its JSON object form: the way to add fields the SDK's types lack
// (fsMCP's serverInfo.contextSchema, peekaboo's resource metadata). Every
// object keeps its keys in res's order (jsonorder), new keys after them.
func Reshape(res mcp.Result, edit func(m map[string]any)) mcp.Result {
	return &reshaped{Result: res, edit: edit}
}

// ReshapeServerInfo is Reshape of an initialize answer that edits its
// serverInfo wherever it is: at the top level, and in _meta for the
// 2026-07-28 protocol's server/discover.
func ReshapeServerInfo(res mcp.Result, edit func(info map[string]any)) mcp.Result {
	return Reshape(res, func(m map[string]any) {
		if info, ok := m["serverInfo"].(map[string]any); ok {
			edit(info)
		}
		if meta, ok := m["_meta"].(map[string]any); ok {
			if info, ok := meta[mcp.MetaKeyServerInfo].(map[string]any); ok {
				edit(info)
			}
		}
	})
}

type reshaped struct {
	mcp.Result
	edit func(map[string]any)
	// complete: the answer is on the 2026-07-28 protocol, whose results
	// say resultType "complete". The SDK sets it through a method of its
	// own result types that this wrapper cannot forward (markComplete).
	complete bool
}

func (r *reshaped) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	r.edit(m)
	if _, ok := m["resultType"]; !ok && r.complete {
		m["resultType"] = "complete"
	}
	// Keys in res's order: a client, a model above all, reads a schema in
	// order (the official edit_file lists oldText before newText, and a
	// model should write the old text first).
	return jsonorder.Marshal(m, raw)
}

// markComplete gives a reshaped answer to a 2026-07-28 request the
// resultType the SDK gives its own results: without it the TypeScript
// client 2.x refuses the answer.
func markComplete(req mcp.Request, res mcp.Result) mcp.Result {
	r, ok := res.(*reshaped)
	if !ok {
		return res
	}
	if v, ok := req.(interface{ ProtocolVersion() string }); ok && v.ProtocolVersion() >= StatelessEra {
		r.complete = true
	}
	return res
}
