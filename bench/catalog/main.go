// Command catalog times fs_catalog's core on a generated tree of 100,000
// files (1,000 directories of 100) and prints the median of several runs.
// `make bench` runs it; the tree is kept in -dir between runs if given.
//
//	go run ./bench/catalog [-dir DIR] [-runs 5]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/fsmcp/fsmcp/catalog"
	"github.com/fsmcp/fsmcp/sandbox"
)

const (
	dirs   = 1000
	perDir = 100
)

func main() {
	dir := flag.String("dir", "", "where to build the tree (default: a temporary directory, removed afterwards)")
	runs := flag.Int("runs", 5, "timed runs")
	flag.Parse()
	if err := run(*dir, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench/catalog:", err)
		os.Exit(1)
	}
}

func run(dir string, runs int) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "fsmcp-bench-catalog-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	tree := filepath.Join(dir, "tree")
	if _, err := os.Stat(tree); err != nil {
		start := time.Now()
		if err := build(tree); err != nil {
			return err
		}
		fmt.Printf("built %d files in %v\n", dirs*perDir, time.Since(start).Round(time.Millisecond))
	}
	sb, errs := sandbox.New([]string{dir})
	if len(errs) > 0 {
		return errs[0]
	}
	defer sb.Close()
	target, err := sb.Resolve(tree)
	if err != nil {
		return err
	}
	var times []time.Duration
	var peak uint64
	for i := range runs + 2 { // one to warm the cache, one more to sample the heap // the first run warms the cache and is not counted
		out, err := sb.Resolve(filepath.Join(dir, fmt.Sprintf("catalog-%d.tsv", i)))
		if err != nil {
			return err
		}
		stop := func() {}
		if i == runs+1 {
			stop = sampleHeap(&peak)
		}
		start := time.Now()
		n, err := catalog.Create(context.Background(), target, out, catalog.Options{})
		d := time.Since(start)
		stop()
		os.Remove(out.Abs)
		if err != nil {
			return err
		}
		if n != dirs*perDir {
			return fmt.Errorf("catalog has %d rows, want %d", n, dirs*perDir)
		}
		if i > 0 && i <= runs {
			times = append(times, d)
		}
	}
	slices.Sort(times)
	fmt.Printf("fs_catalog, %d files: median %v over %d runs (min %v, max %v); peak Go heap in use %.1f MiB\n",
		dirs*perDir, times[len(times)/2].Round(time.Millisecond), len(times),
		times[0].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond), float64(peak)/(1<<20))
	return nil
}

// sampleHeap records the largest HeapInuse seen every few milliseconds
// until the returned function is called: the catalog's memory must not
// grow with the tree.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

func build(tree string) error {
	for d := range dirs {
		sub := filepath.Join(tree, fmt.Sprintf("d%02d", d%50), fmt.Sprintf("e%04d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%03d.txt", f)), []byte("x\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
