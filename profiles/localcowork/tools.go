package localcowork

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

type listIn struct {
	Path      string `json:"path" jsonschema:"Absolute path to directory"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"List recursively" advertise:"default=false"`
	Filter    string `json:"filter,omitempty" jsonschema:"Glob pattern filter"`
}

func listDir() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.list_dir", Description: "List contents of a directory", Annotations: toolkit.ReadOnly("List directory")},
		func(ctx context.Context, c *toolkit.Call, in listIn) (*mcp.CallToolResult, error) {
			p, err := resolve(c, "path", in.Path)
			if err != nil {
				return nil, err
			}
			opt := files.FindOptions{Depth: 1, Max: c.Limits.MaxResults}
			if in.Recursive {
				opt.Depth = 0
			}
			if in.Filter != "" {
				re := nameGlob(in.Filter, true)
				opt.Match = func(name string, _ files.Type) bool { return re.MatchString(name) }
			}
			entries, err := findLive(ctx, c, p, opt)
			if err != nil {
				return nil, mapErr(err, in.Path, "Directory not found: "+in.Path)
			}
			return result(infoOf(entries))
		})
}

type readIn struct {
	Path     string `json:"path" jsonschema:"Absolute path to file"`
	Encoding string `json:"encoding,omitempty" jsonschema:"File encoding" advertise:"default=utf-8"`
}

func readFile() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.read_file", Description: "Read contents of a file", Annotations: toolkit.ReadOnly("Read file")},
		func(ctx context.Context, c *toolkit.Call, in readIn) (*mcp.CallToolResult, error) {
			p, err := resolve(c, "path", in.Path)
			if err != nil {
				return nil, err
			}
			w, err := files.NewLoadBudget(c.Limits.WholeReads()).ReadWhole(p)
			if err != nil {
				return nil, mapErr(err, in.Path, "Cannot read file: "+in.Path)
			}
			text, ok := decodeText(w.Data, in.Encoding)
			if !ok {
				return nil, toolkit.RPCError(codeInvalidParams, "Unknown encoding: %s", in.Encoding)
			}
			return result(struct {
				Content string `json:"content"`
				Size    int    `json:"size"`
			}{text, len(w.Data)})
		})
}

type writeIn struct {
	Path     string `json:"path" jsonschema:"Absolute path to write"`
	Content  string `json:"content" jsonschema:"Content to write"`
	Encoding string `json:"encoding,omitempty" jsonschema:"File encoding" advertise:"default=utf-8"`
}

func writeFile() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.write_file", Description: "Write content to a file", Annotations: toolkit.Writes("Write file", true, false)},
		func(ctx context.Context, c *toolkit.Call, in writeIn) (*mcp.CallToolResult, error) {
			p, err := resolve(c, "path", in.Path)
			if err != nil {
				return nil, err
			}
			data, ok := encodeText(in.Content, in.Encoding)
			if !ok {
				return nil, toolkit.RPCError(codeInvalidParams, "Cannot encode the content as %s", in.Encoding)
			}
			if err := files.Write(ctx, p, data); err != nil { // parents made
				return nil, writeErr(err, in.Path)
			}
			return result(saved{true, in.Path})
		})
}

// writeErr is the original's "Failed to write file: ..." for failures
// that are not a refusal.
func writeErr(err error, path string) error {
	switch fault.KindOf(err) {
	case fault.Outside, fault.Permission:
		return mapErr(err, path, "")
	}
	return toolkit.RPCError(codeInternal, "Failed to write file: %s", err.Error())
}

type moveIn struct {
	Source      string `json:"source" jsonschema:"Absolute path of file to move"`
	Destination string `json:"destination" jsonschema:"Absolute path of destination"`
	CreateDirs  *bool  `json:"create_dirs,omitempty" jsonschema:"Create parent directories if missing" advertise:"default=true"`
}

