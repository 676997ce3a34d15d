package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Shape of the generated tree: 100 × 20 directories of 50 files.
const (
	genTop, genSub, genFiles = 100, 20, 50
)

// gen100k returns a generated 100k-file tree, creating it on first use
// (in $TMPDIR/fsmcp-bench-100k, reused while its marker file exists).
func gen100k() string {
	dir := filepath.Join(os.TempDir(), "fsmcp-bench-100k")
	marker := filepath.Join(dir, ".generated")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	fmt.Fprintf(os.Stderr, "bench: generating %d files in %s ...\n", genTop*genSub*genFiles, dir)
	_ = os.RemoveAll(dir)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for top := range genTop {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rnd := rand.New(rand.NewSource(int64(top)))
			for sub := range genSub {
				d := filepath.Join(dir, fmt.Sprintf("pkg%03d", top), fmt.Sprintf("mod%02d", sub))
				if err := os.MkdirAll(d, 0o755); err != nil {
					panic(err)
				}
				if sub == 0 {
					_ = os.WriteFile(filepath.Join(d, ".gitignore"), []byte("*.tmp\n/build/\n"), 0o644)
				}
				for f := range genFiles {
					name := fmt.Sprintf("file%02d.go", f)
					switch f % 10 {
					case 7:
						name = fmt.Sprintf("notes%02d.md", f)
					case 9:
						name = fmt.Sprintf("data%02d.txt", f)
					}
					if err := os.WriteFile(filepath.Join(d, name), genFile(rnd, top, sub, f), 0o644); err != nil {
						panic(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		panic(err)
	}
	return dir
}

var genWords = strings.Fields("value result config buffer reader writer handler server client request response token index count offset length header packet stream cache entry record field option state event")

// genFile returns ~1.5 KB of Go-like text; the benchmarked patterns
// occur at fixed, modest rates.
func genFile(rnd *rand.Rand, top, sub, f int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "package pkg%03d\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n", top)
	for i := range 12 {
		w1, w2 := genWords[rnd.Intn(len(genWords))], genWords[rnd.Intn(len(genWords))]
		switch rnd.Intn(20) {
		case 0:
			fmt.Fprintf(&b, "func %s%d(ctx context.Context, %s int) error {\n", w1, i, w2)
		case 1:
			fmt.Fprintf(&b, "\treturn fmt.Errorf(\"%s %s: %%w\", err)\n", w1, w2)
		case 2:
			fmt.Fprintf(&b, "\tmu sync.Mutex // guards %s\n", w1)
		case 3:
			fmt.Fprintf(&b, "\t// Deadline Exceeded while reading %s\n", w2)
		default:
			fmt.Fprintf(&b, "func (s *%s) %s%d(%s int) (int, error) {\n", w1, strings.ToUpper(w2[:1])+w2[1:], i, w2)
		}
		fmt.Fprintf(&b, "\tif %s > %d {\n\t\treturn nil\n\t}\n\t%s := %s + %d\n\t_ = %s\n}\n\n", w2, rnd.Intn(100), w1, w2, sub*f, w1)
	}
	return []byte(b.String())
}
