package localcowork

import (
	"context"
	"encoding/json"
	"math"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/sandbox"
	"github.com/fsmcp/fsmcp/toolkit"
)

// fileInfo is the original's FileInfo: a listing's and a search's entry.
type fileInfo struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Type     string `json:"type"` // file, dir or symlink
	Size     int64  `json:"size"`
	Modified string `json:"modified"`
}

// infoType is a FileInfo type: "dir" here (get_metadata says "directory"),
// and anything neither a directory nor a symlink is a "file", as the
// original's Dirent test has it.
func infoType(t files.Type) string {
	switch t {
	case files.TypeDir:
		return "dir"
	case files.TypeSymlink:
		return "symlink"
	}
	return "file"
}

func infoOf(entries []files.Entry) []fileInfo {
	out := make([]fileInfo, 0, len(entries))
	for _, e := range entries {
		out = append(out, fileInfo{Name: path.Base(e.Rel), Path: e.Abs, Type: infoType(e.Type), Size: e.Size, Modified: isoTime(e.ModTime)})
	}
	return out
}

// isoTime is JavaScript's Date.toISOString of a Node stat time: UTC, in
// milliseconds as Node counts them: sec*1e3 + nsec/1e6 in float64, then
// Math.round (ties up). So …10.122999999 is .123 and …10.122499999 is .123
// too (the float sum is …122.5), where truncating gave .122.
func isoTime(t time.Time) string {
	ms := float64(t.Unix())*1e3 + float64(t.Nanosecond())/1e6
	return time.UnixMilli(int64(math.Floor(ms + 0.5))).UTC().Format("2006-01-02T15:04:05.000Z")
}

// findLive is files.Find without the dangling symlinks the original
// skips (its fs.stat of each entry failed), which do not count toward Max
// there either: a walk stopped at Max that dropped some is run again
// asking for twice as many, up to maxGrowth times Max (the memory bound).
// A symlink kept carries its target's size and time (followed).
func findLive(ctx context.Context, c *toolkit.Call, dir *sandbox.Path, opt files.FindOptions) ([]files.Entry, error) {
	want := opt.Max
	for {
		entries, truncated, err := files.Find(ctx, dir, opt)
		if err != nil {
			return nil, err
		}
		kept := followed(c, entries)
		if want <= 0 || len(kept) >= want || !truncated || opt.Max >= maxGrowth*want {
			if want > 0 && len(kept) > want {
				kept = kept[:want]
			}
			return kept, nil
		}
		opt.Max *= 2
	}
}

// maxGrowth bounds how far findLive widens a walk past dangling links.
const maxGrowth = 8

// followed reports each symlink of a listing as the original does: its
// type from lstat ("symlink"), its size and time from a stat that follows
// it — the target's, a directory's size 0 as for any directory listed.
// The core's stat (files.Stat) follows a link inside its root only, so:
//   - a link whose target is missing (dangling) is left out, as the
//     original's failing fs.stat left it out, and so is one that cannot
//     be followed at all (a loop);
//   - a link whose target leaves its root is kept with its own size and
//     time (lstat): whether, and what, lies outside is never looked at.
func followed(c *toolkit.Call, entries []files.Entry) []files.Entry {
	out := entries[:0]
	for _, e := range entries {
		if e.Type == files.TypeSymlink {
			p, err := c.ResolveFound(e.Abs)
			if err != nil { // not in the roots: a listing holds only what is
				out = append(out, e)
				continue
			}
			st, err := files.Stat(p)
			switch {
			case err == nil:
				e.Size, e.ModTime = st.Size, st.Mtime
				if st.Type == files.TypeDir {
					e.Size = 0
				}
			case fault.KindOf(err) == fault.Outside:
				// kept as listed: the link's own size and time
			default:
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// result is the original's answer: the data's JSON (JSON.stringify,
// compact) as the one text content.
func result(data any) (*mcp.CallToolResult, error) {
	text, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
}

// nameGlob is the original's glob test on a name: `*` any run, `?` one
// character, the rest literal, case-insensitive; anchored when anchored.
func nameGlob(pattern string, anchored bool) *regexp.Regexp {
	q := regexp.QuoteMeta(pattern)
	q = strings.ReplaceAll(q, `\*`, ".*")
	q = strings.ReplaceAll(q, `\?`, ".")
	if anchored {
		q = "^" + q + "$"
	}
	return regexp.MustCompile("(?is)" + q)
}

// searchRegex is search_files' pattern: a glob when it has * or ?, else a
// regular expression, else (not valid) the literal text; never anchored,
// case-insensitive.
func searchRegex(pattern string) *regexp.Regexp {
	if strings.ContainsAny(pattern, "*?") {
		return nameGlob(pattern, false)
	}
	if re, err := regexp.Compile("(?i)" + pattern); err == nil {
		return re
	}
	return regexp.MustCompile("(?i)" + regexp.QuoteMeta(pattern))
}

// category is the original's getFileCategory.
func category(name string) string {
	ext := strings.ToLower(nodeExt(name))
	for _, c := range categories {
		for _, e := range c.exts {
			if e == ext {
				return c.name
			}
		}
	}
	return "other"
}

var categories = []struct {
	name string
	exts []string
}{
	{"document", []string{".pdf", ".docx", ".doc", ".txt", ".md", ".rtf", ".odt", ".html"}},
	{"spreadsheet", []string{".xlsx", ".xls", ".csv", ".tsv", ".ods"}},
	{"image", []string{".jpg", ".jpeg", ".png", ".gif", ".bmp", ".tiff", ".webp", ".svg"}},
	{"audio", []string{".mp3", ".wav", ".m4a", ".ogg", ".flac", ".aac", ".wma"}},
	{"video", []string{".mp4", ".avi", ".mkv", ".mov", ".wmv", ".flv", ".webm"}},
	{"archive", []string{".zip", ".tar", ".gz", ".rar", ".7z", ".bz2"}},
	{"code", []string{".ts", ".js", ".py", ".rs", ".go", ".java", ".c", ".cpp", ".h"}},
}

// nodeExt is Node's path.extname: from the last dot of the base name, but
// "" for a name whose only dot leads it (.bashrc).
func nodeExt(p string) string {
	base := path.Base(strings.TrimRight(p, "/"))
	i := strings.LastIndexByte(base, '.')
	if i <= 0 || strings.Trim(base, ".") == "" {
		return ""
	}
	return base[i:]
}

// permissions is the original's rwx string of a mode's low nine bits.
func permissions(mode uint32) string {
	const rwx = "rwxrwxrwx"
	b := []byte("---------")
	for i := 0; i < 9; i++ {
		if mode&(1<<(8-i)) != 0 {
			b[i] = rwx[i]
		}
	}
	return string(b)
}
