package index

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
	"github.com/fsmcp/fsmcp/backend/queue"
	"github.com/fsmcp/fsmcp/files"
)

// BenchmarkIndexedGlob times fs_glob's search on the tree named by
// FSMCP_BENCH_TREE with its index in use and followed, as a server runs
// it (the page cache in front, the first 1000 files newest first kept),
// beside `rg --files -g` on the same tree. The index is cached in
// FSMCP_BENCH_CACHE (default: a temporary directory). Each file needs a
// watch of its own for the case issue 36 measures: the log line
// file_watches= says how many got one.
//
//	FSMCP_BENCH_TREE=/path go test -run '^$' -bench IndexedGlob -cpuprofile cpu.out ./index
func BenchmarkIndexedGlob(b *testing.B) {
	tree := os.Getenv("FSMCP_BENCH_TREE")
	if tree == "" {
		b.Skip("FSMCP_BENCH_TREE is not set")
	}
	cache := os.Getenv("FSMCP_BENCH_CACHE")
	if cache == "" {
		cache = b.TempDir()
	}
	native := native.New()
	s, err := New(native, native, Options{Mode: "on", Roots: []string{tree}, CacheDir: cache})
	if err != nil {
		b.Fatal(err)
	}
	s.Start(context.Background())
	s.Wait()
	defer s.Close()
	if !s.Ready() || runtime.GOOS == "linux" && !pruning(s) {
		b.Fatal("the index is not in use and followed")
	}
	glob := func(b *testing.B, s backend.Searcher, pattern string) {
		for b.Loop() {
			g, err := files.Glob(context.Background(), s, backend.GlobQuery{Pattern: pattern, Paths: []string{tree}, Roots: []string{tree}},
				files.GlobOptions{Limit: 1000, Order: files.Newest})
			if err != nil || g.Total == 0 {
				b.Fatal(err, g)
			}
		}
	}
	paged := queue.NewPages(0, 0).Searcher(s)
	// A page cache too small to keep the result whole keeps its first
	// files (a heap), as on issue 36's 1M-file tree, where **/*.c's
	// 415,896 paths are four times what one result may keep.
	small := queue.NewPages(0, 2<<20).Searcher(s)
	for _, c := range []struct{ pattern, rg string }{{"**/*.c", "*.c"}, {"**/Makefile", "Makefile"}} {
		b.Run("fs_glob "+c.pattern, func(b *testing.B) { glob(b, paged, c.pattern) })
		b.Run("fs_glob, kept in part, "+c.pattern, func(b *testing.B) { glob(b, small, c.pattern) })
		b.Run("rg --files -g "+c.rg, func(b *testing.B) {
			if _, err := exec.LookPath("rg"); err != nil {
				b.Skip("rg is not on PATH")
			}
			for b.Loop() {
				if err := exec.Command("rg", "--files", "-g", c.rg, tree).Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