func moveFile() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.move_file", Description: "Move a file from source to destination. Requires user confirmation.", Annotations: toolkit.Writes("Move file", true, false)},
		func(ctx context.Context, c *toolkit.Call, in moveIn) (*mcp.CallToolResult, error) {
			src, dst, err := resolvePair(c, in.Source, in.Destination)
			if err != nil {
				return nil, err
			}
			// rename(2) replaces an existing file, as the original's does;
			// parents are made unless create_dirs is false.
			err = files.MoveWith(ctx, src, dst, files.MoveOptions{Overwrite: true, MakeParents: in.CreateDirs == nil || *in.CreateDirs})
			var np *files.NoParentError
			switch {
			case err == nil:
			case errors.As(err, &np):
				return nil, toolkit.RPCError(codeInternal, "Failed to move file: the directory of %s does not exist (create_dirs is false)", in.Destination)
			case fault.KindOf(err) == fault.NotFound && fault.PathOf(err) == src.Abs:
				return nil, mapErr(err, in.Source, "Source not found: "+in.Source)
			default:
				return nil, transferErr(err, in.Source, in.Destination, "move")
			}
			return result(struct {
				Success      bool   `json:"success"`
				OriginalPath string `json:"original_path"`
				NewPath      string `json:"new_path"`
			}{true, in.Source, in.Destination})
		})
}

// transferErr maps a move's or copy's failure: a refusal keeps its code,
// the rest is the original's "Failed to <verb> file: ...".
func transferErr(err error, src, dst, verb string) error {
	switch fault.KindOf(err) {
	case fault.Outside:
		p := fault.PathOf(err)
		if p == "" {
			p = src
		}
		return outside(p)
	case fault.NotFound:
		return toolkit.RPCError(codeNotFound, "Source not found: %s", src)
	case fault.Permission:
		return mapErr(err, src, "")
	}
	return toolkit.RPCError(codeInternal, "Failed to %s file: %s", verb, err.Error())
}

// resolvePair resolves a move's or copy's "source" and "destination".
func resolvePair(c *toolkit.Call, source, destination string) (src, dst *sandbox.Path, err error) {
	if src, err = resolve(c, "source", source); err != nil {
		return nil, nil, err
	}
	if dst, err = resolve(c, "destination", destination); err != nil {
		return nil, nil, err
	}
	return src, dst, nil
}

type copyIn struct {
	Source      string `json:"source" jsonschema:"Absolute path of file to copy"`
	Destination string `json:"destination" jsonschema:"Absolute path of destination"`
}

func copyFile() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.copy_file", Description: "Copy a file to a new location", Annotations: toolkit.Writes("Copy file", true, false)},
		func(ctx context.Context, c *toolkit.Call, in copyIn) (*mcp.CallToolResult, error) {
			src, dst, err := resolvePair(c, in.Source, in.Destination)
			if err != nil {
				return nil, err
			}
			st, err := files.Stat(src)
			if err != nil {
				return nil, mapErr(err, in.Source, "Source not found: "+in.Source)
			}
			if st.Type != files.TypeFile {
				return nil, toolkit.RPCError(codeInvalidParams, "Not a file: %s", in.Source)
			}
			// copyFile(2) replaces an existing file, as the original's does.
			if err := files.Copy(ctx, src, dst, true); err != nil {
				return nil, transferErr(err, in.Source, in.Destination, "copy")
			}
			return result(saved{true, in.Destination})
		})
}

type deleteIn struct {
	Path string `json:"path" jsonschema:"Absolute path of file to delete"`
}

func deleteFile() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{Name: "filesystem.delete_file", Description: "Delete a file. Moves to .localcowork/trash/ for recovery.", Annotations: toolkit.Writes("Delete file", true, false)},
		func(ctx context.Context, c *toolkit.Call, in deleteIn) (*mcp.CallToolResult, error) {
			p, err := resolve(c, "path", in.Path)
			if err != nil {
				return nil, err
			}
			if _, err := files.Trash(ctx, p, trashDir(c), time.Now(), c.Sandbox, c.Default); err != nil {
				switch fault.KindOf(err) {
				case fault.NotDir:
					return nil, toolkit.RPCError(codeInvalidParams, "Not a file: %s", in.Path)
				case fault.NotFound, fault.Outside, fault.Permission:
					return nil, mapErr(err, in.Path, "File not found: "+in.Path)
				}
				return nil, toolkit.RPCError(codeInternal, "Failed to delete file: %s", err.Error())
			}
			return result(map[string]any{"success": true})
		})
}

// trashDir is $LOCALCOWORK_DATA_DIR/trash, or ~/.localcowork/trash as the
// original defaults (the host always sets the variable).
func trashDir(c *toolkit.Call) string {
	dir := c.Var("LOCALCOWORK_DATA_DIR")
	if dir == "" {
		dir = c.Var("HOME") + "/.localcowork"
	}
	return dir + "/trash"
}

// saved is write_file's and copy_file's answer, in the original's key order.
type saved struct {
	Success bool   `json:"success"`
	Path    string `json:"path"`
}
