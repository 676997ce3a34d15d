package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// ExpandHome turns a leading "~" or "~/" into the user's home directory,
// as shells (and the official MCP filesystem server) do; any other path,
// or no known home, is returned unchanged. The result still has to be
// resolved and contained.
func ExpandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	return filepath.Join(home, p[1:])
}
