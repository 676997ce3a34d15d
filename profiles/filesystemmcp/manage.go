package filesystemmcp

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

type deleteArgs struct {
	Paths []string `json:"paths" jsonschema:"An array of relative paths (files or directories) to delete."`
}

type deleteResult struct {
	Path    string `json:"path"`
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty"`
}

// DeleteItems is delete_items: files and whole trees; a missing path is a
// plain success, as the original's fs.rm({force: true}) made it (its
// "Path not found" note was never reached).
func DeleteItems() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "delete_items",
		Description: "Delete multiple specified files or directories.",
		Annotations: toolkit.Writes("Delete items", true, true),
	}, func(ctx context.Context, c *toolkit.Call, in deleteArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("paths", "Paths", in.Paths); err != nil {
			return nil, err
		}
		out := []deleteResult{}
		for _, rel := range in.Paths {
			r := deleteResult{Path: slash(rel)}
			p, err := resolve(c, rel)
			switch {
			case err == nil && p.IsRoot():
				r.Error = "Deleting the project root is not allowed."
			case err == nil:
				err = files.Delete(ctx, p, true)
			}
			switch {
			case err == nil && r.Error == "", fault.KindOf(err) == fault.NotFound:
				r.Success = true
			case err != nil:
				r.Error = failure(err, "", "Failed to delete: ")
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

type mkdirArgs struct {
	Paths []string `json:"paths" jsonschema:"An array of relative directory paths to create."`
}

type mkdirResult struct {
	Path         string `json:"path"`
	Success      bool   `json:"success"`
	Note         string `json:"note,omitempty"`
	Error        string `json:"error,omitempty"`
	ResolvedPath string `json:"resolvedPath"`
}

// CreateDirectories is create_directories: each directory and its
// parents; one that exists is a success.
func CreateDirectories() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "create_directories",
		Description: "Create multiple specified directories (including intermediate ones).",
		Annotations: toolkit.Writes("Create directories", false, true),
	}, func(ctx context.Context, c *toolkit.Call, in mkdirArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("paths", "Paths", in.Paths); err != nil {
			return nil, err
		}
		out := []mkdirResult{}
		for _, rel := range in.Paths {
			r := mkdirResult{Path: slash(rel), ResolvedPath: "Resolution failed"}
			p, err := resolve(c, rel)
			if err == nil {
				r.ResolvedPath = p.Abs
				if p.IsRoot() {
					r.Error = "Creating the project root is not allowed."
				} else {
					_, err = files.Mkdir(ctx, p)
				}
			}
			switch {
			case err == nil && r.Error == "":
				r.Success = true
			case fault.KindOf(err) == fault.NotDir || fault.KindOf(err) == fault.Exists:
				r.Error = "Path exists but is not a directory"
			case fault.KindOf(err) == fault.Permission:
				r.Error = "Permission denied creating directory: " + err.Error()
			case err != nil:
				r.Error = failure(err, "Failed to create directory: "+err.Error(), "Failed to create directory: ")
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

// octalMode is the original's check on chmod_items' mode.
var octalMode = regexp.MustCompile(`^[0-7]{3,4}$`)

type chmodArgs struct {
	Paths []string `json:"paths" jsonschema:"An array of relative paths."`
	Mode  string   `json:"mode" jsonschema:"The permission mode as an octal string (e.g., '755', '644')."`
}

type chmodResult struct {
	Path    string `json:"path"`
	Success bool   `json:"success"`
	Mode    string `json:"mode,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ChmodItems is chmod_items: one octal mode on every path.
func ChmodItems() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "chmod_items",
		Description: "Change permissions mode for multiple specified files/directories (POSIX-style).",
		Annotations: toolkit.Writes("Change modes", false, true),
	}, func(ctx context.Context, c *toolkit.Call, in chmodArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("paths", "Paths", in.Paths); err != nil {
			return nil, err
		}
		if !octalMode.MatchString(in.Mode) {
			return nil, invalidArgs("mode", "Mode must be an octal string like '755' or '0755'")
		}
		mode, _ := strconv.ParseUint(in.Mode, 8, 32)
		out := []chmodResult{}
		for _, rel := range in.Paths {
			r := chmodResult{Path: slash(rel)}
			p, err := resolve(c, rel)
			switch {
			case err == nil && p.IsRoot():
				r.Error = "Changing permissions of the project root is not allowed."
			case err == nil:
				err = files.Chmod(ctx, p, fs.FileMode(mode))
			}
			switch {
			case err == nil && r.Error == "":
				r.Success, r.Mode = true, in.Mode
			case err != nil:
				r.Error = failure(err, "Path not found", "Failed to change mode: ")
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

type chownArgs struct {
	Paths []string `json:"paths" jsonschema:"An array of relative paths."`
	UID   int      `json:"uid" jsonschema:"User ID."`
	GID   int      `json:"gid" jsonschema:"Group ID."`
}

type chownResult struct {
	Path    string `json:"path"`
	Success bool   `json:"success"`
	UID     *int   `json:"uid,omitempty"`
	GID     *int   `json:"gid,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ChownItems is chown_items: one owner and group on every path.
func ChownItems() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "chown_items",
		Description: "Change owner (UID) and group (GID) for multiple specified files/directories.",
		Annotations: toolkit.Writes("Change owners", false, true),
	}, func(ctx context.Context, c *toolkit.Call, in chownArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("paths", "Paths", in.Paths); err != nil {
			return nil, err
		}
		out := []chownResult{}
		for _, rel := range in.Paths {
			r := chownResult{Path: slash(rel)}
			p, err := resolve(c, rel)
			switch {
			case err == nil && p.IsRoot():
				r.Error = "Changing ownership of the project root is not allowed."
			case err == nil:
				err = files.Chown(ctx, p, in.UID, in.GID)
			}
			switch {
			case err == nil && r.Error == "":
				r.Success, r.UID, r.GID = true, &in.UID, &in.GID
			case fault.KindOf(err) == fault.Permission:
				r.Error = "Operation not permitted (Permissions or unsupported on OS)"
			case err != nil:
				r.Error = failure(err, "Path not found", "Failed to change ownership: ")
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

type transferOp struct {
	Source      string `json:"source" jsonschema:"Relative path of the source."`
	Destination string `json:"destination" jsonschema:"Relative path of the destination."`
}

type transferArgs struct {
	Operations []transferOp `json:"operations" jsonschema:"Array of {source, destination} objects."`
}

type transferResult struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
	Success     bool   `json:"success"`
	Error       string `json:"error,omitempty"`
}

// MoveItems is move_items: renames (a copy and delete across file
// systems), destination parents created, a file destination replaced.
func MoveItems() toolkit.Tool {
	return transferTool("move_items", "Move or rename multiple specified files/directories.", "Move items", "move", "Moving",
		func(ctx context.Context, src, dst *sandbox.Path, overwrite bool) error {
			return files.Move(ctx, src, dst, overwrite)
		})
}

// CopyItems is copy_items: files and trees copied, destination parents
// created, an existing destination replaced.
func CopyItems() toolkit.Tool {
	return transferTool("copy_items", "Copy multiple specified files/directories.", "Copy items", "copy", "Copying",
		func(ctx context.Context, src, dst *sandbox.Path, overwrite bool) error {
			return files.Copy(ctx, src, dst, overwrite)
		})
}

func transferTool(name, desc, title, verb, doing string, run func(ctx context.Context, src, dst *sandbox.Path, overwrite bool) error) toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        name,
		Description: desc,
		Annotations: toolkit.Writes(title, true, false),
	}, func(ctx context.Context, c *toolkit.Call, in transferArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("operations", "Operations", in.Operations); err != nil {
			return nil, err
		}
		out := []transferResult{}
		for _, op := range in.Operations {
			r := transferResult{Source: slash(op.Source), Destination: slash(op.Destination)}
			err := transfer(ctx, c, op, verb == "move", run)
			switch {
			case err == errRootTransfer:
				r.Error = doing + " the project root is not allowed."
			case err == nil:
				r.Success = true
			case fault.KindOf(err) == fault.Permission:
				r.Error = fmt.Sprintf("Permission denied %s '%s' to '%s'.", strings.ToLower(doing), op.Source, op.Destination)
			default:
				r.Error = failure(err, "Source path not found: "+op.Source, "Failed to "+verb+" item: ")
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

var errRootTransfer = fault.New(fault.Invalid, "the project root cannot be moved or copied")

// transfer resolves both ends and runs the move or copy. A destination
// that is a directory is not replaced by a move (rename(2) would refuse a
// full one); a file is.
func transfer(ctx context.Context, c *toolkit.Call, op transferOp, move bool, run func(context.Context, *sandbox.Path, *sandbox.Path, bool) error) error {
	src, err := resolve(c, op.Source)
	if err != nil {
		return err
	}
	dst, err := resolve(c, op.Destination)
	if err != nil {
		return err
	}
	if src.IsRoot() {
		return errRootTransfer
	}
	overwrite := true
	if move {
		if info, err := files.Stat(dst); err == nil && info.Type == files.TypeDir {
			overwrite = false
		}
	}
	return run(ctx, src, dst, overwrite)
}
