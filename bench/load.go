package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 25's rows: a burst of concurrent searches over Streamable HTTP
// against one server (all must complete; a small read's latency during
// it; the server's memory), and the cost of a later page of one search
// against its first.

// httpServer is a running fsmcp binary serving HTTP on loopback.
type httpServer struct {
	cmd *exec.Cmd
	url string
}

var servingURL = regexp.MustCompile(`url=(http://\S+/mcp)`)

// startHTTP starts bin over HTTP on a free loopback port, without a token
// (the bench is its only client), serving root.
func startHTTP(bin, root string, args ...string) (*httpServer, error) {
	args = append([]string{"--transport", "http", "--listen", "127.0.0.1:0", "--no-auth", "--index", "off"}, append(args, root)...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := servingURL.FindStringSubmatch(sc.Text()); m != nil && !sent {
				urlc <- m[1]
				sent = true
			}
		}
		if !sent {
			close(urlc)
		}
	}()
	select {
	case u, ok := <-urlc:
		if !ok {
			return nil, fmt.Errorf("fsmcp exited before serving http")
		}
		return &httpServer{cmd: cmd, url: u}, nil
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		return nil, fmt.Errorf("fsmcp did not serve http within a minute")
	}
}

func (s *httpServer) close() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

func (s *httpServer) connect() (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return mcp.NewClient(&mcp.Implementation{Name: "fsmcp-bench", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
}

func (s *httpServer) status(field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// smallFile is a small regular file under tree, for the reads.
func smallFile(tree string) string {
	found := ""
	filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil && fi.Size() > 0 && fi.Size() < 8<<10 {
				found = p
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// loadRow runs n concurrent fs_grep calls, one session each, against one
// server over HTTP, while another session reads a small file over and
// over; it reports how many answers were complete, the burst's time, the
// reads' p50 and p99, the server's peak RSS and its RSS 15 s after.
func loadRow(bin, tree string, n int) {
	srv, err := startHTTP(bin, tree, "--max-sessions", strconv.Itoa(n+8))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: load:", err)
		return
	}
	defer srv.close()
	start := srv.status("VmRSS")
	var css []*mcp.ClientSession
	for range n + 1 {
		cs, err := srv.connect()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: load: connect:", err)
			return
		}
		defer cs.Close()
		css = append(css, cs)
	}
	reader, searchers := css[0], css[1:]
	file := smallFile(tree)
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", srv.cmd.Process.Pid), []byte("5"), 0)

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		complete int
		problems []string
	)
	gate := make(chan struct{})
	for _, cs := range searchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_grep",
				Arguments: map[string]any{"pattern": "Errorf", "path": tree, "output_mode": "content", "head_limit": 1000}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				problems = append(problems, err.Error())
			case res.IsError:
				problems = append(problems, textOf(res))
			case strings.Contains(textOf(res), "result is partial"):
				problems = append(problems, "partial")
			default:
				complete++
			}
		}()
	}
	burstDone := make(chan struct{})
	var reads []time.Duration
	readsDone := make(chan struct{})
	go func() {
		defer close(readsDone)
		for {
			select {
			case <-burstDone:
				return
			default:
			}
			t0 := time.Now()
			if _, err := reader.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_read",
				Arguments: map[string]any{"file_path": file}}); err != nil {
				return
			}
			reads = append(reads, time.Since(t0))
		}
	}()
	t0 := time.Now()
	close(gate)
	wg.Wait()
	burst := time.Since(t0)
	close(burstDone)
	<-readsDone
	peak := srv.status("VmHWM")
	time.Sleep(15 * time.Second)
	after := srv.status("VmRSS")
	sort.Slice(reads, func(i, j int) bool { return reads[i] < reads[j] })
	pct := func(p float64) float64 {
		if len(reads) == 0 {
			return 0
		}
		return ms(reads[min(len(reads)-1, int(p*float64(len(reads))))])
	}
	fmt.Printf("load: %d concurrent fs_grep over HTTP (%d sessions) on %s: %d of %d complete in %.1f s; "+
		"fs_read of a small file during the burst (%d reads): p50 %.1f ms, p99 %.1f ms; "+
		"server RSS %d MB at start, peak %d MB, %d MB 15 s after\n",
		n, n, filepath.Base(tree), complete, n, burst.Seconds(), len(reads), pct(0.5), pct(0.99), start>>20, peak>>20, after>>20)
	if len(problems) > 0 {
		fmt.Printf("load: first problem of %d: %s\n", len(problems), problems[0])
	}
}

