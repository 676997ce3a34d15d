package fsmcp

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// errNotAbsolute is fsMCP's refusal of a relative (or empty) file_path.
var errNotAbsolute = fault.New(fault.NotAbsolute, "file_path must be absolute")

// filePath contains fs_write's and fs_edit's file_path, with fsMCP's words
// for one that is not absolute.
func filePath(c *toolkit.Call, path string) (*sandbox.Path, error) {
	p, err := c.Resolve(path)
	if k := fault.KindOf(err); k == fault.NotAbsolute || k == fault.NoPath {
		return nil, errNotAbsolute
	}
	return p, err
}

type writeIn struct {
	FilePath string `json:"file_path" jsonschema:"Absolute path of the file to write"`
	Content  string `json:"content" jsonschema:"The complete new content of the file"`
}

// Write is fs_write: create or replace a file atomically.
func Write() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_write",
		Description: "Write a file, replacing it if it exists. Parent directories are created. " +
			"The write is atomic (temporary file, then rename) and an existing file keeps its permissions.",
		Annotations: toolkit.Writes("Write file", true, true),
	}, func(ctx context.Context, c *toolkit.Call, in writeIn) (*mcp.CallToolResult, error) {
		p, err := filePath(c, in.FilePath)
		if err != nil {
			return nil, err
		}
		if err := files.Write(ctx, p, []byte(in.Content)); err != nil {
			return nil, err
		}
		return toolkit.Text(fmt.Sprintf("Wrote %d bytes to %s", len(in.Content), p.Abs)), nil
	})
}
