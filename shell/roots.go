//go:build unix

package shell

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsmcp/fsmcp/sandbox"
)

// within reports whether path is root or lies beneath it, by whole
// names (sandbox.Within, the one containment rule).
func within(path, root string) bool {
	_, ok := sandbox.Within(root, path)
	return ok
}

// withinAny reports whether path lies in one of roots.
func withinAny(path string, roots []string) bool {
	_, ok := sandbox.WithinAny(roots, path)
	return ok
}

// resolveRoots makes each root absolute, clean and free of symlinks.
func resolveRoots(roots []string) ([]string, error) {
	if len(roots) == 0 {
		return nil, errors.New("shell: no allowed roots")
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("shell: root %s: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("shell: root %s: %w", r, err)
		}
		out = append(out, real)
	}
	return out, nil
}

// outsideMessage is fsMCP's wording, kept for clients that match on it,
// followed by the roots so the agent knows where it may go.
func outsideMessage(dir string, roots []string) string {
	return fmt.Sprintf("cwd %s is outside allowed directories: %s", dir, strings.Join(roots, ", "))
}
