package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/profile"
	"github.com/fsmcp/fsmcp/sandbox"
)

// pathArgs are the fsmcp parameters that name a path, in the order a
// relative one is looked for.
var pathArgs = []string{"file_path", "path", "source", "destination", "target_dir", "output_file"}

// Bounds of the near-name search of a not-found answer.
const (
	maxNearScan = 4096 // directory entries read
	maxNearUp   = 64   // parent directories climbed
	maxNearShow = 3    // names suggested
)

// explain adds to a refusal what the call can tell the agent about it: a
// relative path gets the absolute path it would have been under the
// first root (and the roots); a missing path gets a near name in its
// directory, or the closest directory that exists. The error keeps its
// kind and its words first (fsMCP's).
func explain(c *profile.Call, err error) error {
	switch {
	case errors.Is(err, sandbox.ErrNotAbsolute) || errors.Is(err, errNotAbsolute):
		rel := relativeArg(c)
		roots := c.Sandbox.Roots()
		if rel == "" || len(roots) == 0 {
			return err
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

// explained is an error with more words; its kind and path stay readable.
type explained struct {
	err error
	msg string
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

// relativeArg is the first path argument of the call that is relative.
func relativeArg(c *profile.Call) string {
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
func nearest(c *profile.Call, path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return ""
	}
	p, err := c.Sandbox.Resolve(path)
	if err != nil {
		return ""
	}
	missing := p
	dir := p.Dir()
	for i := 0; i < maxNearUp && dir.StatDir() != nil; i++ {
		if dir.IsRoot() {
			return ""
		}
		missing, dir = dir, dir.Dir()
	}
	if dir.StatDir() != nil {
		return ""
	}
	base := filepath.Base(missing.Abs)
	near := nearNames(dir, base)
	for i, n := range near {
		near[i] = filepath.Join(dir.Abs, n)
	}
	switch {
	case len(near) > 0:
		return "did you mean " + strings.Join(near, " or ") + "?"
	case missing == p:
		return fmt.Sprintf("%s exists but has no name close to %s", dir.Abs, base)
	}
	return "the closest directory that exists is " + dir.Abs
}

// nearNames are up to maxNearShow names in dir close to base (the same
// but for case or extension, or a few edits away), closest first.
func nearNames(dir *sandbox.Path, base string) []string {
	f, err := dir.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	seen := 0
	for seen < maxNearScan {
		entries, err := f.ReadDir(256)
		for _, e := range entries {
			if d, ok := closeName(base, e.Name()); ok {
				cands = append(cands, cand{e.Name(), d})
			}
		}
		seen += len(entries)
		if err == io.EOF || err != nil || len(entries) == 0 {
			break
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for _, c := range cands[:min(len(cands), maxNearShow)] {
		out = append(out, c.name)
	}
	return out
}

// closeName reports whether name is close to want, and how close (lower
// is closer): equal but for case, the same stem with another extension,
// or at most a quarter of its characters (1 to 3) edited.
func closeName(want, name string) (int, bool) {
	if name == want || len(name) > 255 || len(want) > 255 {
		return 0, false
	}
	if strings.EqualFold(name, want) {
		return 0, true
	}
	stem := func(s string) string { return strings.TrimSuffix(s, filepath.Ext(s)) }
	if s := stem(want); s != "" && s == stem(name) {
		return 1, true
	}
	d := editDistance(strings.ToLower(want), strings.ToLower(name))
	return d + 1, d <= min(3, max(1, len([]rune(want))/4))
}

// editDistance is the edit distance of a and b in runes, a swap of two
// neighbours counting as one edit (optimal string alignment).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	rows := [3][]int{make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		prev2, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		rows[0], rows[1], rows[2] = prev, cur, prev2
	}
	return rows[1][len(rb)]
}
