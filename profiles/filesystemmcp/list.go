package filesystemmcp

import (
	"context"
	"path"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

// treeDepth is how deep a recursive list_files goes.
const treeDepth = 256

type listArgs struct {
	Path         string `json:"path,omitempty" jsonschema:"Relative path of the directory." advertise:"default=."`
	Recursive    bool   `json:"recursive,omitempty" jsonschema:"List directories recursively." advertise:"default=false"`
	IncludeStats bool   `json:"include_stats,omitempty" jsonschema:"Include detailed stats for each listed item." advertise:"default=false"`
}

// listed is one entry of list_files with include_stats.
type listed struct {
	Path  string `json:"path"`
	Stats any    `json:"stats,omitempty"`
}

type statError struct {
	Error string `json:"error"`
}

// ListFiles is list_files: a directory's entries ("dir/" for
// directories), with stats on request; a file's stats.
func ListFiles() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "list_files",
		Description: "List files/directories. Can optionally include stats and list recursively.",
		Annotations: toolkit.ReadOnly("List files"),
	}, func(ctx context.Context, c *toolkit.Call, in listArgs) (*mcp.CallToolResult, error) {
		rel := in.Path
		if rel == "" {
			rel = "."
		}
		p, err := resolve(c, rel)
		if err != nil {
			return nil, err
		}
		info, err := files.Stat(p)
		switch {
		case fault.KindOf(err) == fault.NotFound:
			return nil, toolkit.RPCError(jsonrpc.CodeInvalidRequest, "Path not found: %s", rel)
		case fault.KindOf(err) == fault.Outside:
			return nil, errTraversal
		case err != nil:
			return nil, toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to process path: %v", err)
		}
		if info.Type != files.TypeDir {
			return jsonText(formatStats(rel, info))
		}
		depth := 1
		if in.Recursive {
			depth = treeDepth
		}
		l, err := files.List(ctx, p, files.ListOptions{Depth: depth, IncludeIgnored: true, Max: c.Limits.MaxResults})
		if err != nil {
			return nil, toolkit.RPCError(jsonrpc.CodeInternalError, "Failed to process path: %v", err)
		}
		names := []string{}
		items := []listed{}
		for _, e := range l.Entries {
			name := slash(path.Join(rel, e.Rel))
			display := name
			if e.Type == files.TypeDir {
				display += "/"
			}
			names = append(names, display)
			if in.IncludeStats {
				item := listed{Path: display}
				if st, err := files.Stat(p.Join(e.Rel)); err != nil {
					item.Stats = statError{"Could not get stats: " + err.Error()}
				} else {
					item.Stats = formatStats(name, st)
					if st.Type == files.TypeDir && e.Type != files.TypeDir {
						item.Path += "/" // a link to a directory, as fs.stat sees it
					}
				}
				items = append(items, item)
			}
		}
		if in.IncludeStats {
			return jsonText(items)
		}
		return jsonText(names)
	})
}

type pathsArgs struct {
	Paths []string `json:"paths" jsonschema:"An array of relative paths (files or directories) to get status for."`
}

type statResult struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Stats  *stats `json:"stats,omitempty"`
	Error  string `json:"error,omitempty"`
}

// StatItems is stat_items: each path's stats or its error.
func StatItems() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "stat_items",
		Description: "Get detailed status information for multiple specified paths.",
		Annotations: toolkit.ReadOnly("Stat items"),
	}, func(ctx context.Context, c *toolkit.Call, in pathsArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("paths", "Paths", in.Paths); err != nil {
			return nil, err
		}
		out := []statResult{}
		for _, rel := range in.Paths {
			r := statResult{Path: slash(rel), Status: "success"}
			info, err := statPath(c, rel)
			if err != nil {
				r.Status = "error"
				r.Error = failure(err, "Path not found", "Failed to get stats: ")
			} else {
				r.Stats = formatStats(rel, info)
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

func statPath(c *toolkit.Call, rel string) (*files.StatInfo, error) {
	p, err := resolve(c, rel)
	if err != nil {
		return nil, err
	}
	return files.Stat(p)
}

// failure words an item's error the original's way: a coded error as
// McpError prints it, not found as notFound, the rest prefix + message.
func failure(err error, notFound, prefix string) string {
	if fault.KindOf(err) == fault.Outside { // a symlink out of the root
		err = errTraversal
	}
	if s, ok := itemError(err); ok {
		return s
	}
	if fault.KindOf(err) == fault.NotFound {
		return notFound
	}
	return prefix + err.Error()
}
