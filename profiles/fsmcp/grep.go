package fsmcp

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/toolkit"
)

// grepIn follows the Claude Code Grep tool's parameter names.
type grepIn struct {
	Pattern      string `json:"pattern" jsonschema:"Regular expression to search file contents for (ripgrep syntax; no look-around or backreferences)"`
	Path         string `json:"path,omitempty" jsonschema:"Absolute file or directory to search (default: every allowed directory)"`
	Glob         string `json:"glob,omitempty" jsonschema:"Only files matching this glob, e.g. *.js or *.{ts,tsx}; a leading ! excludes (rg --glob)"`
	Type         string `json:"type,omitempty" jsonschema:"Only files of this type (rg --type), e.g. go, py, js, rust"`
	OutputMode   string `json:"output_mode,omitempty" jsonschema:"files_with_matches (default: matching file paths), content (matching lines) or count (matches per file)" advertise:"enum=content|files_with_matches|count"` // a model fills an enum better than prose
	IgnoreCase   bool   `json:"-i,omitempty" jsonschema:"Case-insensitive search"`
	LineNumbers  *bool  `json:"-n,omitempty" jsonschema:"Show line numbers (content mode; default true)"`
	After        *int   `json:"-A,omitempty" jsonschema:"Lines of context after each match (content mode)"`
	Before       *int   `json:"-B,omitempty" jsonschema:"Lines of context before each match (content mode)"`
	Context      *int   `json:"-C,omitempty" jsonschema:"Lines of context before and after each match (content mode)"`
	ContextLines *int   `json:"context,omitempty" jsonschema:"Lines of context around matches (content mode only; the same as -C)"`
	Multiline    bool   `json:"multiline,omitempty" jsonschema:"Let the pattern span lines; . also matches newlines"`
	HeadLimit    int    `json:"head_limit,omitempty" jsonschema:"Return at most this many entries (lines, files or counts) of the whole result (default and maximum 1000)"`
	Offset       int    `json:"offset,omitempty" jsonschema:"Skip this many entries of the whole result first (for paging)"`
	FixedStrings bool   `json:"fixed_strings,omitempty" jsonschema:"Treat the pattern as a literal string, not a regex"`
	NoIgnore     bool   `json:"no_ignore,omitempty" jsonschema:"Also search files that .gitignore, .ignore or .rgignore exclude"`
}

