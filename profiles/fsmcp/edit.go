package fsmcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

type editOne struct {
	OldString  string `json:"old_string" jsonschema:"Exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"Text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence (default false: old_string must be unique)"`
}

type editIn struct {
	FilePath   string    `json:"file_path" jsonschema:"Absolute path of the file to edit"`
	OldString  *string   `json:"old_string,omitempty" jsonschema:"Exact text to replace (single edit)"`
	NewString  *string   `json:"new_string,omitempty" jsonschema:"Text to put in its place (single edit)"`
	ReplaceAll bool      `json:"replace_all,omitempty" jsonschema:"Replace every occurrence (default false: old_string must be unique)"`
	Edits      []editOne `json:"edits,omitempty" jsonschema:"Several edits applied in order, all or nothing (instead of old_string/new_string)"`
}

// Edit is fs_edit: literal replacements, one or a batch, all or nothing.
func Edit() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_edit",
		Description: "Edit a file: replace exact text. old_string must occur exactly once unless replace_all is set. " +
			"Give either old_string/new_string or edits (a list applied in order, all or nothing). " +
			"CRLF line endings and a missing final newline are preserved.",
		Annotations: toolkit.Writes("Edit file", true, false),
	}, func(ctx context.Context, c *toolkit.Call, in editIn) (*mcp.CallToolResult, error) {
		var edits []files.Edit
		switch {
		case in.Edits != nil && (in.OldString != nil || in.NewString != nil):
			return nil, toolkit.InvalidParams("give either old_string/new_string or edits, not both")
		case in.Edits != nil:
			for _, e := range in.Edits {
				edits = append(edits, files.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll})
			}
			if len(edits) == 0 {
				return nil, errors.New("edits is empty: nothing to change")
			}
		case in.OldString == nil || in.NewString == nil:
			return nil, toolkit.InvalidParams("old_string and new_string are required (or give edits)")
		default:
			edits = []files.Edit{{Old: *in.OldString, New: *in.NewString, ReplaceAll: in.ReplaceAll}}
		}
		p, err := filePath(c, in.FilePath)
		if err != nil {
			return nil, err
		}
		_, _, n, err := files.EditFile(ctx, p, edits, c.Limits.MaxFileSize, false)
		if fault.KindOf(err) == fault.NotUnique && !strings.HasSuffix(err.Error(), ".") {
			return nil, errors.New(err.Error() + ".") // fsMCP's sentence ends with a full stop
		}
		if err != nil {
			return nil, err
		}
		return toolkit.Text(fmt.Sprintf("Replaced %d occurrence(s) in %s", n, p.Abs)), nil
	})
}
