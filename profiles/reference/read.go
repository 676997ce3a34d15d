//lint:file-ignore ST1005 the official server's error texts are capitalised sentences, and its clients read them as they are.

package reference

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

type readTextIn struct {
	Path string  `json:"path"`
	Tail float64 `json:"tail,omitempty"`
	Head float64 `json:"head,omitempty"`
}

// readText serves read_text_file and its deprecated alias read_file.
func readText(ctx context.Context, c *toolkit.Call, in readTextIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	if in.Head != 0 && in.Tail != 0 {
		return nil, errors.New("Cannot specify both head and tail parameters simultaneously")
	}
	var content string
	switch {
	case in.Tail != 0:
		// The official tail keeps the last trunc(N) pieces; N below 1 gives "".
		content, err = files.Tail(p, lineCount(math.Trunc(in.Tail)), c.Limits.MaxFileSize)
		if err != nil {
			return nil, nodeErr(c, err, "stat", p.Abs)
		}
	case in.Head != 0:
		// The official head stops once it has at least N lines.
		content, err = files.Head(p, lineCount(math.Ceil(in.Head)), c.Limits.MaxFileSize)
		if err != nil {
			return nil, nodeErr(c, err, "open", p.Abs)
		}
	default:
		w, err := files.NewLoadBudget(c.Limits.WholeReads()).ReadWhole(p)
		if err != nil {
			return nil, nodeErr(c, err, "open", p.Abs)
		}
		content = string(w.Data)
	}
	return text(content), nil
}

// lineCount is a whole number of lines as an int. zod admits any finite
// number, and the original's loops take a count past the file's length as
// the whole file; a float past int's range would convert to a wrong
// (negative) int and answer "", so it is clamped to a count no file
// fsmcp reads can reach.
func lineCount(n float64) int {
	return int(max(min(n, math.MaxInt32), math.MinInt32))
}

// mediaTypes is the official server's extension table; anything else is
// application/octet-stream, sent as an embedded resource.
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac",
}

func readMedia(ctx context.Context, c *toolkit.Call, in pathIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	w, err := files.NewLoadBudget(c.Limits.WholeReads()).ReadWhole(p)
	if err != nil {
		return nil, nodeErr(c, err, "open", p.Abs)
	}
	mime, ok := mediaTypes[strings.ToLower(filepath.Ext(p.Abs))]
	if !ok {
		mime = "application/octet-stream"
	}
	var item mcp.Content
	switch {
	case strings.HasPrefix(mime, "image/"):
		item = &mcp.ImageContent{Data: w.Data, MIMEType: mime}
	case strings.HasPrefix(mime, "audio/"):
		item = &mcp.AudioContent{Data: w.Data, MIMEType: mime}
	default:
		item = &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: toolkit.FileURI(p.Abs), MIMEType: mime, Blob: w.Data}}
	}
	// structuredContent mirrors content: {content: [the same block]}.
	return &mcp.CallToolResult{Content: []mcp.Content{item}, StructuredContent: map[string]any{"content": []any{remarshal(item)}}}, nil
}

type readMultipleIn struct {
	Paths []string `json:"paths" zod:"min=1"`
}

func readMultiple(ctx context.Context, c *toolkit.Call, in readMultipleIn) (*mcp.CallToolResult, error) {
	parts := make([]string, len(in.Paths))
	budget := files.NewLoadBudget(c.Limits.WholeReads()) // one for all the files the call names
	for i, path := range in.Paths {
		content, err := readOne(c, budget, path)
		if err != nil {
			parts[i] = path + ": Error - " + err.Error()
			continue
		}
		parts[i] = path + ":\n" + content + "\n"
	}
	return text(strings.Join(parts, "\n---\n")), nil
}

// readOne is one file of read_multiple_files, whole, within the call's
// budget.
func readOne(c *toolkit.Call, budget *files.LoadBudget, path string) (string, error) {
	p, err := validate(c, path)
	if err != nil {
		return "", err
	}
	w, err := budget.ReadWhole(p)
	if err != nil {
		return "", nodeErr(c, err, "open", p.Abs)
	}
	return string(w.Data), nil
}
