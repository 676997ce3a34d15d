package reference

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

func fileInfo(ctx context.Context, c *toolkit.Call, in pathIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	st, err := files.Stat(p)
	if err != nil {
		return nil, nodeErr(c, err, "stat", p.Abs)
	}
	lines := []string{
		fmt.Sprintf("size: %d", st.Size),
		"created: " + jsDate(st.Birth),
		"modified: " + jsDate(st.Mtime),
		"accessed: " + jsDate(st.Atime),
		fmt.Sprintf("isDirectory: %v", st.Type == files.TypeDir),
		fmt.Sprintf("isFile: %v", st.Type == files.TypeFile),
		fmt.Sprintf("permissions: %03o", st.Mode.Perm()),
	}
	return text(strings.Join(lines, "\n")), nil
}

// jsDate is JavaScript's Date.prototype.toString in the local time zone:
// "Sun Nov 22 2026 13:30:32 GMT+0000 (Coordinated Universal Time)". A time
// the file system does not record is the epoch, as Node reports it. Zone
// names other than UTC are Go's abbreviations (Node has ICU's long names).
func jsDate(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	t = t.Local()
	zone, offset := t.Zone()
	if offset == 0 && (zone == "UTC" || zone == "GMT" || zone == "") {
		zone = "Coordinated Universal Time"
	}
	return t.Format("Mon Jan 02 2006 15:04:05 GMT-0700") + " (" + zone + ")"
}

func allowedDirectories(ctx context.Context, c *toolkit.Call, in noArgs) (*mcp.CallToolResult, error) {
	return text("Allowed directories:\n" + strings.Join(c.Sandbox.Roots(), "\n")), nil
}
