package fsmcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

// errNotAbsolute is fsMCP's refusal of a relative file_path.
var errNotAbsolute = errors.New("file_path must be absolute")

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
		if !filepath.IsAbs(in.FilePath) {
			return nil, errNotAbsolute // fsMCP's words for fs_write and fs_edit
		}
		p, err := c.Resolve(in.FilePath)
		if err != nil {
			return nil, err
		}
		if err := files.Write(ctx, p, []byte(in.Content)); err != nil {
			return nil, err
		}
		return toolkit.Text(fmt.Sprintf("Wrote %d bytes to %s", len(in.Content), p.Abs)), nil
	})
}
