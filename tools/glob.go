package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/profile"
)

type globIn struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern relative to path, e.g. **/*.go or src/**/*.{ts,tsx} (doublestar syntax)"`
	Path    string `json:"path,omitempty" jsonschema:"Absolute directory to search in (default: every allowed directory)"`
}

// Glob is fs_glob: files matching a glob, newest first.
func Glob() profile.Tool {
	return profile.Bind(&mcp.Tool{
		Name: "fs_glob",
		Description: "Find files by glob pattern (doublestar: ** crosses directories, {a,b} alternates), relative to path. " +
			"Lists files only, newest modification first, with the same ignore rules as fs_grep (.gitignore, .ignore, .rgignore; .git skipped; hidden files included). " +
			"At most --max-results paths are returned.",
		Annotations: profile.ReadOnly("Find files by name"),
	}, func(ctx context.Context, c *profile.Call, in globIn) (*mcp.CallToolResult, error) {
		pattern, path := in.Pattern, in.Path
		if pattern == "" {
			return nil, profile.InvalidParams("pattern is required")
		}
		if filepath.IsAbs(pattern) {
			// An absolute pattern: its static part is the path.
			base, rest := doublestar.SplitPattern(pattern)
			if path != "" && path != base {
				return nil, errors.New("give either an absolute pattern or a path, not both")
			}
			pattern, path = rest, base
		}
		if !doublestar.ValidatePattern(pattern) {
			return nil, fmt.Errorf("invalid glob pattern %q", in.Pattern)
		}
		paths, err := c.SearchPaths(path)
		if fault.KindOf(err) == fault.NotFound {
			return nil, fmt.Errorf("directory not found: %s", path) // fsMCP's words
		}
		if err != nil {
			return nil, err
		}
		roots, rootDirs, done, err := c.SearchRoots()
		if err != nil {
			return nil, err
		}
		defer done()
		g, err := files.Glob(ctx, c.Searcher, backend.GlobQuery{Pattern: pattern, Paths: paths, Roots: roots, RootDirs: rootDirs, Progress: c.ProgressFunc(ctx)},
			files.GlobOptions{Limit: c.Limits.MaxResults, Order: files.Newest})
		if err != nil {
			return nil, err
		}
		if len(g.Files) == 0 && !g.Partial {
			return profile.Text(""), nil // fsMCP answers no match with an empty text
		}
		if len(g.Files) == 0 {
			return profile.Text(fmt.Sprintf("No files found in the part searched.\n(search stopped early — timeout %s or cancelled — so the list is partial)", c.Limits.Timeout)), nil
		}
		var b strings.Builder
		for i, f := range g.Files {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(escape.Name(f.Path))
		}
		if g.Truncated() {
			fmt.Fprintf(&b, "\n\n(showing %d of %d matches)", len(g.Files), g.Total)
		}
		if g.Partial {
			if !g.Truncated() {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "\n(search stopped early — timeout %s or cancelled — so the list is partial)", c.Limits.Timeout)
		}
		return profile.Text(b.String()), nil
	})
}
