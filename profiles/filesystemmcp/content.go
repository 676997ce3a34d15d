package filesystemmcp

import (
	"context"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

type readArgs struct {
	Paths []string `json:"paths" jsonschema:"Array of relative file paths to read."`
}

type readResult struct {
	Path    string  `json:"path"`
	Content *string `json:"content,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// ReadContent is read_content: each file's text or its error.
func ReadContent() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "read_content",
		Description: "Read content from multiple specified files.",
		Annotations: toolkit.ReadOnly("Read content"),
	}, func(ctx context.Context, c *toolkit.Call, in readArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("paths", "Paths", in.Paths); err != nil {
			return nil, err
		}
		out := []readResult{}
		budget := files.NewLoadBudget(c.Limits.WholeReads()) // one for all the files the call names
		for _, rel := range in.Paths {
			r := readResult{Path: slash(rel)}
			text, err := readText(c, budget, rel)
			switch {
			case err == nil:
				r.Content = &text
			case fault.KindOf(err) == fault.IsDir:
				r.Error = "Path is not a file"
			default:
				r.Error = failure(err, "File not found", "Failed to read file: ")
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

func readText(c *toolkit.Call, budget *files.LoadBudget, rel string) (string, error) {
	p, err := resolve(c, rel)
	if err != nil {
		return "", err
	}
	w, err := budget.ReadWhole(p)
	if err != nil {
		return "", err
	}
	return string(w.Data), nil
}

type writeItem struct {
	Path    string `json:"path" jsonschema:"Relative path for the file."`
	Content string `json:"content" jsonschema:"Content to write."`
	Append  bool   `json:"append,omitempty" jsonschema:"Append content instead of overwriting." advertise:"default=false"`
}

type writeArgs struct {
	Items []writeItem `json:"items" jsonschema:"Array of {path, content, append?} objects."`
}

type writeResult struct {
	Path      string `json:"path"`
	Success   bool   `json:"success"`
	Operation string `json:"operation,omitempty"`
	Error     string `json:"error,omitempty"`
}

// WriteContent is write_content: each file written (atomically) or
// appended to, parents created.
func WriteContent() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "write_content",
		Description: "Write or append content to multiple specified files (creating directories if needed).",
		Annotations: toolkit.Writes("Write content", true, false),
	}, func(ctx context.Context, c *toolkit.Call, in writeArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("items", "Items", in.Items); err != nil {
			return nil, err
		}
		out := []writeResult{}
		for _, it := range in.Items {
			r := writeResult{Path: slash(it.Path)}
			op, verb := "written", "write"
			if it.Append {
				op, verb = "appended", "append"
			}
			p, err := resolve(c, it.Path)
			switch {
			case err == nil && p.IsRoot():
				r.Error = "Writing directly to the project root is not allowed."
			case err == nil && it.Append:
				err = files.Append(ctx, p, []byte(it.Content), c.Limits.MaxFileSize)
			case err == nil:
				err = files.Write(ctx, p, []byte(it.Content))
			}
			if err != nil {
				r.Error = failure(err, "Failed to "+verb+" file: "+err.Error(), "Failed to "+verb+" file: ")
			} else if r.Error == "" {
				r.Success, r.Operation = true, op
			}
			out = append(out, r)
		}
		return jsonText(out)
	})
}

type replaceOp struct {
	Search     string `json:"search" jsonschema:"Text or regex pattern to search for."`
	Replace    string `json:"replace" jsonschema:"Text to replace matches with."`
	UseRegex   bool   `json:"use_regex,omitempty" jsonschema:"Treat search as regex." advertise:"default=false"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"Ignore case during search." advertise:"default=false"`
}

type replaceArgs struct {
	Paths      []string    `json:"paths" jsonschema:"An array of relative file paths to perform replacements on."`
	Operations []replaceOp `json:"operations" jsonschema:"An array of search/replace operations to apply to each file."`
}

type replaceResult struct {
	File         string `json:"file"`
	Replacements int    `json:"replacements"`
	Modified     bool   `json:"modified"`
	Error        string `json:"error,omitempty"`
}

type replaceAnswer struct {
	Message string          `json:"message"`
	Results []replaceResult `json:"results"`
}

// ReplaceContent is replace_content: every operation, in order, on every
// file; each file written back atomically when it changed.
func ReplaceContent() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name:        "replace_content",
		Description: "Replace content within files across multiple specified paths.",
		Annotations: toolkit.Writes("Replace content", true, false),
	}, func(ctx context.Context, c *toolkit.Call, in replaceArgs) (*mcp.CallToolResult, error) {
		if err := nonEmpty("paths", "Paths", in.Paths); err != nil {
			return nil, err
		}
		if err := nonEmpty("operations", "Operations", in.Operations); err != nil {
			return nil, err
		}
		reps, compileErr := replacements(in.Operations)
		out := replaceAnswer{Message: "Replace content operations completed on specified paths."}
		for _, rel := range in.Paths {
			r := replaceResult{File: slash(rel)}
			p, err := resolve(c, rel)
			if err == nil {
				err = compileErr
			}
			if err == nil {
				r.Replacements, r.Modified, err = files.ReplaceFile(ctx, p, reps, c.Limits.MaxFileSize)
			}
			switch {
			case err == nil:
			case fault.KindOf(err) == fault.IsDir:
				r.Error = "Path is not a file"
			default:
				r.Replacements, r.Modified = 0, false
				r.Error = failure(err, "File not found", "Failed to process file: ")
			}
			out.Results = append(out.Results, r)
		}
		return jsonText(out)
	})
}

// replacements compiles the operations: a literal search is quoted, every
// match is replaced, the replacement text expands $& $1 $<name> $$ as
// JavaScript's String.replace does.
func replacements(ops []replaceOp) ([]files.Replacement, error) {
	var out []files.Replacement
	for _, op := range ops {
		expr := op.Search
		if !op.UseRegex {
			expr = regexp.QuoteMeta(expr)
		}
		if op.IgnoreCase {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, err
		}
		out = append(out, files.Replacement{Pattern: re, With: jsReplacement(op.Replace, re)})
	}
	return out, nil
}
