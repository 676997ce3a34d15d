// Command bench times fsmcp's search backends against rg alone.
//
//	go run ./bench [-runs 7] [-trees goroot,100k] [-limit 1000] [-mcp=true] [-index off|on]
//
// Run it from the module root. For each tree and query it runs, warm, the
// same search several ways, one column each (a runner):
//   - rg alone: the rg process with the flags the backend passes, its
//     output drained from a pipe;
//   - rg confined (-confined, where Landlock is): the same rg run
//     confined as the rg backend runs it (read-only to the tree), so
//     that what the adapter costs shows apart from what Landlock costs:
//     the last columns divide the rg backend's and mcp rg's times by it;
//   - rg backend, native: the backends called in-process, results
//     collected into fs_grep's page (-limit entries) and formatted;
//   - mcp rg, mcp native (-mcp): fs_grep / fs_glob called through the
//     go-sdk MCP client on an already started fsmcp binary (stdio), once
//     with rg on its PATH and once without.
//
// Runs are interleaved across columns; each cell is the median of -runs
// runs after one warm-up, with its ratio to rg alone. Peak RSS is VmHWM,
// reset before each tree: of this process (in-process backends) and of
// each fsmcp server (rg's own memory is another process's).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver"
	"github.com/fsmcp/fsmcp/backend/driver/confine"
	"github.com/fsmcp/fsmcp/backend/native"
)

// query is one benchmarked search; glob queries set glob. rgGlob, if
// set, is the --glob rg alone is timed with (rg --files -g GLOB), else
// rg alone lists every file.
type query struct {
	name   string
	grep   backend.GrepQuery
	glob   string
	rgGlob string
}

var queries = []query{
	{name: "literal", grep: backend.GrepQuery{Pattern: "Errorf", Mode: backend.Content}},
	{name: "regex", grep: backend.GrepQuery{Pattern: `func \w+\(ctx context\.Context`, Mode: backend.Content}},
	{name: "case-insensitive", grep: backend.GrepQuery{Pattern: "deadline exceeded", IgnoreCase: true, Mode: backend.Content}},
	{name: "files-only", grep: backend.GrepQuery{Pattern: "sync.Mutex", Mode: backend.FilesWithMatches}},
	{name: "count", grep: backend.GrepQuery{Pattern: "return nil", Mode: backend.Count}},
	{name: "glob **/*.go", glob: "**/*.go"},
}

// runner performs one query on one tree.
type runner struct {
	name string
	run  func(ctx context.Context, tree string, q query) error
}

