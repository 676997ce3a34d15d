package fsmcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/catalog"
	"github.com/fsmcp/fsmcp/toolkit"
)

type catalogIn struct {
	TargetDir  string `json:"target_dir" jsonschema:"Absolute path of the directory to catalog"`
	OutputFile string `json:"output_file" jsonschema:"Absolute path of the TSV file to create; it must not exist"`
}

// Catalog is fs_catalog: a TSV of every file under a directory.
func Catalog() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_catalog",
		Description: "Catalog a directory tree: write a TSV of every regular file under target_dir to output_file, which must not exist: " +
			"header Filename, Size, Date Modified, Date Created; one row per file with its absolute path, size in bytes, " +
			"and modification and creation times in ISO 8601 (change time where the file system keeps no creation time); " +
			"rows sorted by path; tabs, newlines, carriage returns and backslashes in names written as \\t, \\n, \\r, \\\\. " +
			"The file appears only when complete. Sends progress notifications when the request has a progress token.",
		Annotations: toolkit.Writes("Catalog directory", false, true), // a second run with the same output_file is refused (1001) and changes nothing
	}, func(ctx context.Context, c *toolkit.Call, in catalogIn) (*mcp.CallToolResult, error) {
		target, err := c.Resolve(in.TargetDir)
		if err != nil {
			return nil, err
		}
		output, err := c.Resolve(in.OutputFile)
		if err != nil {
			return nil, err
		}
		rows, err := catalog.Create(ctx, target, output, catalog.Options{Progress: func(n int) {
			c.Progress(ctx, float64(n), 0, fmt.Sprintf("%d files cataloged", n))
		}})
		if err != nil {
			return nil, catalogError(ctx, err, target.Abs)
		}
		c.Progress(ctx, float64(rows), float64(rows), fmt.Sprintf("%d files cataloged", rows))
		return toolkit.Text(fmt.Sprintf("Catalog created for %s (%d files, written to %s)", target.Abs, rows, output.Abs)), nil
	})
}

// catalogError maps the seed's two errors to their JSON-RPC codes; other
// errors stay tool errors.
func catalogError(ctx context.Context, err error, target string) error {
	if code, msg, ok := catalog.SeedCode(err); ok {
		return &jsonrpc.Error{Code: code, Message: msg}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cataloging %s took longer than the time limit (--timeout); no output file was written", target)
	case ctx.Err() != nil:
		return fmt.Errorf("cataloging %s was cancelled; no output file was written", target)
	}
	return err
}
