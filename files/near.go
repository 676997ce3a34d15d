package files

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Bounds of Nearest's search.
const (
	maxNearScan = 4096 // directory entries read
	maxNearUp   = 64   // parent directories climbed
)

// Near is what exists near a path that does not: Dir, the closest
// directory above it that exists; Missing, the name in Dir the path goes
// on through (its own name when Dir is its parent); Names, up to limit
// names in Dir close to Missing, closest first.
type Near struct {
	Dir     *sandbox.Path
	Missing string
	Parent  bool // Dir is the path's own directory
	Names   []string
}

// Nearest looks, inside p's root, for what exists near p: for the answer
// to a path that was not found, so the next try can be right. It reads at
// most 4096 entries of one directory. ok is false when nothing above p
// is a directory (or the root itself is gone).
func Nearest(p *sandbox.Path, limit int) (Near, bool) {
	missing := p
	dir := p.Dir()
	for i := 0; i < maxNearUp && dir.StatDir() != nil; i++ {
		if dir.IsRoot() {
			return Near{}, false
		}
		missing, dir = dir, dir.Dir()
	}
	if dir.StatDir() != nil {
		return Near{}, false
	}
	base := filepath.Base(missing.Abs)
	return Near{Dir: dir, Missing: base, Parent: missing == p, Names: nearNames(dir, base, limit)}, true
}

// nearNames are up to limit names in dir close to base (the same
// but for case or extension, or a few edits away), closest first.
func nearNames(dir *sandbox.Path, base string, limit int) []string {
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
		if err != nil || len(entries) == 0 { // io.EOF at the end
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
	for _, c := range cands[:min(len(cands), limit)] {
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
