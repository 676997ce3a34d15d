package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// touchEvery: the restart row touches every touchEvery-th file (2%).
const touchEvery = 50

// buildRun is one server start timed until its index was ready.
type buildRun struct {
	took       time.Duration // until "index: ready"
	indexBytes int64
	peakCache  int64 // the cache directory's largest size meanwhile
	line       string
}

// indexBuildRows times the index of tree from nothing (a fresh cache
// directory), then a restart after touch on 2% of its files (contents
// unchanged, times moved), and prints both. It returns the cache
// directory, which the query servers then reuse (the caller removes it).
func indexBuildRows(bin, tree string) (string, error) {
	cache, err := os.MkdirTemp("", "fsmcp-bench-cache-")
	if err != nil {
		return "", err
	}
	cold, err := timeIndex(bin, tree, cache)
	if err != nil {
		return cache, err
	}
	fmt.Printf("index build, %s: %.1f s to ready; index %d MB; peak temporary disk %d MB beyond it (cache directory peak %d MB)\n",
		tree, cold.took.Seconds(), cold.indexBytes>>20, max(0, cold.peakCache-cold.indexBytes)>>20, cold.peakCache>>20)
	fmt.Printf("  %s\n", cold.line)
	n, err := touchShare(tree)
	if err != nil {
		return cache, err
	}
	warm, err := timeIndex(bin, tree, cache)
	if err != nil {
		return cache, err
	}
	fmt.Printf("restart after touch on %d files (every %dth): %.1f s to ready, %.0f%% of the build; index %d MB; peak temporary disk %d MB beyond the two indexes\n",
		n, touchEvery, warm.took.Seconds(), 100*warm.took.Seconds()/cold.took.Seconds(), warm.indexBytes>>20,
		max(0, warm.peakCache-cold.indexBytes-warm.indexBytes)>>20)
	fmt.Printf("  %s\n\n", warm.line)
	return cache, nil
}

var indexBytesRE = regexp.MustCompile(`index_bytes=(\d+)`)

// timeIndex starts bin on tree with --index on and the cache directory
// cache, and returns once its index is ready (built, or updated).
func timeIndex(bin, tree, cache string) (buildRun, error) {
	cmd := exec.Command(bin, "--index", "on", tree)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	stdin, err := cmd.StdinPipe() // held open: the server serves until it closes
	if err != nil {
		return buildRun{}, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return buildRun{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return buildRun{}, err
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // the cache directory's size, four times a second
		defer close(sampled)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			if n := dirBytes(cache); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	var run buildRun
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "index:") {
			fmt.Fprintln(os.Stderr, "bench: fsmcp:", line)
		}
		if strings.Contains(line, "index: not built") {
			close(stop)
			return run, fmt.Errorf("%s", line)
		}
		if strings.Contains(line, "index: ready") || strings.Contains(line, "index: reusing") {
			run.took = time.Since(start)
			if m := indexBytesRE.FindStringSubmatch(line); m != nil {
				fmt.Sscan(m[1], &run.indexBytes)
			}
			if i := strings.Index(line, "msg="); i >= 0 {
				run.line = line[i:]
			}
			break
		}
	}
	close(stop)
	<-sampled
	go io.Copy(io.Discard, stderr)
	run.peakCache = peak.Load()
	if run.took == 0 {
		return run, fmt.Errorf("the server ended before its index was ready")
	}
	return run, nil
}

// dirBytes is the size of the files below dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// touchShare sets the times of every touchEvery-th file of tree (.git
// left out) to now, as touch does: contents unchanged, times moved.
func touchShare(tree string) (int, error) {
	now := time.Now()
	i, n := 0, 0
	err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if i++; i%touchEvery == 0 {
			n++
			return os.Chtimes(p, now, now)
		}
		return nil
	})
	time.Sleep(2100 * time.Millisecond) // past the index's settle time (2 s), so what was touched is indexed again
	return n, err
}
