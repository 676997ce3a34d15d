package peekaboo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// peekaboo's search bounds: both searches look 10 levels down (11 with
// the root's own entries) whatever PEEKABOO_MAX_DEPTH says; search_content
// reports at most 20 files and 5 lines of each.
const (
	searchLevels = defaultDepth + 1
	maxFiles     = 20
	maxPerFile   = 5
	// maxWalk bounds the entries search_path looks at in one call.
	maxWalk = 200000
)

// Operation names peekaboo's timeout message uses.
const (
	opSearchPath    = "searchByPath"
	opSearchContent = "searchContent"
)

// skipped are the directories whose contents search_path never reports.
var skipped = []string{"/node_modules/", "/dist/", "/.git/"}

type pathArgs struct {
	Pattern string `json:"pattern,omitempty" jsonschema:"Search pattern (supports * and ** wildcards, e.g., \"*.js\", \"**/test/*.json\")" advertise:"required"`
}

type contentArgs struct {
	Query      string `json:"query,omitempty" jsonschema:"Text to search for in file contents" advertise:"required"`
	Include    string `json:"include,omitempty" jsonschema:"Optional file pattern to search in (e.g., \"*.js\", \"*.md\")"`
	IgnoreCase *bool  `json:"ignoreCase,omitempty" jsonschema:"Case-insensitive search (default: true)"`
}

// SearchPath is search_path: files and directories whose "/rel" path
// matches a glob, in listing order.
func SearchPath() toolkit.Tool {
	return toolkit.Searching(toolkit.Bind(&mcp.Tool{
		Name:        "search_path",
		Description: "Search for files and directories by name pattern",
		Annotations: toolkit.ReadOnly("Search paths"),
	}, func(ctx context.Context, c *toolkit.Call, in pathArgs) (*mcp.CallToolResult, error) {
		if in.Pattern == "" {
			return nil, toolkit.RPCError(codeInvalidRequest, "Pattern is required")
		}
		re, err := pathRegexp(in.Pattern)
		if err != nil {
			return nil, fmt.Errorf("invalid pattern %q: %v", in.Pattern, err)
		}
		var found []string
		results := c.ResultCap()
		for _, root := range c.Sandbox.Roots() {
			dir, err := c.ResolveFound(root)
			if err != nil {
				return nil, err
			}
			l, err := files.List(ctx, dir, files.ListOptions{Depth: searchLevels, IncludeIgnored: true, Max: maxWalk, SkipDir: skipDir})
			if ctx.Err() != nil {
				return nil, timedOut(opSearchPath, c.Limits.Timeout)
			}
			if err != nil {
				return nil, err
			}
			for _, e := range l.Entries {
				name := "/" + e.Rel
				if skip(name) || !re.MatchString(name) {
					continue
				}
				if !results.Take() {
					break
				}
				found = append(found, escape.Name(name)) // a name cannot forge a line
			}
		}
		if len(found) == 0 {
			return toolkit.Text("No files found matching the pattern"), nil
		}
		text := fmt.Sprintf("Found %d matches:\n%s", len(found), strings.Join(found, "\n"))
		if results.Cut {
			text += fmt.Sprintf("\n(stopped at --max-results %d; narrow the pattern)", results.Max)
		}
		return toolkit.Text(text), nil
	}))
}

// skipDir is the walk's verdict on a directory: nothing below the skipped
// ones is ever reported, so they are not read.
func skipDir(rel string) bool { return skip("/" + rel + "/") }

func skip(name string) bool {
	for _, s := range skipped {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// SearchContent is search_content: lines matching a regular expression,
// in files whose path matches include, at most 20 files and 5 lines each.
func SearchContent() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "search_content",
		Description: "Search for content within files",
		Annotations: toolkit.ReadOnly("Search content"),
	}, func(ctx context.Context, c *toolkit.Call, in contentArgs) (*mcp.CallToolResult, error) {
		if in.Query == "" {
			return nil, toolkit.RPCError(codeInvalidRequest, "Query is required")
		}
		sink := &includeSink{roots: c.Sandbox.Roots()}
		if in.Include != "" {
			re, err := includeRegexp(in.Include)
			if err != nil {
				return nil, fmt.Errorf("invalid include pattern %q: %v", in.Include, err)
			}
			sink.include = re.MatchString
		}
		roots, rootDirs, done, err := c.SearchRoots()
		if err != nil {
			return nil, err
		}
		defer done()
		q := backend.GrepQuery{
			Pattern: in.Query, Paths: roots, Roots: roots, RootDirs: rootDirs, Mode: backend.Content,
			IgnoreCase: in.IgnoreCase == nil || *in.IgnoreCase,
			// peekaboo reads node_modules and the like too.
			NoIgnore: true,
		}
		sink.Collector = backend.NewCollector(backend.Content, 0, 0)
		sink.SetCaps(backend.Caps{PerFile: maxPerFile, Files: maxFiles})
		res, err := sink.Result(backend.Grep(ctx, c.Searcher, q, sink))
		if err != nil {
			return nil, err
		}
		if res.Partial && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, timedOut(opSearchContent, c.Limits.Timeout)
		}
		return toolkit.Text(formatMatches(res.Entries, sink.name)), nil
	})
}

// includeSink passes on only the files whose "/rel" path include accepts.
type includeSink struct {
	*backend.Collector
	roots   []string
	include func(string) bool // nil: every file
}

func (s *includeSink) File(path string) backend.FileSink {
	if s.include != nil && !s.include(s.name(path)) {
		return skipFile{}
	}
	return s.Collector.File(path)
}

// name is a found file as peekaboo names it: "/" and its path from the
// root it is under.
func (s *includeSink) name(path string) string {
	for _, r := range s.roots {
		if rel, ok := sandbox.Within(r, path); ok {
			return "/" + rel
		}
	}
	return path
}

// skipFile takes no lines of a file include left out, and lets the
// search go on.
type skipFile struct{}

func (skipFile) Line(int, []byte, bool) bool { return false }
func (skipFile) End(int) bool                { return true }

// formatMatches is peekaboo's answer: a block per file, its matching
// lines trimmed.
func formatMatches(entries []backend.Entry, name func(string) string) string {
	if len(entries) == 0 {
		return "No matches found"
	}
	var b strings.Builder
	files := 0
	for i, e := range entries {
		if i == 0 || e.Path != entries[i-1].Path {
			files++
		}
	}
	fmt.Fprintf(&b, "Found matches in %d files:\n\n", files)
	for i, e := range entries {
		if i == 0 || e.Path != entries[i-1].Path {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "📄 %s\n", escape.Name(name(e.Path)))
		}
		fmt.Fprintf(&b, "  Line %d: %s\n", e.Line, strings.TrimFunc(string(e.Text), jsSpace))
	}
	b.WriteString("\n")
	return b.String()
}

// jsSpace is what JavaScript's trim removes.
func jsSpace(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' }
