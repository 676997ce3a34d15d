package localcowork

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/profiles/watches"
	"github.com/fsmcp/fsmcp/toolkit"
	"github.com/fsmcp/fsmcp/watch"
)

type searchIn struct {
	Path       string `json:"path" jsonschema:"Root directory to search"`
	Pattern    string `json:"pattern" jsonschema:"Search pattern (glob or regex)"`
	Type       string `json:"type,omitempty" jsonschema:"Filter by file type" advertise:"enum=file|dir|symlink"`
	MaxResults *int   `json:"max_results,omitempty" jsonschema:"Maximum results to return" advertise:"default=100,minimum=1"` // zod .positive(): minimum 1 for an integer, in every draft
}

// defaultMaxResults is the original's max_results default.
const defaultMaxResults = 100

func searchFiles() toolkit.Tool {
	return toolkit.Searching(toolkit.Bind(&mcp.Tool{Name: "filesystem.search_files", Description: "Search for files matching a pattern", Annotations: toolkit.ReadOnly("Search files")},
		func(ctx context.Context, c *toolkit.Call, in searchIn) (*mcp.CallToolResult, error) {
			switch in.Type {
			case "", "file", "dir", "symlink":
			default:
				return nil, toolkit.RPCError(codeInvalidParams, "Invalid parameters: type: Invalid enum value. Expected 'file' | 'dir' | 'symlink', received '%s'", in.Type)
			}
			max := defaultMaxResults
			if in.MaxResults != nil {
				if *in.MaxResults <= 0 {
					return nil, toolkit.RPCError(codeInvalidParams, "Invalid parameters: max_results: Number must be greater than 0")
				}
				max = *in.MaxResults
			}
			max = c.Limits.ResultLimit(max)
			p, err := resolve(c, "path", in.Path)
			if err != nil {
				return nil, err
			}
			re := searchRegex(in.Pattern)
			entries, err := findLive(ctx, c, p, files.FindOptions{Max: max, Match: func(name string, t files.Type) bool {
				return (in.Type == "" || infoType(t) == in.Type) && re.MatchString(name)
			}})
			if err != nil {
				return nil, mapErr(err, in.Path, "Directory not found: "+in.Path)
			}
			return result(infoOf(entries))
		}))
}

type metadataIn struct {
	Path string `json:"path" jsonschema:"Absolute path to file"`
}

// metadata is get_metadata's answer, in the original's key order.
type metadata struct {
	Size        int64  `json:"size"`
	Created     string `json:"created"`
	Modified    string `json:"modified"`
	Accessed    string `json:"accessed"`
	Type        string `json:"type"` // file, directory or symlink
	Category    string `json:"category"`
	Extension   string `json:"extension"`
	Permissions string `json:"permissions"`
}

func getMetadata() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.get_metadata", Description: "Get detailed metadata for a file", Annotations: toolkit.ReadOnly("Get metadata")},
		func(ctx context.Context, c *toolkit.Call, in metadataIn) (*mcp.CallToolResult, error) {
			p, err := resolve(c, "path", in.Path)
			if err != nil {
				return nil, err
			}
			st, err := files.Stat(p) // follows a symlink inside the roots, as fs.stat does
			if err != nil {
				return nil, mapErr(err, in.Path, "Cannot read metadata: "+in.Path)
			}
			created := st.Birth
			if created.IsZero() {
				created = st.Ctime
			}
			typ := "file"
			switch st.Type {
			case files.TypeDir:
				typ = "directory"
			case files.TypeSymlink:
				typ = "symlink"
			}
			cat := typ
			if st.Type == files.TypeFile {
				cat = category(in.Path)
			}
			return result(metadata{Size: st.Size, Created: isoTime(created), Modified: isoTime(st.Mtime), Accessed: isoTime(st.Atime),
				Type: typ, Category: cat, Extension: nodeExt(in.Path), Permissions: permissions(uint32(st.Mode.Perm()))})
		})
}

type watchIn struct {
	Path       string   `json:"path" jsonschema:"Absolute path to watch"`
	Patterns   []string `json:"patterns,omitempty" jsonschema:"Glob patterns to filter events"`
	CallbackID string   `json:"callback_id" jsonschema:"Unique ID for callback routing"`
}

func watchFolder() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.watch_folder", Description: "Register a filesystem watcher on a directory", Annotations: toolkit.ReadOnly("Watch folder")},
		func(ctx context.Context, c *toolkit.Call, in watchIn) (*mcp.CallToolResult, error) {
			p, err := resolve(c, "path", in.Path)
			if err != nil {
				return nil, err
			}
			if err := watch.ValidPatterns(in.Patterns); err != nil {
				return nil, toolkit.RPCError(codeInvalidParams, "Invalid parameters: patterns: %s", err.Error())
			}
			set, err := watches.Of(c)
			if err != nil {
				return nil, toolkit.RPCError(codeInternal, "Internal error: the session is closing")
			}
			w, err := watch.New(p, watch.Options{Patterns: in.Patterns, OnEvents: watches.Notifier(c.Session())})
			if err != nil {
				return nil, mapErr(err, in.Path, "Directory not found: "+in.Path)
			}
			// A taken callback_id is replaced, as in the original.
			if _, err := set.Add(in.CallbackID, w); err != nil {
				w.Close()
				return nil, toolkit.RPCError(codeInvalidParams, "This session already has %d watchers, the most it may hold", watches.Max)
			}
			return result(map[string]any{"watcher_id": in.CallbackID})
		})
}
