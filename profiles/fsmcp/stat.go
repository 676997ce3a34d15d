package fsmcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

type statIn struct {
	Path string `json:"path" jsonschema:"Absolute path of the file or directory"`
}

// Stat is fs_stat: a path's metadata.
func Stat() toolkit.Tool {
	return toolkit.Bind(&mcp.Tool{
		Name: "fs_stat",
		Description: "Show a file's or directory's metadata: type, size, permissions, owner uid/gid, access, modification, change and " +
			"creation (birth) times where the file system records them, the target of a symlink, and the sniffed MIME type.",
		Annotations: toolkit.ReadOnly("File metadata"),
	}, func(ctx context.Context, c *toolkit.Call, in statIn) (*mcp.CallToolResult, error) {
		p, err := c.Resolve(in.Path)
		if err != nil {
			return nil, err
		}
		info, err := files.StatMIME(p)
		if err != nil {
			return nil, err
		}
		return toolkit.Text(formatStat(info)), nil
	})
}

// statTime is how fs_stat shows times: RFC 3339 with nanoseconds.
const statTime = time.RFC3339Nano

func formatStat(s *files.StatInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\n", s.Abs)
	if s.Link != "" {
		fmt.Fprintf(&b, "symlink: %s -> %s (resolves to %s; the fields below describe it)\n", s.Abs, s.Link, s.Target)
	}
	fmt.Fprintf(&b, "type: %s\n", s.Type)
	fmt.Fprintf(&b, "size: %d\n", s.Size)
	fmt.Fprintf(&b, "mode: %s (%04o)\n", s.Mode, s.Mode.Perm())
	fmt.Fprintf(&b, "uid: %d\ngid: %d\n", s.UID, s.GID)
	fmt.Fprintf(&b, "links: %d\ninode: %d\n", s.Nlink, s.Inode)
	fmt.Fprintf(&b, "accessed: %s\n", s.Atime.Format(statTime))
	fmt.Fprintf(&b, "modified: %s\n", s.Mtime.Format(statTime))
	fmt.Fprintf(&b, "changed: %s\n", s.Ctime.Format(statTime))
	if s.Birth.IsZero() {
		b.WriteString("created: (not recorded by this file system)\n")
	} else {
		fmt.Fprintf(&b, "created: %s\n", s.Birth.Format(statTime))
	}
	if s.MIME != "" {
		fmt.Fprintf(&b, "mime: %s\n", s.MIME)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
