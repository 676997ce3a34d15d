package tools

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/internal/escape"
)

type globIn struct {
	Pattern string `json:"pattern" jsonschema:"Glob pattern relative to path, e.g. **/*.go or src/**/*.{ts,tsx} (doublestar syntax)"`
	Path    string `json:"path,omitempty" jsonschema:"Absolute directory to search in (default: every allowed directory)"`
}

// Glob is fs_glob: files matching a glob, newest first.
func Glob() Tool {
	return newTool(&mcp.Tool{
		Name: "fs_glob",
		Description: "Find files by glob pattern (doublestar: ** crosses directories, {a,b} alternates), relative to path. " +
			"Lists files only, newest modification first, with the same ignore rules as fs_grep (.gitignore, .ignore, .rgignore; .git skipped; hidden files included). " +
			"At most --max-results paths are returned.",
		Annotations: readOnly("Find files by name"),
	}, func(ctx context.Context, c *Call, in globIn) (*mcp.CallToolResult, error) {
		pattern, path := in.Pattern, in.Path
		if pattern == "" {
			return nil, invalidParams("pattern is required")
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
		paths, err := c.searchPaths(path)
		if err != nil {
			return nil, err
		}
		limit := c.Limits.MaxResults
		if limit <= 0 {
			limit = 1000
		}
		h := &newestFirst{}
		total := 0
		err = c.Searcher.Glob(ctx, backend.GlobQuery{Pattern: pattern, Paths: paths, Roots: c.Sandbox.Roots(), Progress: c.progressFunc(ctx)}, func(f backend.File) error {
			total++
			if h.Len() < limit {
				heap.Push(h, f)
			} else if newer(f, (*h)[0]) {
				(*h)[0] = f
				heap.Fix(h, 0)
			}
			return nil
		})
		partial := false
		if err != nil {
			if ctx.Err() == nil {
				return nil, err
			}
			partial = true
		}
		files := []backend.File(*h)
		sort.Slice(files, func(i, j int) bool { return newer(files[i], files[j]) })
		if len(files) == 0 && !partial {
			return textResult("No files found."), nil
		}
		if len(files) == 0 {
			return textResult(fmt.Sprintf("No files found in the part searched.\n(search stopped early — timeout %s or cancelled — so the list is partial)", c.Limits.Timeout)), nil
		}
		var b strings.Builder
		for i, f := range files {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(escape.Name(f.Path))
		}
		if total > len(files) {
			fmt.Fprintf(&b, "\n(showing %d of %d matches)", len(files), total)
		}
		if partial {
			fmt.Fprintf(&b, "\n(search stopped early — timeout %s or cancelled — so the list is partial)", c.Limits.Timeout)
		}
		return textResult(b.String()), nil
	})
}

// newer orders files newest first, then by path.
func newer(a, b backend.File) bool {
	if !a.ModTime.Equal(b.ModTime) {
		return a.ModTime.After(b.ModTime)
	}
	return a.Path < b.Path
}

// newestFirst is a heap whose root is the oldest kept file, so the newest
// --max-results files are kept in bounded memory.
type newestFirst []backend.File

func (h newestFirst) Len() int           { return len(h) }
func (h newestFirst) Less(i, j int) bool { return newer(h[j], h[i]) }
func (h newestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *newestFirst) Push(x any)        { *h = append(*h, x.(backend.File)) }
func (h *newestFirst) Pop() any {
	old := *h
	f := old[len(old)-1]
	*h = old[:len(old)-1]
	return f
}
