//go:build unix

package native

import (
	"context"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver"
)

// deepTree builds below root, with mkdirat and openat (no path reaches
// past PATH_MAX), a chain of directories to just short of
// backend.PathMax and, at its end, entries on both sides of the limit:
// a file and a directory whose paths below root are one byte short of
// it and one byte over, and two directories whose .ignore is one byte
// short and one byte over. Every file holds "needle".
func deepTree(t *testing.T, root string) {
	t.Helper()
	limit := backend.PathMax - len("./") // the shortest path below root that is skipped
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	rel := 0 // length of the current directory's path below root
	step := func(name string) {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
		fd = next
		if rel > 0 {
			rel++
		}
		rel += len(name)
	}
	file := func(dirfd int, name, text string) {
		f, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(f, []byte(text))
		unix.Close(f)
	}
	// name returns a name of the given letter and suffix whose path
	// below root, in the current directory, is n bytes long.
	name := func(letter, suffix string, n int) string {
		return strings.Repeat(letter, n-rel-1-len(suffix)) + suffix
	}
	for rel+1+200 < limit-300 {
		step(strings.Repeat("d", 200))
	}
	file(fd, "shallow.txt", "needle\n")
	for rel+1+50 <= limit-200 { // names of at most 250 bytes reach the limit from here
		step(strings.Repeat("m", 50))
	}
	file(fd, name("f", ".txt", limit-1), "needle\n") // opened
	file(fd, name("F", ".txt", limit), "needle\n")   // skipped
	sub := func(dirName string, files map[string]string) {
		if err := unix.Mkdirat(fd, dirName, 0o755); err != nil {
			t.Fatal(err)
		}
		d, err := unix.Openat(fd, dirName, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		for n, text := range files {
			file(d, n, text)
		}
		unix.Close(d)
	}
	two := map[string]string{"a.txt": "needle\n", "b.txt": "needle\n"}
	sub(name("g", "", limit-1), two) // read; both its files are skipped
	sub(name("G", "", limit), two)   // skipped, and nothing in it counted
	ignore := map[string]string{".ignore": "*.log\n", "x.log": "needle\n"}
	sub(name("i", "", limit-1-len("/.ignore")), ignore) // .ignore is read: x.log ignored
	sub(name("I", "", limit-len("/.ignore")), ignore)   // .ignore is skipped: x.log searched
	unix.Close(fd)
}

// TestParityPathMax: rg cannot open a path of PATH_MAX bytes or more
// below its search directory and skips it; the native walker, which
// could, skips the same entries, and both count them, for grep and glob.
// (The find backend is left out: it reads ignore files by absolute path,
// which fails here.)
func TestParityPathMax(t *testing.T) {
	root := t.TempDir()
	deepTree(t, root)
	wantGrep := int64(5) // F…txt, g/a.txt, g/b.txt, G, I/.ignore
	forEachRG(t, func(t *testing.T, rg *driver.RG) {
		for _, q := range []backend.GrepQuery{
			{Pattern: "needle"}, C(backend.GrepQuery{Pattern: "needle"}), {Pattern: "needle", Mode: backend.Count},
			{Pattern: "needle", Types: []string{"txt"}}, {Pattern: "needle", NoIgnore: true},
		} {
			q.Paths = []string{root}
			a, b := runBoth(t, rg, q, 0, 0)
			if a != b {
				t.Errorf("%+v: rg and native differ at %s", q, firstDiff(a, b))
			}
			if q.Types == nil && !strings.Contains(b, "skipped=5\n") {
				t.Errorf("%+v: native should skip %d entries:\n%.300s", q, wantGrep, b)
			}
			if q.Types == nil && (!strings.Contains(b, "/x.log") || !strings.Contains(b, "fff.txt") || !strings.Contains(b, "shallow.txt")) {
				t.Errorf("%+v: native lost a file it can open:\n%.300s", q, b)
			}
		}
		depth := strings.Count(firstPath(t, root), "/") // the depth of the f…txt file below root
		// rg walks with one thread or several as the machine has cores
		// (globThreads): its parallel walker reads the directories at
		// --max-depth, its single one does not; both are tried.
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			globPathMax(t, rg, root, depth)
			runtime.GOMAXPROCS(old)
		}
	})
}

// globPathMax is TestParityPathMax's globs over deepTree, whose f…txt
// file lies depth below root.
func globPathMax(t *testing.T, rg *driver.RG, root string, depth int) {
	t.Helper()
	for _, tc := range []struct {
		pattern string
		want    int64
	}{
		{"**/*", 5}, {"**/*.txt", 4}, {"**/*.log", 1}, {"**/x.log", 1},
		// rg --max-depth: the directories at the file's depth are not read.
		{strings.Repeat("*/", depth) + "*.txt", 1},
	} {
		q := backend.GlobQuery{Pattern: tc.pattern, Paths: []string{root}}
		list := func(s backend.Searcher) string {
			q.Skipped = new(backend.Skipped)
			var paths []string
			err := s.Glob(context.Background(), q, func(f backend.File) error {
				paths = append(paths, f.Path)
				return nil
			})
			if err != nil {
				return "error: " + err.Error()
			}
			sort.Strings(paths)
			return strings.Join(append(paths, "skipped="+itoa(q.Skipped.Count())), "\n")
		}
		a, b := list(rg), list(New())
		if a != b {
			t.Errorf("glob %q, GOMAXPROCS %d: rg and native differ at %s", tc.pattern, runtime.GOMAXPROCS(0), firstDiff(a, b))
		}
		if !strings.HasSuffix(b, "skipped="+itoa(tc.want)) {
			t.Errorf("glob %q: native should skip %d: %.200s", tc.pattern, tc.want, b[max(0, len(b)-200):])
		}
	}
}

// firstPath is the path below root of the f…txt file deepTree makes.
func firstPath(t *testing.T, root string) string {
	t.Helper()
	q := backend.GlobQuery{Pattern: "**/fff*.txt", Paths: []string{root}}
	var rel string
	New().Glob(context.Background(), q, func(f backend.File) error {
		rel = strings.TrimPrefix(f.Path, root+"/")
		return nil
	})
	if rel == "" {
		t.Fatal("deepTree made no f…txt file")
	}
	return rel
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
