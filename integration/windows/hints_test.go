//go:build windows

package windows

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRelativePathHints: fsmcp's tools take absolute paths only; a
// refused relative one is told the absolute path it would be, and the
// two Windows forms that are neither get a hint of their own: C:ws\a.txt
// wants a \ after the colon, \ws\a.txt and /ws/a.txt name no drive (the
// root's drive is put in front), instead of the root joined onto the
// whole string (C:\ws\C:ws\a.txt).
func TestRelativePathHints(t *testing.T) {
	each(t, func(t *testing.T, connect func(args ...string) *mcp.ClientSession) {
		tr := newTree(t)
		cs := connect(tr.root)
		a := tr.path("a.txt")
		vol := filepath.VolumeName(a)
		for _, c := range []struct{ in, want string }{
			{vol + a[len(vol)+1:], "has a drive but no \\ after the colon, so Windows would take it from that drive's current directory; with the \\ it is " + a},
			{a[len(vol):], "names no drive; on the drive of " + tr.root + " that is " + a},
			{filepath.ToSlash(a[len(vol):]), "names no drive; on the drive of " + tr.root + " that is " + a},
			{"a.txt", "under " + tr.root + " that is " + a},
			{`sub\..\a.txt`, "under " + tr.root + " that is " + a},
		} {
			out := refused(t, cs, "fs_read", map[string]any{"file_path": c.in}, "path must be absolute; ")
			if !strings.Contains(out, c.want) {
				t.Errorf("fs_read(%s) = %q, want the hint %q", c.in, out, c.want)
			}
		}
	})
}
