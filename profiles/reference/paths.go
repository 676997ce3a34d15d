//lint:file-ignore ST1005 the official server's error texts are capitalised sentences, and its clients read them as they are.

package reference

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// windowsPath is a drive path, which the official server refuses on a
// POSIX host rather than take it as a relative name; on Windows it is
// the usual absolute path.
var windowsPath = regexp.MustCompile(`^[A-Za-z]:([\\/]|$)`)

// posixHost is whether drive paths are refused (every system but Windows).
const posixHost = runtime.GOOS != "windows"

// validate is the official server's validatePath over fsmcp's sandbox: "~"
// expanded, then the table's rule (toolkit.RelativeToContainingRoot: a
// relative path taken from the first allowed directory that keeps it
// inside), contained lexically and with its symlinks resolved
// (Call.ResolveReal). It answers with the official refusal texts, except
// that a symlink's outside target is not named (fsmcp never tells what
// lies outside). The Path it returns is the real path when the file
// exists.
func validate(c *toolkit.Call, requested string) (*sandbox.Path, error) {
	expanded := sandbox.ExpandHome(requested)
	if posixHost && windowsPath.MatchString(expanded) {
		return nil, fmt.Errorf("Access denied - Windows-style path received on a POSIX host: %s", requested)
	}
	p, err := c.ResolveReal(expanded)
	if err == nil {
		return p, nil
	}
	abs := filepath.Clean(c.Path(expanded))
	var oe *sandbox.OutsideError
	switch fault.KindOf(err) {
	case fault.Outside:
		if errors.As(err, &oe) && oe.Link {
			return nil, linkOutside(c, abs)
		}
		return nil, outside(c, abs)
	case fault.NoPath, fault.NULInPath, fault.NotAbsolute:
		return nil, outside(c, abs)
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
