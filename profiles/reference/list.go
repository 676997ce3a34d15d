//lint:file-ignore ST1005 the official server's error texts are capitalised sentences, and its clients read them as they are.

package reference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/toolkit"
)

func listDirectory(ctx context.Context, c *toolkit.Call, in pathIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	ents, err := files.ListSizes(p)
	if err != nil {
		return nil, nodeErr(c, err, "scandir", p.Abs)
	}
	lines := make([]string, len(ents))
	for i, e := range ents {
		lines[i] = mark(e.IsDir) + " " + escape.Name(e.Name) // a name cannot forge a line
	}
	return text(strings.Join(lines, "\n")), nil
}

func mark(isDir bool) string {
	if isDir {
		return "[DIR]"
	}
	return "[FILE]"
}

type sizesIn struct {
	Path   string `json:"path"`
	SortBy string `json:"sortBy,omitempty" zod:"enum=name|size"`
}

func listWithSizes(ctx context.Context, c *toolkit.Call, in sizesIn) (*mcp.CallToolResult, error) {
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	ents, err := files.ListSizes(p)
	if err != nil {
		return nil, nodeErr(c, err, "scandir", p.Abs)
	}
	sorted := append([]files.Sized(nil), ents...)
	if in.SortBy == "size" {
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Size > sorted[j].Size })
	} else {
		// String.prototype.localeCompare: the root locale's collation.
		col := collate.New(language.Und)
		sort.SliceStable(sorted, func(i, j int) bool { return col.CompareString(sorted[i].Name, sorted[j].Name) < 0 })
	}
	var lines []string
	var nFiles, nDirs int
	var total int64
	for _, e := range sorted {
		size := ""
		if !e.IsDir {
			size = padStart(formatSize(e.Size), 10)
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", mark(e.IsDir), padEnd(escape.Name(e.Name), 30), size))
	}
	for _, e := range ents {
		if e.IsDir {
			nDirs++
		} else {
			nFiles++
			total += e.Size
		}
	}
	lines = append(lines, "", fmt.Sprintf("Total: %d files, %d directories", nFiles, nDirs), "Combined size: "+formatSize(total))
	return text(strings.Join(lines, "\n")), nil
}

// jsLen is a string's length in JavaScript (UTF-16 code units).
func jsLen(s string) int { return len(utf16.Encode([]rune(s))) }

func padEnd(s string, n int) string   { return s + strings.Repeat(" ", max(0, n-jsLen(s))) }
func padStart(s string, n int) string { return strings.Repeat(" ", max(0, n-jsLen(s))) + s }

// formatSize is the official size text: "0 B", "512 B", "1.50 KB" (two
// decimals, rounded half up as toFixed does), up to TB.
func formatSize(n int64) string {
	if n <= 0 {
		return "0 B"
	}
	units := []string{"B", "KB", "MB", "GB", "TB"}
	i := int(math.Floor(math.Log(float64(n)) / math.Log(1024)))
	if i <= 0 {
		return fmt.Sprintf("%d B", n)
	}
	i = min(i, len(units)-1)
	// n*100/1024^i, rounded half up, exactly.
	r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(n), big.NewInt(100)), new(big.Int).Lsh(big.NewInt(1), uint(10*i)))
	r.Add(r, big.NewRat(1, 2))
	hundredths := new(big.Int).Quo(r.Num(), r.Denom())
	return fmt.Sprintf("%d.%02d %s", new(big.Int).Quo(hundredths, big.NewInt(100)), new(big.Int).Rem(hundredths, big.NewInt(100)).Int64(), units[i])
}

type treeIn struct {
	Path            string   `json:"path"`
	ExcludePatterns []string `json:"excludePatterns,omitempty"`
}

func directoryTree(ctx context.Context, c *toolkit.Call, in treeIn) (*mcp.CallToolResult, error) {
	if err := ignore.CheckGlobs(in.ExcludePatterns...); err != nil {
		return nil, err
	}
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	skip := func(rel string) bool {
		for _, pat := range in.ExcludePatterns {
			if strings.Contains(pat, "*") {
				if match(pat, rel) {
					return true
				}
				continue
			}
			// A name without a wildcard matches at any depth, as a file or a directory.
			if match(pat, rel) || match("**/"+pat, rel) || match("**/"+pat+"/**", rel) {
				return true
			}
		}
		return false
	}
	tree, err := files.DirTree(ctx, p, skip, c.Limits.MaxResults)
	if errors.Is(err, files.ErrTooManyEntries) {
		return nil, fmt.Errorf("The tree of %s has more than %d entries (fsmcp's --max-results); narrow it with excludePatterns or a deeper path", in.Path, c.Limits.MaxResults)
	}
	if err != nil {
		return nil, nodeErr(c, err, "scandir", p.Abs)
	}
	s, err := toolkit.IndentedJSON(tree)
	if err != nil {
		return nil, err
	}
	return text(s), nil
}

// match is minimatch(rel, pattern, {dot: true}); a pattern it cannot
// parse matches nothing.
func match(pattern, rel string) bool {
	ok, err := doublestar.Match(pattern, rel)
	return err == nil && ok
}

type searchIn struct {
	Path            string   `json:"path"`
	Pattern         string   `json:"pattern"`
	ExcludePatterns []string `json:"excludePatterns,omitempty"`
}

func searchFiles(ctx context.Context, c *toolkit.Call, in searchIn) (*mcp.CallToolResult, error) {
	if err := ignore.CheckGlobs(append([]string{in.Pattern}, in.ExcludePatterns...)...); err != nil {
		return nil, err
	}
	p, err := validate(c, in.Path)
	if err != nil {
		return nil, err
	}
	var found []string
	results := c.ResultCap()
	err = files.WalkNames(ctx, p, 0, func(rel string, isDir bool) bool {
		full := filepath.Join(p.Abs, filepath.FromSlash(rel))
		// Like the official search, skip what resolves outside the
		// roots or nowhere (dangling links), and what is excluded.
		if !c.Reaches(full) {
			return false
		}
		for _, pat := range in.ExcludePatterns {
			if match(pat, rel) {
				return false
			}
		}
		if match(in.Pattern, rel) {
			if results.Take() {
				found = append(found, escape.Name(full))
			}
		}
		return true
	})
	if err != nil {
		return nil, nodeErr(c, err, "scandir", p.Abs)
	}
	if len(found) == 0 {
		return text("No matches found"), nil
	}
	if results.Cut {
		found = append(found, fmt.Sprintf("(more matches not shown: fsmcp's --max-results is %d)", results.Max))
	}
	return text(strings.Join(found, "\n")), nil
}
