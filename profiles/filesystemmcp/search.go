package filesystemmcp

import (
	"context"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

// contextLines is how many lines search_files shows around a match.
const contextLines = 2

// regexFlags ends the original's "/pattern/flags" form (taken only when
// the regex also starts with "/": the original cut "a/g" to "").
var regexFlags = regexp.MustCompile(`/([gimyus]+)$`)

type searchArgs struct {
	Path        string `json:"path,omitempty" jsonschema:"Relative path of the directory to search in." advertise:"default=."`
	Regex       string `json:"regex" jsonschema:"The regex pattern to search for."`
	FilePattern string `json:"file_pattern,omitempty" jsonschema:"Glob pattern to filter files (e.g., '*.ts'). Defaults to all files ('*')." advertise:"default=*"`
}

type searchResult struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Match   string   `json:"match"`
	Context []string `json:"context"`
}

// SearchFiles is search_files: every match of a regular expression in
// the files file_pattern picks below path (a pattern without "/" only
// those directly in it, as the original's glob), with two lines of
// context; node_modules is skipped.
func SearchFiles() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "search_files",
		Description: "Search for a regex pattern within files in a specified directory (read-only).",
		Annotations: toolkit.ReadOnly("Search files"),
	}, func(ctx context.Context, c *toolkit.Call, in searchArgs) (*mcp.CallToolResult, error) {
		if in.Regex == "" {
			return nil, invalidArgs("regex", "Regex pattern cannot be empty")
		}
		if strings.TrimSpace(in.Regex) == "" {
			return nil, toolkit.RPCError(jsonrpc.CodeInvalidParams, "Missing or invalid required parameter: regex")
		}
		pattern, flags := in.Regex, ""
		if loc := regexFlags.FindStringSubmatchIndex(in.Regex); loc != nil && loc[0] > 0 && in.Regex[0] == '/' {
			flags = in.Regex[loc[2]:loc[3]]
			pattern = in.Regex[1:loc[0]]
		}
		ignoreCase, global := strings.Contains(flags, "i"), strings.Contains(flags, "g")
		expr := pattern
		if ignoreCase {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, toolkit.RPCError(jsonrpc.CodeInvalidParams, "Invalid regex pattern: %v", err)
		}
		rel := in.Path
		if rel == "" {
			rel = "."
		}
		if _, err := resolve(c, rel); err != nil {
			return nil, err
		}
		dirs, err := c.SearchPaths(rel)
		if fault.KindOf(err) == fault.NotFound {
			return jsonText([]searchResult{})
		} else if err != nil {
			return nil, toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to search files: %v", err)
		}
		glob := in.FilePattern
		if glob == "" {
			glob = "*"
		}
		roots, rootDirs, done, err := c.SearchRoots()
		if err != nil {
			return nil, toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to search files: %v", err)
		}
		defer done()
		q := backend.GrepQuery{
			Pattern: pattern, Paths: dirs, Roots: roots, RootDirs: rootDirs, IgnoreCase: ignoreCase, Mode: backend.Content,
			Globs: []string{"/" + strings.TrimPrefix(glob, "/"), "!**/node_modules/**"},
			// The original's glob reads what .gitignore hides, hidden files too.
			NoIgnore: true, Before: contextLines, After: contextLines,
		}
		res, err := backend.Run(ctx, c.Searcher, q, 0, c.Limits.MaxResults*(2*contextLines+1))
		if err != nil {
			return nil, toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to search files: %v", err)
		}
		if res.Partial {
			return nil, toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to search files: %v", ctx.Err())
		}
		return jsonText(matches(res.Entries, re, global, func(p string) string {
			r, err := filepath.Rel(dirs[0], p)
			if err != nil {
				return p
			}
			return path.Clean(path.Join(slash(rel), filepath.ToSlash(r)))
		}, func(abs string) bool { return endsWithNewline(c, abs) }, c.Limits.MaxResults))
	})
}

// matches turns a content search's lines into the original's results:
// one per match (every match of the line with the g flag, else the
// first), with the lines around it. Those are JavaScript's
// split("\n") of the file, so a file ending in a newline has one more,
// empty, "line" after its last: finalNL says whether a file does (asked
// only for a match near the end).
func matches(entries []backend.Entry, re *regexp.Regexp, global bool, name func(string) string, finalNL func(string) bool, max int) []searchResult {
	out := []searchResult{}
	for start := 0; start < len(entries); {
		end := start
		lines := map[int]string{}
		for end < len(entries) && entries[end].Path == entries[start].Path {
			lines[entries[end].Line] = string(entries[end].Text)
			end++
		}
		file := name(entries[start].Path)
		tail := 0 // 1: the file ends in a newline, 2: it does not, 0: not asked yet
		for _, e := range entries[start:end] {
			if e.Context {
				continue
			}
			n := 1
			if global {
				n = -1
			}
			for _, m := range re.FindAllString(string(e.Text), n) {
				if max > 0 && len(out) == max {
					return out
				}
				ctx := []string{}
				for l := e.Line - contextLines; l <= e.Line+contextLines; l++ {
					if text, ok := lines[l]; ok {
						ctx = append(ctx, text)
					} else if l > e.Line {
						// l-1 is the file's last line.
						if tail == 0 {
							tail = 2
							if finalNL(entries[start].Path) {
								tail = 1
							}
						}
						if tail == 1 {
							ctx = append(ctx, "")
						}
						break
					}
				}
				out = append(out, searchResult{File: file, Line: e.Line, Match: m, Context: ctx})
			}
		}
		start = end
	}
	return out
}

// endsWithNewline reports whether the file at abs (a search hit, so not
// empty, inside the roots) ends in a newline: its last "\n"-piece is then
// empty, which Tail finds in the file's last block (a last line longer
// than that is refused: no newline at the end).
func endsWithNewline(c *toolkit.Call, abs string) bool {
	p, err := c.ResolveFound(abs)
	if err != nil {
		return false
	}
	last, err := files.Tail(p, 1, 1)
	return err == nil && last == ""
}
