// Command testsummary runs go test with the arguments it is given and
// prints what a person needs from it: a line per package, the output of
// every failed test, and at the end every skipped test with its reason,
// counted, so that a test that did not run is never mistaken for one
// that passed. It exits with go test's status.
//
//	go run ./internal/testsummary -count=1 ./...
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// event is one line of go test -json (test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	cmd := exec.Command("go", append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	s := &summary{output: map[string][]string{}, skips: map[string][]string{}}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			fmt.Println(sc.Text()) // not test2json: say it as it came
			continue
		}
		s.add(ev)
	}
	err = cmd.Wait()
	s.print()
	if err != nil || s.failed {
		os.Exit(1)
	}
}

type summary struct {
	output map[string][]string // by package and test, until it ends
	skips  map[string][]string // reason -> tests
	failed bool
}

func (s *summary) add(ev event) {
	key := ev.Package + " " + ev.Test
	switch ev.Action {
	case "output", "build-output":
		if ev.Test == "" && strings.Contains(ev.Output, "SKIPPED") {
			fmt.Print(ev.Output) // a package's own banner (rg not on PATH)
		}
		s.output[key] = append(s.output[key], ev.Output)
	case "skip":
		if ev.Test != "" {
			r := reason(s.output[key])
			s.skips[r] = append(s.skips[r], ev.Package+"."+ev.Test)
		}
		delete(s.output, key)
	case "pass":
		if ev.Test == "" {
			fmt.Printf("ok  \t%s\t%.3fs\n", ev.Package, ev.Elapsed)
		}
		delete(s.output, key)
	case "fail", "build-fail":
		s.failed = true
		for _, l := range s.output[key] {
			fmt.Print(l)
		}
		if ev.Test == "" {
			s.unfinished(ev.Package)
			fmt.Printf("FAIL\t%s\t%.3fs\n", ev.Package, ev.Elapsed)
		}
		delete(s.output, key)
	}
}

// unfinished prints the output of the package's tests that never ended:
// when a test binary dies (a crash in a goroutine, a timeout, a kill),
// test2json may send no end for the test that was running, and its
// output is the only account of why the package failed.
func (s *summary) unfinished(pkg string) {
	var keys []string
	for k := range s.output {
		if strings.HasPrefix(k, pkg+" ") && k != pkg+" " {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("--- (never ended) %s\n", strings.TrimPrefix(k, pkg+" "))
		for _, l := range s.output[k] {
			fmt.Print(l)
		}
		delete(s.output, k)
	}
}

// reason is why a test skipped: its t.Skip message, without the file
// and line it came from.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if _, msg, ok := strings.Cut(l, ".go:"); ok {
			if _, m, ok := strings.Cut(msg, ": "); ok {
				return m
			}
		}
		return l
	}
	return "(no reason given)"
}

func (s *summary) print() {
	if len(s.skips) == 0 {
		fmt.Println("no test was skipped")
		return
	}
	n := 0
	var reasons []string
	for r, ts := range s.skips {
		n += len(ts)
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool { return len(s.skips[reasons[i]]) > len(s.skips[reasons[j]]) })
	fmt.Printf("\n%d tests skipped:\n", n)
	for _, r := range reasons {
		ts := s.skips[r]
		sort.Strings(ts)
		shown := ts
		if len(shown) > 3 {
			shown = append(shown[:3:3], fmt.Sprintf("and %d more", len(ts)-3))
		}
		fmt.Printf("  %4d  %s\n        (%s)\n", len(ts), r, strings.Join(shown, ", "))
	}
}
