//go:build !windows

package sandbox

import "strings"

// cutPathPrefix compares bytes: Unix paths are case-sensitive (macOS's
// default case-insensitive volume is not assumed: a path spelled in
// another case is refused as outside, never let in wrongly).
func cutPathPrefix(p, prefix string) (string, bool) { return strings.CutPrefix(p, prefix) }
