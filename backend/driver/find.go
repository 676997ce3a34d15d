package driver

import (
	"bufio"
	"context"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/ignore"
)

// Find is the backend that lists files with find(1) — for hosts without
// rg where an external walker is still wanted — and greps with the native
// scanner. find knows nothing of ignore files, so the listing is filtered
// here with the same rules as the native walker (Filter, IgnoreDir).
type Find struct {
	bin    string
	native backend.Searcher
}

// NewFind returns the find backend; native serves Grep.
func NewFind(native backend.Searcher) (*Find, error) {
	bin, err := lookPath("find")
	if err != nil {
		return nil, err
	}
	return &Find{bin: bin, native: native}, nil
}

// Name implements Searcher.
func (f *Find) Name() string { return "find" }

// Grep implements Searcher with the native scanner.
func (f *Find) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	return f.native.Grep(ctx, q, sink)
}

// Glob implements Searcher.
func (f *Find) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	if err := ignore.CheckGlob(q.Pattern); err != nil {
		return err
	}
	filter, err := ignore.NewFilter(nil, nil, q.NoIgnore)
	if err != nil {
		return err
	}
	rg := &RG{bin: f.bin} // reuse the process runner
	seen := backend.NewProgress(q.Progress)
	for _, p := range q.Paths {
		base, pat, ok := backend.GlobBase(p, q.Pattern)
		if !ok {
			continue
		}
		base = strings.TrimSuffix(base, "/")
		if base == "" {
			base = "/"
		}
		type level struct {
			dir  string
			ig   *ignore.IgnoreDir
			skip bool
		}
		var rootIg *ignore.IgnoreDir
		if !q.NoIgnore {
			rootIg = ignore.ParentIgnores(base, backend.RootOf(backend.RootsOr(q.Roots, p), base)).ChildProbe(base)
		}
		stack := []level{{dir: base, ig: rootIg}}
		match := backend.GlobMatcher(pat)
		depth := backend.GlobDepth(pat)
		// %y type, %T@ mtime, %s size, %p path; NUL-terminated records.
		args := []string{"-P", base, "-mindepth", "1", "-printf", `%y %T@ %s %p\0`}
		err := rg.run(ctx, runSpec{dir: "/", pol: readPolicy(q.Roots, q.RootDirs, p), args: args}, func(out *bufio.Reader) error {
			rd := lineReader{r: out}
			for {
				rec, err := rd.until(0)
				if err == io.EOF {
					return nil
				} else if err != nil {
					return err
				}
				fields := strings.SplitN(string(rec), " ", 4)
				if len(fields) != 4 {
					continue
				}
				typ, path := fields[0], fields[3]
				parent := path[:strings.LastIndexByte(path, '/')]
				if parent == "" {
					parent = "/"
				}
				for len(stack) > 1 && stack[len(stack)-1].dir != parent {
					stack = stack[:len(stack)-1]
				}
				top := stack[len(stack)-1]
				if top.dir != parent || top.skip {
					continue // inside a skipped directory
				}
				name := path[len(parent):]
				name = strings.TrimPrefix(name, "/")
				switch typ {
				case "d":
					skip := filter.Skip(top.ig, base, path, name, true)
					// find goes deeper than rg can; skip and count as it does.
					if rel := strings.TrimPrefix(path[len(base):], "/"); !skip && backend.TooLong(len(rel)) {
						if depth == 0 || strings.Count(rel, "/")+1 < depth {
							q.Skipped.Add(1)
						}
						skip = true
					}
					var ig *ignore.IgnoreDir
					if !skip && !q.NoIgnore {
						ig = top.ig.ChildProbe(path)
					}
					stack = append(stack, level{dir: path, ig: ig, skip: skip})
				case "f":
					if filter.Skip(top.ig, base, path, name, false) {
						continue
					}
					rel := path[len(base):]
					rel = strings.TrimPrefix(rel, "/")
					if !match(rel) {
						continue
					}
					if backend.TooLong(len(rel)) {
						q.Skipped.Add(1)
						continue
					}
					secs, _ := strconv.ParseFloat(fields[1], 64)
					size, _ := strconv.ParseInt(fields[2], 10, 64)
					whole, frac := math.Modf(secs)
					mt := time.Unix(int64(whole), int64(frac*1e9))
					if err := fn(backend.File{Path: path, ModTime: mt, Size: size}); err != nil {
						return err
					}
					seen.Add()
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}