// Grep is fs_grep: ripgrep-style content search over the allowed roots.
func Grep() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_grep",
		Description: "Search file contents with a regular expression (ripgrep semantics and syntax). " +
			"Honours .gitignore, .ignore and .rgignore, searches hidden files, skips .git and binary files, does not follow symlinks. " +
			"output_mode: files_with_matches (default) lists paths; content shows path:line:text (context lines path-line-text, groups separated by --); count shows path:count. " +
			"Results are ordered by path and line; head_limit and offset page through the whole result.",
		Annotations: toolkit.ReadOnly("Search file contents"),
	}, func(ctx context.Context, c *toolkit.Call, in grepIn) (*mcp.CallToolResult, error) {
		mode, err := backend.ParseMode(in.OutputMode)
		if err != nil {
			return nil, toolkit.InvalidParams("%v", err)
		}
		if in.Context == nil {
			in.Context = in.ContextLines // fsMCP's name for -C
		}
		for name, v := range map[string]*int{"-A": in.After, "-B": in.Before, "-C": in.Context, "context": in.ContextLines} {
			if v != nil && *v < 0 {
				return nil, toolkit.InvalidParams("%s must not be negative", name)
			}
		}
		if in.HeadLimit < 0 || in.Offset < 0 {
			return nil, toolkit.InvalidParams("head_limit and offset must not be negative")
		}
		paths, err := c.SearchPaths(in.Path)
		if err != nil {
			return nil, err
		}
		roots, rootDirs, done, err := c.SearchRoots()
		if err != nil {
			return nil, err
		}
		defer done()
		q := backend.GrepQuery{
			Pattern: in.Pattern, Paths: paths, Roots: roots, RootDirs: rootDirs,
			IgnoreCase: in.IgnoreCase, FixedStrings: in.FixedStrings, Multiline: in.Multiline, NoIgnore: in.NoIgnore,
			Mode: mode, Progress: c.ProgressFunc(ctx),
		}
		if in.Glob != "" {
			q.Globs = []string{toolkit.GlobPattern(in.Glob)}
		}
		if in.Type != "" {
			q.Types = []string{in.Type}
		}
		if mode == backend.Content {
			if in.Context != nil {
				q.Before, q.After = *in.Context, *in.Context
			}
			if in.Before != nil {
				q.Before = *in.Before
			}
			if in.After != nil {
				q.After = *in.After
			}
		}
		// --max-results bounds every page (and so the memory a search
		// holds); head_limit can only lower it.
		limit := c.Limits.ResultLimit(in.HeadLimit)
		r, err := backend.Run(ctx, c.Searcher, q, pageOffset(in.Offset), limit)
		if fault.KindOf(err) == fault.Invalid {
			return nil, fmt.Errorf("grep error: %v", err) // fsMCP's words for a bad pattern
		}
		if err != nil {
			return nil, err
		}
		lineNumbers := in.LineNumbers == nil || *in.LineNumbers
		opts := backend.FormatOptions{LineNumbers: lineNumbers, Separators: q.Before > 0 || q.After > 0, NoPath: oneFile(paths, r)}
		// Whole entries, as many as the answer budget holds with the note.
		shown, text := budget(c).FitRendered(len(r.Entries), func(k int) string {
			page := *r
			page.Entries = r.Entries[:k]
			return backend.Format(&page, opts)
		})
		if r.Partial && r.Total == 0 {
			text = "No matches found in the part searched."
		}
		return toolkit.Text(text + grepNote(r, shown, c.Limits, c.Output)), nil
	})
}

// pageOffset bounds a paging offset: past any result fsmcp can hold it
// is past the end all the same, and offset+limit must not overflow.
func pageOffset(n int) int { return min(n, math.MaxInt32) }

// oneFile reports whether the search was of one file (not a directory),
// whose lines rg prints without the path: its only path is the path of
// every entry.
func oneFile(paths []string, r *backend.Result) bool {
	if len(paths) != 1 || len(r.Entries) == 0 {
		return false
	}
	for _, e := range r.Entries {
		if e.Path != paths[0] {
			return false
		}
	}
	return true
}

// grepNote says what part of the result was shown (the first shown of
// r.Entries) and the offset of the next page.
func grepNote(r *backend.Result, shown int, limits toolkit.Limits, out toolkit.AnswerBudget) string {
	var notes []string
	unit := map[backend.Mode]string{backend.Content: "lines", backend.Count: "files", backend.FilesWithMatches: "files"}[r.Mode]
	switch {
	case len(r.Entries) == 0 && r.Total > 0:
		notes = append(notes, fmt.Sprintf("(offset %d is past the end: the result has %d %s)", r.Offset, r.Total, unit))
	case shown < r.Total-r.Offset || r.Offset > 0:
		first, last := r.Offset+1, r.Offset+shown
		n := fmt.Sprintf("(showing %s %d-%d of %d", unit, first, last, r.Total)
		if shown < len(r.Entries) {
			n += fmt.Sprintf(", cut to stay within %s", out)
		}
		if last < r.Total {
			n += fmt.Sprintf("; pass offset=%d for more", last)
		}
		notes = append(notes, n+")")
	}
	if r.Partial {
		notes = append(notes, fmt.Sprintf("(search stopped early — timeout %s or cancelled — so the result is partial)", limits.Timeout))
	}
	if n := backend.SkippedNote(r.TooLong); n != "" {
		notes = append(notes, n)
	}
	if n := backend.KeptNote(r.KeptAt); n != "" {
		notes = append(notes, n)
	}
	if len(notes) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(notes, "\n")
}
