package toolkit

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// PathRule says how a profile's tool arguments name files. It is the one
// place a client's path becomes an absolute one: a profile hands the path
// as the client gave it to Call.Resolve (or SearchPaths, ResolveReal) and
// words the refusals by their kind (fault.NoPath, NULInPath, NotAbsolute,
// NotRelative, Outside), never deciding them again.
type PathRule int

const (
	// Absolute: paths are absolute; a relative one is refused
	// (fault.NotAbsolute). fsmcp, fsMCP, peekaboo, catalog, LocalCowork.
	Absolute PathRule = iota
	// RelativeToRoot: a relative path is taken from the first root;
	// absolute paths are accepted too (peekaboo's resource URIs).
	RelativeToRoot
	// RelativeToContainingRoot: a relative path is taken from the first
	// root under which it stays inside, else from the first root;
	// absolute paths are accepted too (the official filesystem server's
	// validatePath).
	RelativeToContainingRoot
	// RelativeOnly: paths are relative to the first root (filesystem-mcp's
	// project root), "" naming the root itself; an absolute path is
	// refused (fault.NotRelative) before anything else is checked.
	RelativeOnly
)

// Apply is path under the rule, as an absolute path for the sandbox to
// contain: a relative path joined to the root the rule names. It refuses
// only what the rule itself forbids (an absolute path under
// RelativeOnly); the sandbox checks the rest (empty, NUL, relative,
// outside). Without roots a relative path is left as it is, which the
// sandbox refuses as not absolute.
//
// On Windows two more kinds of path are not relative, as Node's path
// module (the originals') takes them: a path rooted on no drive (\ws\a,
// /ws/a) is on the current drive, and a path on a drive with no \ after
// the colon (C:ws\a) is relative to that drive's current directory, the
// root itself when the root is on that drive.
func (r PathRule) Apply(sb *sandbox.Sandbox, path string) (string, error) {
	if r == RelativeOnly {
		if filepath.IsAbs(path) || rooted(path) || filepath.VolumeName(path) != "" {
			return "", sandbox.ErrNotRelative
		}
		if path == "" {
			path = "."
		}
	}
	if r == Absolute || path == "" || filepath.IsAbs(path) {
		return path, nil
	}
	if rooted(path) {
		if abs, err := filepath.Abs(filepath.FromSlash(path)); err == nil {
			return abs, nil
		}
	}
	roots := sb.Roots()
	if len(roots) == 0 {
		return path, nil
	}
	if r == RelativeToContainingRoot {
		for _, root := range roots {
			if cand := joinRelative(root, path); sb.Contains(cand) {
				return cand, nil
			}
		}
	}
	return joinRelative(roots[0], path), nil
}

// Resolve contains path, under the rule, in sb: Apply, then the
// sandbox's own checks. Call.Resolve is this for a tool's argument;
// resources and the hooks use it where there is no call.
func (r PathRule) Resolve(sb *sandbox.Sandbox, path string) (*sandbox.Path, error) {
	abs, err := r.Apply(sb, path)
	if err != nil {
		return nil, err
	}
	return sb.Resolve(abs)
}

// rooted reports whether path is rooted on no drive (Windows: \ws, /ws).
func rooted(path string) bool {
	return path != "" && os.IsPathSeparator(path[0]) && !filepath.IsAbs(path)
}

// joinRelative is the relative path under root; a path on a drive with
// no \ after the colon (Windows: C:ws) is under root when root is on that
// drive, else on that drive's current directory.
func joinRelative(root, path string) string {
	vol := filepath.VolumeName(path)
	if vol == "" {
		return filepath.Join(root, path)
	}
	if strings.EqualFold(vol, filepath.VolumeName(root)) {
		return filepath.Join(root, path[len(vol):])
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// Path is a client's path under the table's rule, as Apply makes it,
// for a profile that names it in its own refusals; a path the rule
// refuses comes back as it was given.
func (c *Call) Path(path string) string {
	abs, err := c.Paths.Apply(c.Sandbox, path)
	if err != nil {
		return path
	}
	return abs
}

// Resolve contains a client's path in the call's sandbox, after the path
// rule. With no roots at all it is ErrNoRoots, after the path's own checks
// (a relative path is still told it must be absolute).
func (c *Call) Resolve(path string) (*sandbox.Path, error) {
	p, err := c.Paths.Resolve(c.Sandbox, path)
	if err != nil {
		return nil, c.noRoots(err)
	}
	return p, nil
}

// ResolveFound contains a path the core handed back (a search hit, a
// listing's entry, a root, an error's path): absolute already, so the
// table's rule, which is for what a client typed, does not apply.
func (c *Call) ResolveFound(abs string) (*sandbox.Path, error) {
	return c.Sandbox.Resolve(abs)
}

// ResolveReal is Resolve with the path's symlinks followed: the Path of
// the real file when it exists (contained again), the lexical one when it
// does not (a new file; its I/O still goes through the root). A symlink
// that leads out of the roots is a *sandbox.OutsideError with Link set.
func (c *Call) ResolveReal(path string) (*sandbox.Path, error) {
	p, err := c.Resolve(path)
	if err != nil {
		return nil, err
	}
	real, err := c.Sandbox.RealPath(p.Abs)
	switch {
	case err == nil:
		if rp, err := c.Sandbox.Resolve(real); err == nil {
			return rp, nil
		}
		return nil, &sandbox.OutsideError{Path: p.Abs, Link: true}
	case sandbox.IsOutside(err):
		return nil, &sandbox.OutsideError{Path: p.Abs, Link: true}
	case fault.KindOf(err) == fault.NotFound:
		return p, nil
	}
	return nil, err
}

// noRoots is err, or ErrNoRoots when err is an outside refusal of a call
// that has no root at all.
func (c *Call) noRoots(err error) error {
	if sandbox.IsOutside(err) && len(c.Sandbox.Roots()) == 0 {
		return ErrNoRoots
	}
	return err
}

// SearchPaths resolves a tool's optional path into the real, contained
// paths handed to a search backend (every root when path is empty).
// Backends may run external programs, so symlinks are resolved first
// (sandbox.RealPath); the walk itself never follows a symlink.
func (c *Call) SearchPaths(path string) ([]string, error) {
	if path == "" {
		return c.Roots()
	}
	abs, err := c.Paths.Apply(c.Sandbox, path)
	if err != nil {
		return nil, err
	}
	real, err := c.Sandbox.RealPath(abs)
	if err != nil {
		return nil, c.noRoots(err)
	}
	return []string{real}, nil
}

// Reaches reports whether a path the core found (a walk's entry) leads,
// its symlinks followed, to something that exists inside the roots: what
// a profile that lists what its original could open keeps.
func (c *Call) Reaches(abs string) bool {
	_, err := c.Sandbox.RealPath(abs)
	return err == nil
}

// GlobPattern is a client's glob pattern (fs_glob's, a search's or a
// listing's filter) as doublestar and the backends read it: on Windows a
// backslash is the path separator, as ripgrep takes it there, not an
// escape, and a \\?\ prefix before a drive is dropped as from any path
// (its ? would be a wildcard). Elsewhere the pattern is as given.
func GlobPattern(pattern string) string {
	if filepath.Separator != '\\' {
		return pattern
	}
	return filepath.ToSlash(sandbox.TrimDevicePrefix(pattern))
}