func main() {
	maybeStopChild()
	runs := flag.Int("runs", 7, "timed runs per cell (median reported); one warm-up run precedes them")
	trees := flag.String("trees", "goroot,100k", "trees to search: goroot, 100k, linux (issue 14's queries on the Linux 6.12 source), mono (12 distinct copies of it under one git init, -copies), or directories")
	limit := flag.Int("limit", 1000, "entries kept per search (the in-process collector's page; fs_grep's head_limit)")
	only := flag.String("only", "", "run only the queries whose name contains this")
	useMCP := flag.Bool("mcp", true, "also time fs_grep/fs_glob through a real MCP client against the built fsmcp binary (stdio), with and without rg on its PATH")
	inProc := flag.Bool("inprocess", true, "time the backends called in-process")
	inGit := flag.Bool("git", true, "for the trees the bench makes (100k, linux), also time every row inside a git repository: the same tree with a .git directory, as after git init, so that .gitignore files count")
	loadN := flag.Int("load", 100, "concurrent fs_grep calls over HTTP for the load row (0: no load row)")
	editMB := flag.Int("edit", 200, "MiB of the file fs_edit changes for the edit row (0: no edit row)")
	journalN := flag.Int("journal", 50, "small fs_write and fs_edit calls timed with the change journal on and off (0: no journal rows)")
	journalShell := flag.Int("journal-shell", 7, "runs of each fs_bash journal row (0: none)")
	hookRuns := flag.Int("hooks", 15, "runs of each hooks row: what fsmcp's hooks add to Claude Code's Edit and Bash and to Codex's apply_patch and exec_command (0: none)")
	stopFloor := flag.Int("stop-floor", 5, "runs of the stop-floor row: what one seccomp stop costs here, answered at once and by the journal, for a command that creates many files (0: none; Linux)")
	journalOnly := flag.String("journal-only", "", "run only the fs_bash journal rows whose name contains this (e.g. \"tar x\")")
	flag.Func("journal-user", "run the fs_bash journal rows' servers as this user (uid:gid; the bench runs as root): a user's tar makes no fchown", parseUser)
	journalGit := flag.String("journal-git", "", "the tree of the git checkout row: linux (the default where Debian's linux-source-6.12 is installed), goroot, a directory, or - for none")
	journalBig := flag.Int("journal-big", 10, "GiB the big-write journal row writes (0: no such row)")
	paging := flag.Bool("paging", true, "time a later fs_grep and fs_glob page against the first on the largest tree (the last one given)")
	pagingGrep := flag.String("paging-grep", "", "the paging row's fs_grep pattern (default: Errorf, kmalloc on the linux and mono trees; - for none)")
	pagingGlob := flag.String("paging-glob", "", "the paging row's fs_glob pattern (default: **/*.go, **/*.c on the linux and mono trees; - for none)")
	index := flag.String("index", "off", "the servers' --index: off, or on (wait for each root's index before timing)")
	indexCache := flag.String("index-cache", "", "with -index on, serve from this index cache directory (XDG_CACHE_HOME) instead of timing the build rows in a fresh one")
	confined := flag.Bool("confined", false, "add the \"rg confined\" column (rg under the rg backend's Landlock policy) and the adapter's ratios to it")
	floor := flag.Bool("floor", false, "add the \"rg on answer\" column: rg given exactly the files that match (the least any exact index can read)")
	flag.IntVar(&monoCopies, "copies", monoCopies, "copies of the Linux tree in the mono tree")
	flag.Parse()

	rgBin, err := exec.LookPath("rg")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: rg not on PATH; the rg columns need it")
		os.Exit(1)
	}
	rg, _ := driver.NewRG(rgBin)
	native := native.New()
	runners := []runner{
		{"rg alone", func(ctx context.Context, tree string, q query) error { return rgAlone(ctx, rgBin, tree, q) }},
	}
	if *confined && confine.Confined() {
		runners = append(runners, runner{"rg confined", func(ctx context.Context, tree string, q query) error { return rgConfined(ctx, rgBin, tree, q) }})
	}
	if *inProc {
		runners = append(runners, runner{"rg backend", inProcess(rg, *limit)}, runner{"native", inProcess(native, *limit)})
	}
	if *floor {
		runners = append(runners, floorRunner(rgBin))
	}
	type treeDir struct {
		dir, label string
		queries    []query
		git        bool // timed with a .git directory made for its rows
		kernel     bool // the Linux source (linux, mono)
	}
	var dirs []treeDir
	for _, t := range strings.Split(*trees, ",") {
		dir, label := resolveTree(t)
		qs := queries
		switch t {
		case "linux":
			qs = linuxQueries
		case "mono":
			qs = monoQueries
		}
		dirs = append(dirs, treeDir{dir, label, qs, false, t == "linux" || t == "mono"})
		if _, err := os.Lstat(filepath.Join(dir, ".git")); *inGit && (t == "100k" || t == "linux") && os.IsNotExist(err) {
			dirs = append(dirs, treeDir{dir, label + " in git", qs, true, t == "linux"})
		}
	}
	var servers []*mcpServer
	var bin string
	if *useMCP || *loadN > 0 || *paging || *editMB > 0 || *journalN > 0 || *journalShell > 0 || *hookRuns > 0 || *stopFloor > 0 {
		var err error
		bin, err = buildBinary()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: building fsmcp:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(filepath.Dir(bin)) // the build's temp dir
	}
	if *index == "on" && *indexCache != "" {
		os.Setenv("XDG_CACHE_HOME", *indexCache)
	} else if *index == "on" && bin != "" {
		for _, d := range dirs {
			if !strings.HasPrefix(d.label, "mono") {
				continue
			}
			// The build rows' cache is the one the servers below reuse.
			cache, err := indexBuildRows(bin, d.dir)
			if cache != "" {
				defer os.RemoveAll(cache)
				os.Setenv("XDG_CACHE_HOME", cache)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: index build rows:", err)
			}
		}
	}
	if *useMCP {
		var roots []string
		for _, d := range dirs {
			roots = append(roots, d.dir)
		}
		for _, withRG := range []bool{true, false} {
			s, err := startMCP(bin, withRG, roots, *index)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: starting fsmcp:", err)
				os.Exit(1)
			}
			defer s.close()
			servers = append(servers, s)
		}
		runners = append(runners,
			runner{"mcp rg", servers[0].runner(*limit)},
			runner{"mcp native", servers[1].runner(*limit)})
	}

	fmt.Printf("fsmcp search bench: %s, GOMAXPROCS=%d, %s, median of %d warm runs\n\n",
		runtime.Version(), runtime.GOMAXPROCS(0), rgVersion(rgBin), *runs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "tree\tquery\t")
	for i, r := range runners {
		fmt.Fprintf(tw, "%s ms\t", r.name)
		if i > 0 {
			fmt.Fprint(tw, "ratio\t")
		}
	}
	adapters := adapterColumns(runners)
	for _, a := range adapters {
		fmt.Fprintf(tw, "%s / confined\t", runners[a].name)
	}
	fmt.Fprintln(tw)
	var rss []string
	for _, td := range dirs {
		dir, label := td.dir, td.label
		if td.git {
			// As after git init: rg and fsmcp both look for .git only.
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				continue
			}
		}
		first := true
		for _, q := range td.queries {
			if !strings.Contains(q.name, *only) {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t", label, q.name)
			if first {
				first = false
				resetPeakRSS()
				for _, s := range servers {
					s.resetPeakRSS()
				}
			}
			// Runs are interleaved (rg, rg backend, native, rg, ...) so
			// that load from elsewhere on the machine hits every column
			// alike; each cell is the median of its runs.
			times := make([][]time.Duration, len(runners))
			for round := -1; round < *runs; round++ { // round -1 warms up
				for i, r := range runners {
					start := time.Now()
					err := r.run(context.Background(), dir, q)
					if errors.Is(err, errNoFloor) {
						continue
					}
					if err != nil {
						fmt.Fprintf(os.Stderr, "bench: %s %s %s: %v\n", label, q.name, r.name, err)
					}
					if round >= 0 {
						times[i] = append(times[i], time.Since(start))
					}
				}
			}
			var base time.Duration
			for i := range runners {
				if len(times[i]) == 0 {
					fmt.Fprint(tw, "-\t-\t")
					continue
				}
				d := median(times[i])
				fmt.Fprintf(tw, "%.1f\t", ms(d))
				if i == 0 {
					base = d
				} else {
					fmt.Fprintf(tw, "%.2fx\t", float64(d)/float64(base))
				}
			}
			for _, a := range adapters {
				if len(times[a]) == 0 || len(times[1]) == 0 {
					fmt.Fprint(tw, "-\t")
					continue
				}
				fmt.Fprintf(tw, "%.2fx\t", float64(median(times[a]))/float64(median(times[1])))
			}
			fmt.Fprintln(tw)
		}
		if td.git {
			_ = os.Remove(filepath.Join(dir, ".git"))
		}
		rss = append(rss, fmt.Sprintf("%s: peak RSS of the bench process (in-process backends): %d MB", label, peakRSS()>>20))
		if len(servers) == 2 {
			rss = append(rss, fmt.Sprintf("%s: peak RSS of fsmcp serving the searches: %d MB with rg (rg itself not counted), %d MB native",
				label, servers[0].peakRSS()>>20, servers[1].peakRSS()>>20))
		}
	}
	tw.Flush()
	fmt.Println()
	for _, l := range rss {
		fmt.Println(l)
	}
	if *loadN > 0 || *paging || *editMB > 0 {
		fmt.Println()
	}
	if *loadN > 0 {
		loadRow(bin, dirs[0].dir, *loadN)
	}
	if *paging {
		last := dirs[len(dirs)-1]
		gp, gl := "Errorf", "**/*.go"
		if last.kernel {
			gp, gl = "kmalloc", "**/*.c"
		}
		pagingRow(bin, last.dir, strings.TrimSuffix(last.label, " in git"), *runs, flagOr(*pagingGrep, gp), flagOr(*pagingGlob, gl))
	}
	if *editMB > 0 {
		editRow(bin, *editMB)
	}
	if *journalN > 0 {
		journalRow(bin, *journalN)
	}
	if *journalShell > 0 {
		journalShellRows(bin, *journalShell, gitTreeFor(*journalGit), *journalBig, *journalOnly)
	}
	if *stopFloor > 0 {
		stopFloorRows(bin, *stopFloor)
	}
	if *hookRuns > 0 {
		hookRows(bin, *hookRuns)
		codexHookRows(bin, *hookRuns)
	}
}

