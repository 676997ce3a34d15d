package fsmcp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/toolkit"
)

// pathArgs are the fsmcp parameters that name a path, in the order a
// relative one is looked for.
var pathArgs = []string{"file_path", "path", "source", "destination", "target_dir", "output_file"}

// maxNearShow bounds the near names a not-found answer suggests.
const maxNearShow = 3

// explain adds to a refusal what the call can tell the agent about it: a
// relative path gets the absolute path it would have been under the
// first root (and the roots); a missing path gets a near name in its
// directory, or the closest directory that exists. The error keeps its
// kind and its words first (fsMCP's).
func explain(c *toolkit.Call, err error) error {
	switch {
	case fault.KindOf(err) == fault.NotAbsolute:
		rel := relativeArg(c)
		roots := c.Sandbox.Roots()
		if rel == "" || len(roots) == 0 {
			return err
		}
		if hint := driveHint(rel, roots[0]); hint != "" {
			return &explained{err, fmt.Sprintf("%v; %s", err, hint)}
		}
		msg := fmt.Sprintf("%v; under %s that is %s", err, roots[0], filepath.Join(roots[0], rel))
		if len(roots) > 1 {
			msg = fmt.Sprintf("%v; the allowed directories are %s: under %s that is %s", err, strings.Join(roots, ", "), roots[0], filepath.Join(roots[0], rel))
		}
		return &explained{err, msg}
	case fault.KindOf(err) == fault.NotFound:
		if hint := nearest(c, fault.PathOf(err)); hint != "" {
			return &explained{err, fmt.Sprintf("%v; %s", err, hint)}
		}
	}
	return err
}

// driveHint is what to say of the two Windows paths that are neither
// relative nor absolute (none elsewhere): C:ws\a.txt, relative to drive
// C:'s current directory, which fsmcp has none of, wants a \ after the
// colon; \ws\a.txt or /ws/a.txt names no drive, so the hint puts it on
// the drive of root, the first allowed directory.
func driveHint(rel, root string) string {
	if vol := filepath.VolumeName(rel); vol != "" {
		return fmt.Sprintf("%s has a drive but no \\ after the colon, so Windows would take it from that drive's current directory; with the \\ it is %s", rel, filepath.Join(vol+string(filepath.Separator), rel[len(vol):]))
	}
	if rel[0] == filepath.Separator || rel[0] == '/' {
		vol := filepath.VolumeName(root)
		return fmt.Sprintf("%s names no drive; on the drive of %s that is %s", rel, root, filepath.Join(vol+string(filepath.Separator), rel))
	}
	return ""
}

// explained is an error with more words; its kind and path stay readable.
type explained struct {
	err error
	msg string
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

// relativeArg is the first path argument of the call that is relative.
func relativeArg(c *toolkit.Call) string {
	if c.Req == nil {
		return ""
	}
	var args map[string]any
	if json.Unmarshal(c.Req.Params.Arguments, &args) != nil {
		return ""
	}
	for _, n := range pathArgs {
		if s, ok := args[n].(string); ok && s != "" && !filepath.IsAbs(s) {
			return s
		}
	}
	return ""
}

// nearest says, for a path that does not exist, which names close to it
// do: a near name in its directory, or the closest existing directory
// and the names in it close to the first missing one. "" when the path
// is not inside the roots or nothing useful is found.
func nearest(c *toolkit.Call, path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return ""
	}
	p, err := c.ResolveFound(path)
	if err != nil {
		return ""
	}
	n, ok := files.Nearest(p, maxNearShow)
	if !ok {
		return ""
	}
	switch {
	case len(n.Names) > 0:
		near := make([]string, len(n.Names))
		for i, name := range n.Names {
			near[i] = filepath.Join(n.Dir.Abs, name)
		}
		return "did you mean " + strings.Join(near, " or ") + "?"
	case n.Parent:
		return fmt.Sprintf("%s exists but has no name close to %s", n.Dir.Abs, n.Missing)
	}
	return "the closest directory that exists is " + n.Dir.Abs
}
