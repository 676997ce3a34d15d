package fsmcp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/toolkit"
)

type globIn struct {
	Pattern   string `json:"pattern" jsonschema:"Glob pattern relative to path, e.g. **/*.go or src/**/*.{ts,tsx} (doublestar syntax)"`
	Path      string `json:"path,omitempty" jsonschema:"Absolute directory to search in (default: every allowed directory)"`
	HeadLimit int    `json:"head_limit,omitempty" jsonschema:"Return at most this many paths (default and maximum 1000)"`
	Offset    int    `json:"offset,omitempty" jsonschema:"Skip this many paths of the whole result first (for paging; the note after a partial list gives the next offset)"`
}

// Glob is fs_glob: files matching a glob, newest first.
func Glob() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_glob",
		Description: "Find files by name: a glob pattern (doublestar: ** crosses directories, {a,b} alternates), relative to path. " +
			"Lists files only, newest modification first, with the same ignore rules as fs_grep (.gitignore, .ignore, .rgignore; .git skipped; hidden files included). " +
			"At most 1000 paths per call; when there are more, a last note gives the total and the offset of the next page (offset, head_limit). No match: No files found.",
		Annotations: toolkit.ReadOnly("Find files by name"),
	}, func(ctx context.Context, c *toolkit.Call, in globIn) (*mcp.CallToolResult, error) {
		pattern, path := toolkit.GlobPattern(in.Pattern), in.Path
		if pattern == "" {
			return nil, toolkit.InvalidParams("pattern is required")
		}
		if filepath.IsAbs(pattern) {
			// An absolute pattern: its static part is the path.
			base, rest := doublestar.SplitPattern(pattern)
			if path != "" && filepath.Clean(path) != filepath.Clean(base) {
				return nil, errors.New("give either an absolute pattern or a path, not both")
			}
			pattern, path = rest, base
		}
		if !doublestar.ValidatePattern(pattern) {
			return nil, fmt.Errorf("invalid glob pattern %q", in.Pattern)
		}
		paths, err := c.SearchPaths(path)
		if fault.KindOf(err) == fault.NotFound {
			return nil, fault.Errorf(fault.NotFound, path, "directory not found: %s", path) // fsMCP's words
		}
		if err != nil {
			return nil, err
		}
		if in.HeadLimit < 0 || in.Offset < 0 {
			return nil, toolkit.InvalidParams("head_limit and offset must not be negative")
		}
		// --max-results bounds every page, as in fs_grep; head_limit can
		// only lower it. The first offset+limit files are kept, in order.
		limit := c.Limits.ResultLimit(in.HeadLimit)
		offset := pageOffset(in.Offset)
		roots, rootDirs, done, err := c.SearchRoots()
		if err != nil {
			return nil, err
		}
		defer done()
		if offset > 0 {
			ctx = backend.LaterPage(ctx) // the result kept from the first page may serve it
		}
		g, err := files.Glob(ctx, c.Searcher, backend.GlobQuery{Pattern: pattern, Paths: paths, Roots: roots, RootDirs: rootDirs, Progress: c.ProgressFunc(ctx)},
			files.GlobOptions{Limit: offset + min(max(limit, 0), math.MaxInt32), Order: files.Newest})
		if err != nil {
			return nil, err
		}
		return toolkit.Text(formatGlob(g, offset, limit, c.Limits, c.Output)), nil
	})
}

// formatGlob shows the page [offset, offset+limit) of g, as many whole
// paths of it as the answer holds, and a note with the next offset.
func formatGlob(g *files.Globbed, offset, limit int, limits toolkit.Limits, out toolkit.AnswerBudget) string {
	partial := fmt.Sprintf("(search stopped early — timeout %s or cancelled — so the list is partial)", limits.Timeout)
	skipped := ""
	if n := backend.SkippedNote(g.TooLong); n != "" {
		skipped = "\n" + n
	}
	switch {
	case g.Total == 0 && !g.Partial:
		return "No files found." + skipped
	case g.Total == 0:
		return "No files found in the part searched.\n" + partial + skipped
	case offset >= g.Total:
		return fmt.Sprintf("(offset %d is past the end: the result has %d matches)", offset, g.Total) + skipped
	}
	page := g.Files[min(offset, len(g.Files)):]
	if limit > 0 && len(page) > limit {
		page = page[:limit]
	}
	lines := make([]string, len(page))
	for i, f := range page {
		lines[i] = escape.Name(f.Path)
	}
	shown := out.Entries().FitLines(lines)
	var b strings.Builder
	b.WriteString(strings.Join(lines[:shown], "\n"))
	last := offset + shown
	var notes []string
	if last < g.Total || offset > 0 {
		n := fmt.Sprintf("(showing %d of %d matches", shown, g.Total) // fsMCP's words, on the first page
		if offset > 0 {
			n = fmt.Sprintf("(showing matches %d-%d of %d", offset+1, last, g.Total)
		}
		if shown < len(page) {
			n += fmt.Sprintf(", cut to stay within %s", out)
		}
		if last < g.Total {
			n += fmt.Sprintf("; pass offset=%d for more", last)
		}
		notes = append(notes, n+")")
	}
	if g.Partial {
		notes = append(notes, partial)
	}
	if skipped != "" {
		notes = append(notes, skipped[1:])
	}
	if n := backend.KeptNote(g.KeptAt); n != "" {
		notes = append(notes, n)
	}
	if len(notes) > 0 {
		b.WriteString("\n\n" + strings.Join(notes, "\n"))
	}
	return b.String()
}
