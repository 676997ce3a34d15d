package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/catalog"
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/toolkit"
)

// The seed's error code for the rest (1001 and 1002 are catalog's).
const (
	CodeServerError = -32000 // "An unexpected error occurred: ..."
)

// createParams are the direct method's params; pointers tell a missing key
// from an empty one.
type createParams struct {
	mcp.ParamsBase
	TargetDir  *string `json:"target_dir"`
	OutputFile *string `json:"output_file"`
}

// createResult is the seed's success answer.
type createResult struct {
	mcp.ResultBase
	Status  string `json:"status"`
	Message string `json:"message"`
}

// createIn is the tool's input (tools/call, for MCP clients).
type createIn struct {
	TargetDir  string `json:"target_dir" jsonschema:"The absolute path of the directory to catalog."`
	OutputFile string `json:"output_file" jsonschema:"The absolute path where the output TSV file will be saved."`
}

// createMethod serves catalog/create as the seed's clients call it: a
// direct JSON-RPC method, answered {status, message}. Missing params
// altogether are a missing target_dir (the original's -32603 there is a
// bug).
func createMethod(ctx context.Context, env *toolkit.Env, ss *mcp.ServerSession, p *createParams) (*createResult, error) {
	switch {
	case p == nil || p.TargetDir == nil:
		return nil, missing("target_dir")
	case p.OutputFile == nil:
		return nil, missing("output_file")
	}
	c, err := env.CallFor(ctx, ss, toolkit.Absolute)
	if err != nil {
		return nil, err
	}
	return create(ctx, c, *p.TargetDir, *p.OutputFile)
}

// createTool is catalog/create for MCP clients, through tools/call: the
// same work and errors, the answer's JSON as its text and structured
// content.
func createTool() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        Method,
		Description: description,
		Annotations: toolkit.Writes("Create catalog", false, true),
	}, func(ctx context.Context, c *toolkit.Call, in createIn) (*mcp.CallToolResult, error) {
		res, err := create(ctx, c, in.TargetDir, in.OutputFile)
		if err != nil {
			return nil, err
		}
		text, _ := json.Marshal(res)
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
			StructuredContent: map[string]any{"status": res.Status, "message": res.Message},
		}, nil
	})
}

// create runs catalog.Create in the call's sandbox and maps its errors in
// the seed's order: the target (1002), then the output file (1001), then
// anything else (-32000). Paths outside the roots are refused: a target as
// not found (1002), an output file as a bad parameter (-32602).
func create(ctx context.Context, c *toolkit.Call, targetDir, outputFile string) (*createResult, error) {
	target, err := c.Resolve(targetDir)
	if err != nil {
		return nil, targetError(targetDir, err)
	}
	output, err := c.Resolve(outputFile)
	if err != nil {
		return nil, outputError(outputFile, err)
	}
	rows, err := catalog.Create(ctx, target, output, catalog.Options{Progress: func(n int) {
		c.Progress(ctx, float64(n), 0, fmt.Sprintf("%d files cataloged", n))
	}})
	if err != nil {
		if fault.KindOf(err) == fault.Outside {
			if fault.PathOf(err) == output.Abs {
				return nil, outputError(outputFile, err)
			}
			return nil, targetError(targetDir, err)
		}
		return nil, err
	}
	c.Progress(ctx, float64(rows), float64(rows), fmt.Sprintf("%d files cataloged", rows))
	return &createResult{Status: "success", Message: "Catalog created for " + targetDir}, nil
}

func missing(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Missing parameter: '%s'", name)}
}

// targetError refuses a target the sandbox will not resolve: outside the
// roots it is not found (1002), as the original says of any directory it
// cannot catalog; a relative path, an empty one or a NUL byte is a bad
// parameter.
func targetError(dir string, err error) error {
	if fault.KindOf(err) == fault.Outside {
		return &jsonrpc.Error{Code: catalog.CodeTargetNotFound, Message: fmt.Sprintf("Target directory not found: %s (it is outside the allowed directories)", dir)}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Invalid parameter 'target_dir': %v", err)}
}

// outputError refuses an output file the sandbox will not resolve.
func outputError(file string, err error) error {
	if fault.KindOf(err) == fault.Outside {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Invalid parameter 'output_file': %s is outside the allowed directories", file)}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Invalid parameter 'output_file': %v", err)}
}

// mapError gives every error the seed's code: 1001, 1002, -32602 as
// above, -32000 for the rest. An argument error from tools/call (a missing
// property) reads as the direct method's.
func mapError(err error) error {
	var ae *toolkit.ArgError
	if errors.As(err, &ae) && ae.Reason == toolkit.Missing {
		return missing(ae.Missing[0]) // target_dir first, as the seed checks it first
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	if code, msg, ok := catalog.SeedCode(err); ok {
		return &jsonrpc.Error{Code: code, Message: msg}
	}
	switch {
	case fault.KindOf(err) == fault.NotFound:
		// The original raises FileNotFoundError, hence 1002, when the
		// output file's directory is missing too.
		return &jsonrpc.Error{Code: catalog.CodeTargetNotFound, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &jsonrpc.Error{Code: CodeServerError, Message: "An unexpected error occurred: the catalog took longer than the time limit (--timeout); no output file was written"}
	case errors.Is(err, context.Canceled):
		return &jsonrpc.Error{Code: CodeServerError, Message: "An unexpected error occurred: the catalog was cancelled; no output file was written"}
	}
	return &jsonrpc.Error{Code: CodeServerError, Message: "An unexpected error occurred: " + err.Error()}
}