// pagingRow times the first page and a page at offset 40,000 (or half
// the result, when it is smaller) of one fs_grep (content, 100 lines a
// page) and one fs_glob (100 paths a page) on tree, on one session over
// HTTP, median of runs each, with every total the pages reported. The
// first page searches; a later one should be served from what the first
// kept (queue.Pages).
func pagingRow(bin, tree, label string, runs int, grepPattern, globPattern string) {
	srv, err := startHTTP(bin, tree)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: paging:", err)
		return
	}
	defer srv.close()
	cs, err := srv.connect()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: paging:", err)
		return
	}
	defer cs.Close()
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", srv.cmd.Process.Pid), []byte("5"), 0)
	if grepPattern != "" {
		pagingOf(cs, label, fmt.Sprintf("fs_grep %s (content, 100 lines a page)", grepPattern), "lines", runs, func(offset int) *mcp.CallToolParams {
			return &mcp.CallToolParams{Name: "fs_grep",
				Arguments: map[string]any{"pattern": grepPattern, "path": tree, "output_mode": "content", "head_limit": 100, "offset": offset}}
		})
	}
	if globPattern != "" {
		pagingOf(cs, label, fmt.Sprintf("fs_glob %s (100 paths a page)", globPattern), "paths", runs, func(offset int) *mcp.CallToolParams {
			return &mcp.CallToolParams{Name: "fs_glob",
				Arguments: map[string]any{"pattern": globPattern, "path": tree, "head_limit": 100, "offset": offset}}
		})
	}
	fmt.Printf("paging: server peak RSS %d MB, %d MB after\n", srv.status("VmHWM")>>20, srv.status("VmRSS")>>20)
}

var (
	totalRE   = regexp.MustCompile(` of (\d+)(?: matches)?[;),]`)
	partialRE = regexp.MustCompile(`partial`)
)

func pagingOf(cs *mcp.ClientSession, label, what, unit string, runs int, call func(offset int) *mcp.CallToolParams) {
	page := func(offset int) (time.Duration, string, error) {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), call(offset))
		if err != nil {
			return 0, "", err
		}
		if res.IsError {
			return 0, "", fmt.Errorf("%s", textOf(res))
		}
		return time.Since(t0), textOf(res), nil
	}
	_, first, err := page(0) // warm-up, and the total
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: paging:", err)
		return
	}
	total := 0
	if m := totalRE.FindStringSubmatch(first); m != nil {
		total, _ = strconv.Atoi(m[1])
	}
	offset := 40000
	if total < offset+1000 {
		offset = total / 2
	}
	var firsts, laters []time.Duration
	totals := map[string]bool{}
	partial := 0
	for range runs {
		d, out, err := page(0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: paging:", err)
			return
		}
		firsts = append(firsts, d)
		d, out2, err := page(offset)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: paging:", err)
			return
		}
		laters = append(laters, d)
		for _, o := range []string{out, out2} {
			if m := totalRE.FindStringSubmatch(o); m != nil {
				totals[m[1]] = true
			}
			if partialRE.MatchString(o) {
				partial++
			}
		}
	}
	f, l := median(firsts), median(laters)
	fmt.Printf("paging: %s on %s, %d %s: first page %.1f ms, offset %d %.1f ms (%.3fx of the first); totals reported: %d distinct; partial pages: %d of %d\n",
		what, label, total, unit, ms(f), offset, ms(l), float64(l)/float64(f), len(totals), partial, 2*runs)
}
