package fsmcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/toolkit"
)

// maxIgnoredShown bounds the skipped directories named in fs_list's note.
const maxIgnoredShown = 10

type listIn struct {
	Path           string `json:"path" jsonschema:"Absolute path of the directory to list"`
	Depth          int    `json:"depth,omitempty" jsonschema:"Levels to descend: 1 (the default) lists the directory's own entries"`
	Filter         string `json:"filter,omitempty" jsonschema:"Glob (doublestar: *, **, ?, [..], {a,b}) an entry's name or relative path must match; directories are still descended"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema:"Also descend into directories that .gitignore excludes (.git is always skipped)"`
}

// List is fs_list: a directory's entries with type, size and mtime.
func List() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_list",
		Description: "List a directory: one line per entry with its type, size in bytes, modification time and path relative to the directory " +
			"(directories end in " + sep + ", symlinks show their target and are not followed). depth descends into subdirectories; " +
			".git and gitignored directories are skipped unless include_ignored. At most 1000 entries per call; a last note says how many were left out.",
		Annotations: toolkit.ReadOnly("List directory"),
	}, func(ctx context.Context, c *toolkit.Call, in listIn) (*mcp.CallToolResult, error) {
		if in.Depth < 0 {
			return nil, errors.New("depth must be 1 or more")
		}
		p, err := c.Resolve(in.Path)
		if err != nil {
			return nil, err
		}
		l, err := files.List(ctx, p, files.ListOptions{
			Depth: in.Depth, Filter: toolkit.GlobPattern(in.Filter), IncludeIgnored: in.IncludeIgnored, Max: c.Limits.MaxResults,
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("listing %s took longer than the time limit (--timeout); use a smaller depth", p.Abs)
			}
			return nil, err
		}
		return toolkit.Text(formatListing(l, in.Filter, c.Output)), nil
	})
}

// formatListing shows as many whole entries as an answer within out
// holds, then notes what was left out.
func formatListing(l *files.Listing, filter string, out toolkit.AnswerBudget) string {
	var b strings.Builder
	width := 1
	for _, e := range l.Entries {
		width = max(width, len(strconv.FormatInt(e.Size, 10)))
	}
	rows := make([]string, len(l.Entries))
	for i, e := range l.Entries {
		size := "-"
		if e.Type == files.TypeFile {
			size = strconv.FormatInt(e.Size, 10)
		}
		name := escape.Name(filepath.FromSlash(e.Rel)) // a name cannot forge a line
		switch e.Type {
		case files.TypeDir:
			name += sep
		case files.TypeSymlink:
			name += " -> " + escape.Name(e.Link)
		}
		rows[i] = fmt.Sprintf("%-9s %*s  %s  %s", e.Type, width, size, e.ModTime.Format(time.RFC3339), name)
	}
	shown := out.Entries().FitLines(rows)
	for _, r := range rows[:shown] {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	switch {
	case l.Total == 0 && filter != "":
		fmt.Fprintf(&b, "(no entries match %q)\n", filter)
	case l.Total == 0:
		b.WriteString("(empty directory)\n")
	case shown < l.Total:
		cut := ""
		if shown < len(rows) {
			cut = fmt.Sprintf(", cut to stay within %s", out)
		}
		fmt.Fprintf(&b, "\n(showing %d of %d entries%s, %d left out; narrow with filter, or list a subdirectory or a smaller depth)\n", shown, l.Total, cut, l.Total-shown)
	}
	if n := l.IgnoredTotal; n > 0 {
		shown := l.Ignored[:min(n, maxIgnoredShown)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(" and %d more", n-len(shown))
		}
		fmt.Fprintf(&b, "(skipped %d gitignored director%s: %s%s%s; pass include_ignored=true to list them)\n",
			n, plural(n, "y", "ies"), strings.Join(escapeAll(shown), sep+", "), sep, more)
	}
	if n := len(l.Unreadable); n > 0 {
		shown := l.Unreadable[:min(n, maxIgnoredShown)]
		fmt.Fprintf(&b, "(could not read %d director%s: %s%s)\n", n, plural(n, "y", "ies"), strings.Join(escapeAll(shown), sep+", "), sep)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sep is what fs_list puts between the names of a relative path and after
// a directory's: the system's separator, as every other tool prints paths
// (\ on Windows).
const sep = string(filepath.Separator)

// escapeAll is escape.Name of each slash path, in the system's form.
func escapeAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = escape.Name(filepath.FromSlash(n))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
