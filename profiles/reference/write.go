//lint:file-ignore ST1005 the official server's error texts are capitalised sentences, and its clients read them as they are.

package reference

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

type writeIn struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func writeFile(ctx context.Context, c *toolkit.Call, in writeIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	// The official write does not create parent directories; Node's
	// open fails then.
	if err := files.WriteWith(ctx, p, []byte(in.Content), files.WriteOptions{}); err != nil {
		var np *files.NoParentError
		if errors.As(err, &np) {
			return nil, nodeErr(c, err, "open", p.Abs)
		}
		return nil, nodeErr(c, err, "write", p.Abs)
	}
	return text("Successfully wrote to " + in.Path), nil
}

type editIn struct {
	Path   string `json:"path"`
	Edits  []edit `json:"edits"`
	DryRun bool   `json:"dryRun,omitempty"`
}

// edit is one of edit_file's edits (checked as zod checks it: edits).
type edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

func editFile(ctx context.Context, c *toolkit.Call, in editIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	edits := make([]files.FlexEdit, len(in.Edits))
	for i, e := range in.Edits {
		edits[i] = files.FlexEdit{Old: e.OldText, New: e.NewText}
	}
	before, after, err := files.FlexEditFile(ctx, p, edits, c.Limits.MaxFileSize, in.DryRun)
	if err != nil {
		if fault.KindOf(err) == fault.NotFound && fault.PathOf(err) == "" {
			return nil, err // an edit's text was not found: the official sentence
		}
		return nil, nodeErr(c, err, "open", p.Abs)
	}
	return text(fenced(patch(p.Abs, before, after))), nil
}

func createDirectory(ctx context.Context, c *toolkit.Call, in pathIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	if _, err := files.Mkdir(ctx, p); err != nil {
		if fault.KindOf(err) == fault.NotDir && fault.PathOf(err) == p.Abs {
			return nil, fmt.Errorf("EEXIST: file already exists, mkdir '%s'", p.Abs)
		}
		return nil, nodeErr(c, err, "mkdir", p.Abs)
	}
	return text("Successfully created directory " + in.Path), nil
}

type moveIn struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

func moveFile(ctx context.Context, c *toolkit.Call, in moveIn) (*mcp.CallToolResult, error) {
	src, err := validate(c, in.Source)
	if err != nil {
		return nil, err
	}
	dst, err := validate(c, in.Destination)
	if err != nil {
		return nil, err
	}
	renameErr := func() error {
		return fmt.Errorf("ENOENT: no such file or directory, rename '%s' -> '%s'", src.Abs, dst.Abs)
	}
	// The official move makes no parent directories and replaces nothing.
	if err := files.MoveWith(ctx, src, dst, files.MoveOptions{}); err != nil {
		switch fault.KindOf(err) {
		case fault.NotFound: // the source, or the destination's directory
			return nil, renameErr()
		case fault.Exists:
			return nil, fmt.Errorf("Destination already exists: %s", dst.Abs)
		}
		return nil, nodeErr(c, err, "rename", src.Abs)
	}
	return text(fmt.Sprintf("Successfully moved %s to %s", in.Source, in.Destination)), nil
}
