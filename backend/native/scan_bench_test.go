//go:build unix

package native

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// benchCorpus reads up to 256 MB of the tree named by FSMCP_BENCH_TREE
// (e.g. the Linux source bench-linux unpacks) once; the scan benchmarks
// are skipped without it.
func benchCorpus(b *testing.B) [][]byte {
	dir := os.Getenv("FSMCP_BENCH_TREE")
	if dir == "" {
		b.Skip("FSMCP_BENCH_TREE is not set")
	}
	if corpus == nil {
		total := 0
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || total > 256<<20 {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				if data, err := os.ReadFile(p); err == nil {
					data = data[:backend.SearchableLen(data)]
					corpus = append(corpus, data)
					total += len(data)
				}
			}
			return nil
		})
	}
	return corpus
}

var corpus [][]byte

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchQueries are issue 14's queries.
var benchQueries = []struct {
	name string
	q    backend.GrepQuery
}{
	{"literal", backend.GrepQuery{Pattern: "PM_RESUME"}},
	{"literal-i", backend.GrepQuery{Pattern: "PM_RESUME", IgnoreCase: true}},
	{"alternation", backend.GrepQuery{Pattern: "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"}},
	{"alternation-i", backend.GrepQuery{Pattern: "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", IgnoreCase: true}},
	{"word", backend.GrepQuery{Pattern: `\bPM_RESUME\b`}},
	{"noliteral", backend.GrepQuery{Pattern: `[A-Z]+_SUSPEND`}},
	{"greek", backend.GrepQuery{Pattern: `\p{Greek}`}},
	{"ops", backend.GrepQuery{Pattern: `\w+\s+\w+_ops\b`}},
}

// BenchmarkScan times the scanner alone over the corpus, in count mode.
func BenchmarkScan(b *testing.B) {
	for _, c := range benchQueries {
		b.Run(c.name, func(b *testing.B) {
			files := benchCorpus(b)
			c.q.Mode = backend.Count
			p, err := pattern.Compile(c.q)
			if err != nil {
				b.Fatal(err)
			}
			m := newMatcher(p, c.q)
			var st scanState
			n := 0
			for _, f := range files {
				n += len(f)
			}
			b.SetBytes(int64(n))
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				for _, f := range files {
					m.scan(&st, f, func() backend.FileSink { return &lineSink{} })
				}
			}
			// CPU time is steadier than wall time on a shared machine.
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e6, "cpuMB/s")
		})
	}
}

// BenchmarkGrep times whole native searches (walk, read, scan) of the
// tree, in count mode; cpu-ms/op is the process's CPU time.
func BenchmarkGrep(b *testing.B) {
	dir := os.Getenv("FSMCP_BENCH_TREE")
	if dir == "" {
		b.Skip("FSMCP_BENCH_TREE is not set")
	}
	for _, c := range benchQueries {
		b.Run(c.name, func(b *testing.B) {
			q := c.q
			q.Mode, q.Paths = backend.Count, []string{dir}
			cpu0 := cpuTime()
			for range b.N {
				if _, err := backend.Run(context.Background(), New(), q, 0, 1000); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkGlob times a native **/*.c listing of the tree with mtimes.
func BenchmarkGlob(b *testing.B) {
	dir := os.Getenv("FSMCP_BENCH_TREE")
	if dir == "" {
		b.Skip("FSMCP_BENCH_TREE is not set")
	}
	cpu0 := cpuTime()
	for range b.N {
		n := 0
		q := backend.GlobQuery{Pattern: "**/*.c", Paths: []string{dir}}
		if err := New().Glob(context.Background(), q, func(backend.File) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
