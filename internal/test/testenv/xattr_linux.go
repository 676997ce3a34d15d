package testenv

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// xattrs is p's extended attributes (a link's own are left out), sorted,
// for TreeState: "" when it has none.
func xattrs(p string) string {
	buf := make([]byte, 64<<10)
	n, err := unix.Llistxattr(p, buf)
	if err != nil || n == 0 {
		return ""
	}
	names := strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00")
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		v := make([]byte, 64<<10)
		m, err := unix.Lgetxattr(p, k, v)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, " xattr %s=%q", k, v[:m])
	}
	return b.String()
}
