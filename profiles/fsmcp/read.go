package fsmcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

// defaultReadLines is the lines shown when no limit is given, as Claude
// Code's Read tool has it; a line is cut at backend.MaxLine characters,
// the one cap of a content line fs_grep's lines are cut at too.
const defaultReadLines = 2000

type readIn struct {
	FilePath string `json:"file_path" jsonschema:"Absolute path of the file to read"`
	Offset   int    `json:"offset,omitempty" jsonschema:"1-based line number to start at (default 1)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"Number of lines to read (default 2000)"`
}

// Read is fs_read: a text file as cat -n lines, an image as image content.
func Read() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_read",
		Description: "Read a file. Text comes back in cat -n format (line number, tab, line), " +
			"2000 lines from offset by default; lines over 2000 characters are cut. " +
			"Images (PNG, JPEG, GIF, WebP, BMP) come back as image content; other binary files are refused with their size and MIME type. " +
			"Only files inside the allowed directories; fs_bash, where offered, can read system files.",
		Annotations: toolkit.ReadOnly("Read file"),
	}, func(ctx context.Context, c *toolkit.Call, in readIn) (*mcp.CallToolResult, error) {
		if in.Offset < 0 || in.Limit < 0 {
			return nil, errors.New("offset and limit must be positive line counts")
		}
		limit := in.Limit
		if limit == 0 {
			limit = defaultReadLines
		}
		p, err := c.Resolve(in.FilePath)
		if err != nil {
			return nil, err
		}
		lines, info, err := files.ReadTextContext(ctx, p, in.Offset, limit, backend.MaxLine, budget(c).Max)
		if fault.KindOf(err) == fault.IsDir {
			return nil, errors.New("path is a directory, not a file") // fsMCP's words
		}
		if err != nil {
			return nil, err
		}
		switch info.Kind {
		case files.Image:
			if info.Size > c.Limits.MaxFileSize {
				return nil, fmt.Errorf("image %s is %d bytes, over the %d-byte limit (--max-file-size)", p.Abs, info.Size, c.Limits.MaxFileSize)
			}
			w, err := files.ReadWhole(p, c.Limits.MaxFileSize)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: w.Data, MIMEType: info.MIME}}}, nil
		case files.Binary:
			return nil, fmt.Errorf("cannot read %s: it is a binary file (%d bytes, %s)", p.Abs, info.Size, info.MIME)
		}
		return toolkit.Text(formatLines(p.Abs, lines, c.Output)), nil
	})
}

// formatLines renders cat -n style: numbers right-aligned to the width of
// the last shown number, a tab, the line; then a note when there is more.
// The lines stop, whole, where the next would take the answer past out
// (Max 0: no limit), and the note gives the exact line to read on from.
func formatLines(path string, l files.Lines, out toolkit.AnswerBudget) string {
	if l.Total == 0 {
		return fmt.Sprintf("(%s is empty)", path)
	}
	if len(l.Text) == 0 {
		return fmt.Sprintf("(offset %d is past the end of %s, which has %d lines)", l.First, path, l.Total)
	}
	width := len(strconv.Itoa(l.First + len(l.Text) - 1))
	rows := make([]string, len(l.Text))
	for i, line := range l.Text {
		num := strconv.Itoa(l.First + i)
		rows[i] = strings.Repeat(" ", width-len(num)) + num + "\t" + line
	}
	shown := out.Entries().FitLines(rows)
	text := strings.Join(rows[:shown], "\n")
	last := l.First + shown - 1
	total, more := strconv.Itoa(l.Total), fmt.Sprintf(", %d more", l.Total-last)
	if l.AtLeast {
		total, more = "at least "+total, "" // the time limit ran out while counting
	}
	switch {
	case l.Cut || shown < len(rows):
		text += fmt.Sprintf("\n\n(output cut at line %d of %s%s, to stay within %s; use offset=%d to read on)",
			last, total, more, out, last+1)
	case last < l.Total || l.AtLeast:
		text += fmt.Sprintf("\n\n(showing lines %d-%d of %s; use offset=%d to read on)", l.First, last, total, last+1)
	}
	return text
}
