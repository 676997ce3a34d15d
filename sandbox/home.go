package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ExpandHome turns a leading "~" or "~/" ("~\" too on Windows) into the
// user's home directory, as shells (and the official MCP filesystem
// server) do: agent hosts' configs and clients pass "~/project" as is,
// with no shell to expand it. ~user and any other path are returned
// unchanged, and so is every path when the home is unknown. The result
// still has to be resolved and contained.
func ExpandHome(p string) string {
	out, err := ExpandHomeFrom(p, os.UserHomeDir)
	if err != nil {
		return p
	}
	return out
}

// ExpandHomeFrom is ExpandHome's one rule with the home directory from
// home; a path that starts with the home when it is unknown is an error
// naming the path (fsmcp's DIRs: "~/x" must not quietly become a
// directory named ~ in the working directory).
func ExpandHomeFrom(p string, home func() (string, error)) (string, error) {
	rest, ok := strings.CutPrefix(p, "~")
	if !ok || rest != "" && rest[0] != '/' && rest[0] != filepath.Separator {
		return p, nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", fmt.Errorf("cannot expand %q: the home directory is unknown (give the full path)", p)
	}
	return filepath.Join(h, rest), nil
}