// flagOr is a string flag's value, def when it is empty, "" for "-".
func flagOr(v, def string) string {
	switch v {
	case "":
		return def
	case "-":
		return ""
	}
	return v
}

func inProcess(s backend.Searcher, limit int) func(context.Context, string, query) error {
	return func(ctx context.Context, tree string, q query) error {
		if q.glob != "" {
			n := 0
			return s.Glob(ctx, backend.GlobQuery{Pattern: q.glob, Paths: []string{tree}}, func(backend.File) error { n++; return nil })
		}
		g := q.grep
		g.Paths = []string{tree}
		r, err := backend.Run(ctx, s, g, 0, limit)
		if err == nil {
			_ = backend.Format(r, backend.FormatOptions{LineNumbers: true})
		}
		return err
	}
}

// rgAlone runs the rg process with the backend's own flags and drains
// its output, the way the backend would.
func rgAlone(ctx context.Context, bin, tree string, q query) error {
	return runRG(ctx, bin, tree, rgArgs(q))
}

// rgArgs are the backend's own rg flags for q, searching "./".
func rgArgs(q query) []string {
	if q.glob == "" {
		return append(driver.GrepArgs(q.grep), "./")
	}
	args := driver.FilesArgs(false)
	if q.rgGlob != "" {
		args = append(args[:len(args)-1], "--glob", q.rgGlob, "--")
	}
	return append(args, "./")
}

