//lint:file-ignore ST1005 the official server's error texts are capitalised sentences, and its clients read them as they are.

package reference

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// windowsPath is a drive path, which the official server refuses on a
// POSIX host rather than take it as a relative name.
var windowsPath = regexp.MustCompile(`^[A-Za-z]:([\\/]|$)`)

// validate is the official server's validatePath over fsmcp's sandbox: "~"
// expanded, a relative path taken from the first allowed directory that
// keeps it inside, then contained lexically and with its symlinks
// resolved. It answers with the official refusal texts, except that a
// symlink's outside target is not named (fsmcp never tells what lies
// outside). The Path it returns is the real path when the file exists.
func validate(c *toolkit.Call, requested string) (*sandbox.Path, error) {
	expanded := sandbox.ExpandHome(requested)
	if windowsPath.MatchString(expanded) {
		return nil, fmt.Errorf("Access denied - Windows-style path received on a POSIX host: %s", requested)
	}
	roots := c.Sandbox.Roots()
	abs := filepath.Clean(expanded)
	if !filepath.IsAbs(expanded) && len(roots) > 0 {
		abs = filepath.Join(roots[0], expanded)
		for _, r := range roots {
			if cand := filepath.Join(r, expanded); c.Sandbox.Contains(cand) {
				abs = cand
				break
			}
		}
	}
	p, err := c.Sandbox.Resolve(abs)
	if err != nil {
		return nil, outside(c, abs)
	}
	real, err := c.Sandbox.RealPath(abs)
	switch {
	case err == nil:
		if rp, err := c.Sandbox.Resolve(real); err == nil {
			return rp, nil
		}
		return nil, linkOutside(c, abs)
	case fault.KindOf(err) == fault.Outside:
		return nil, linkOutside(c, abs)
	case fault.KindOf(err) == fault.NotFound:
		return p, nil // a new file: its I/O still goes through the root
	}
	return nil, err
}

func outside(c *toolkit.Call, abs string) error {
	return fmt.Errorf("Access denied - path outside allowed directories: %s not in %s", abs, strings.Join(c.Sandbox.Roots(), ", "))
}

func linkOutside(c *toolkit.Call, abs string) error {
	return fmt.Errorf("Access denied - symlink target outside allowed directories: %s not in %s", abs, strings.Join(c.Sandbox.Roots(), ", "))
}

// nodeErr words a core error as Node's fs module does for the same
// failure of syscall on path ("ENOENT: no such file or directory, open
// '/x'"), which is what the official server passes on.
func nodeErr(c *toolkit.Call, err error, syscall, path string) error {
	switch fault.KindOf(err) {
	case fault.NotFound:
		return fmt.Errorf("ENOENT: no such file or directory, %s '%s'", syscall, path)
	case fault.IsDir:
		if syscall == "write" {
			return fmt.Errorf("EISDIR: illegal operation on a directory, open '%s'", path)
		}
		return fmt.Errorf("EISDIR: illegal operation on a directory, read")
	case fault.NotDir:
		return fmt.Errorf("ENOTDIR: not a directory, %s '%s'", syscall, path)
	case fault.Exists:
		return fmt.Errorf("EEXIST: file already exists, %s '%s'", syscall, path)
	case fault.Permission:
		return fmt.Errorf("EACCES: permission denied, %s '%s'", syscall, path)
	case fault.Outside:
		return linkOutside(c, path)
	}
	return err
}

// pathIn is the input of a tool whose one argument is path.
type pathIn struct {
	Path string `json:"path"`
}

// noArgs is the input of a tool without arguments.
type noArgs struct{}
