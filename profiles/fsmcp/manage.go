package fsmcp

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

type mkdirIn struct {
	Path string `json:"path" jsonschema:"Absolute path of the directory to create"`
}

// Mkdir is fs_mkdir: create a directory and its parents.
func Mkdir() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "fs_mkdir",
		Description: "Create a directory (mkdir -p): make a new directory or folder, with any missing parents. An existing directory is not an error.",
		Annotations: toolkit.Writes("Create directory", false, true),
	}, func(ctx context.Context, c *toolkit.Call, in mkdirIn) (*mcp.CallToolResult, error) {
		p, err := c.Resolve(in.Path)
		if err != nil {
			return nil, err
		}
		created, err := files.Mkdir(ctx, p)
		if err != nil {
			return nil, err
		}
		if !created {
			return toolkit.Text(fmt.Sprintf("Directory %s already exists", p.Abs)), nil
		}
		return toolkit.Text(fmt.Sprintf("Created directory %s", p.Abs)), nil
	})
}

type transferIn struct {
	Source      string `json:"source" jsonschema:"Absolute path of the file, symlink or directory to take"`
	Destination string `json:"destination" jsonschema:"Absolute path it should have afterwards (not a directory to put it in)"`
	Overwrite   bool   `json:"overwrite,omitempty" jsonschema:"Replace an existing destination of the same kind (default false: an existing destination is an error)"`
}

// Move is fs_move: rename, or copy and delete across roots and devices.
func Move() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_move",
		Description: "Move or rename a file, symlink or directory tree to destination (its new full path; missing parents are created). " +
			"An existing destination is an error unless overwrite. Across allowed directories or file systems it copies, then deletes the source.",
		Annotations: toolkit.Writes("Move", true, false),
	}, func(ctx context.Context, c *toolkit.Call, in transferIn) (*mcp.CallToolResult, error) {
		src, dst, err := resolvePair(c, in)
		if err != nil {
			return nil, err
		}
		if err := files.Move(ctx, src, dst, in.Overwrite); err != nil {
			return nil, err
		}
		return toolkit.Text(fmt.Sprintf("Moved %s to %s", src.Abs, dst.Abs)), nil
	})
}

// Copy is fs_copy: copy a file or tree, keeping modes and mtimes.
func Copy() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_copy",
		Description: "Copy a file, symlink or directory tree to destination (its new full path; missing parents are created), keeping permissions " +
			"and modification times. Symlinks are copied as symlinks, and only when their target stays inside the allowed directories. " +
			"An existing destination is an error unless overwrite. A failed copy leaves nothing behind.",
		Annotations: toolkit.Writes("Copy", true, true),
	}, func(ctx context.Context, c *toolkit.Call, in transferIn) (*mcp.CallToolResult, error) {
		src, dst, err := resolvePair(c, in)
		if err != nil {
			return nil, err
		}
		if err := files.Copy(ctx, src, dst, in.Overwrite); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("copying %s was stopped (cancelled or over --timeout); nothing was written", src.Abs)
			}
			return nil, err
		}
		return toolkit.Text(fmt.Sprintf("Copied %s to %s", src.Abs, dst.Abs)), nil
	})
}

func resolvePair(c *toolkit.Call, in transferIn) (src, dst *sandbox.Path, err error) {
	if src, err = c.Resolve(in.Source); err != nil {
		return nil, nil, err
	}
	if dst, err = c.Resolve(in.Destination); err != nil {
		return nil, nil, err
	}
	return src, dst, nil
}

type deleteIn struct {
	Path      string `json:"path" jsonschema:"Absolute path of the file, symlink or directory to delete"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"Delete a non-empty directory and everything in it (default false)"`
}

// Delete is fs_delete: remove a file, a symlink or a directory.
func Delete() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_delete",
		Description: "Delete a file, a symlink (the link itself, never its target) or a directory. A directory that is not empty needs " +
			"recursive=true. The allowed directories themselves cannot be deleted.",
		Annotations: toolkit.Writes("Delete", true, true), // deleting again changes nothing more
	}, func(ctx context.Context, c *toolkit.Call, in deleteIn) (*mcp.CallToolResult, error) {
		p, err := c.Resolve(in.Path)
		if err != nil {
			return nil, err
		}
		if err := files.Delete(ctx, p, in.Recursive); err != nil {
			return nil, err
		}
		return toolkit.Text(fmt.Sprintf("Deleted %s", p.Abs)), nil
	})
}