// rgConfined is rgAlone under the Landlock policy the rg backend gives
// rg for a search of tree: read-only to the tree (confine.Start adds the
// program and the system's libraries).
func rgConfined(ctx context.Context, bin, tree string, q query) error {
	cmd := exec.CommandContext(ctx, bin, rgArgs(q)...)
	cmd.Dir = tree
	return drain(cmd, func(c *exec.Cmd) error { return confine.Start(c, confine.Policy{Dirs: []string{tree}}) })
}

// adapterColumns are the runners timed against rg confined (runner 1
// when there is one): the rg backend and mcp rg.
func adapterColumns(runners []runner) []int {
	if len(runners) < 2 || runners[1].name != "rg confined" {
		return nil
	}
	var out []int
	for i, r := range runners {
		if r.name == "rg backend" || r.name == "mcp rg" {
			out = append(out, i)
		}
	}
	return out
}

// runRG runs rg in dir and drains its output; exit status 1 (nothing
// found) is no error.
func runRG(ctx context.Context, bin, dir string, args []string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	return drain(cmd, (*exec.Cmd).Start)
}

// drain starts cmd with start and reads its output to the end; exit
// status 1 (nothing found) is no error.
func drain(cmd *exec.Cmd, start func(*exec.Cmd) error) error {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := start(cmd); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, bufio.NewReaderSize(out, 256<<10))
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return nil
	}
	return err
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func rgVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "rg ?"
	}
	return strings.SplitN(string(out), "\n", 2)[0]
}

func resolveTree(t string) (dir, label string) {
	switch t {
	case "goroot":
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: go env GOROOT:", err)
			os.Exit(1)
		}
		return filepath.Join(strings.TrimSpace(string(out)), "src"), "GOROOT/src"
	case "100k":
		return gen100k(), "100k files"
	case "linux":
		dir, err := linuxTree()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return dir, "linux-6.12"
	case "mono":
		dir, err := monoTree()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return dir, fmt.Sprintf("mono (%dx linux)", monoCopies)
	}
	return t, filepath.Base(t)
}

// resetPeakRSS resets VmHWM (Linux: "5" to clear_refs).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns this process's VmHWM in bytes (0 if unknown).
func peakRSS() int64 { return vmHWM("/proc/self/status") }
