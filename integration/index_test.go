package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/goroot"
)

// readyLog is a server's stderr that closes ready at the index's
// "index: ready" line, or at "index: off for this root" (auto, debug).
type readyLog struct {
	testLog
	once  sync.Once
	ready chan struct{}
}

func (l *readyLog) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "index: ready") || strings.Contains(string(p), "index: off for this root") {
		l.once.Do(func() { close(l.ready) })
	}
	return l.testLog.Write(p)
}

// connectIndexed starts fsmcp over stdio with env added and returns the
// session and a channel closed when the index is ready.
func connectIndexed(t *testing.T, m mode, env []string, args ...string) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(append(os.Environ(), "PATH="+m.path), env...)
	log := &readyLog{testLog: testLog{t: t, prefix: "fsmcp: "}, ready: make(chan struct{})}
	cmd.Stderr = log
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, log.ready
}

// goSrc is a directory of old files (their times settled long ago, so
// the index takes their content): GOROOT's regexp sources.
func goSrc(t *testing.T) string {
	return filepath.Join(goroot.Src(t), "regexp")
}

// TestIndexOnAnswersAsIndexOff: with --index on, once the index is ready,
// fs_grep answers every query exactly as --index off does, with rg on
// PATH and without; the index lives in XDG_CACHE_HOME, private.
func TestIndexOnAnswersAsIndexOff(t *testing.T) {
	src := goSrc(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			cache := t.TempDir()
			on, ready := connectIndexed(t, m, []string{"XDG_CACHE_HOME=" + cache}, "--read-only", "--index", "on", src)
			off, _ := connectIndexed(t, m, nil, "--read-only", "--index", "off", src)
			select {
			case <-ready:
			case <-time.After(2 * time.Minute): // only bounds a hang
				t.Fatal("the index was not ready")
			}
			files, _ := filepath.Glob(filepath.Join(cache, "fsmcp", "*", "index.bin"))
			if len(files) != 1 {
				t.Fatalf("index files in the cache: %v", files)
			}
			if fi, err := os.Stat(filepath.Dir(files[0])); err != nil || fi.Mode().Perm() != 0o700 {
				t.Fatalf("index directory mode %v (%v), want 0700", fi.Mode(), err)
			}
			for _, args := range []map[string]any{
				{"pattern": "MustCompile", "output_mode": "count"},
				{"pattern": "func \\(re \\*Regexp\\) \\w+", "output_mode": "content"},
				{"pattern": "onepass", "-i": true, "output_mode": "content", "-C": 1, "head_limit": 50},
				{"pattern": "EmptyBeginLine|EmptyEndText"},
				{"pattern": "\\w+"},
				{"pattern": "Regexp", "glob": "*_test.go", "output_mode": "count"},
				{"pattern": "zzz_nowhere_zzz"},
			} {
				args["path"] = src
				if got, want := mustCall(t, on, "fs_grep", args), mustCall(t, off, "fs_grep", args); got != want {
					t.Errorf("fs_grep %v: --index on answers\n%.600s\n--index off\n%.600s", args, got, want)
				}
			}
		})
	}
}

// TestIndexCacheInsideRootRefused: --index on with the cache directory
// inside a root is a start-up error naming both; nothing is written.
func TestIndexCacheInsideRootRefused(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(binary, "--index", "on", root)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(root, ".cache"))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "inside the allowed directory") {
		t.Fatalf("exit %v, output %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, ".cache")); !os.IsNotExist(err) {
		t.Fatalf("the refused cache directory exists: %v", err)
	}
}

// TestIndexAutoLeavesSmallRootsAlone: the default, --index auto, decides
// a small DIR is not worth an index and writes nothing to the cache.
func TestIndexAutoLeavesSmallRootsAlone(t *testing.T) {
	m := modes(t)[0]
	cache := t.TempDir()
	cs, decided := connectIndexed(t, m, []string{"XDG_CACHE_HOME=" + cache}, "--read-only", "--log-level", "debug", goSrc(t))
	select {
	case <-decided:
	case <-time.After(2 * time.Minute): // only bounds a hang
		t.Fatal("auto never decided")
	}
	mustCall(t, cs, "fs_grep", map[string]any{"pattern": "MustCompile", "path": goSrc(t)})
	if left, _ := os.ReadDir(cache); len(left) != 0 {
		t.Fatalf("auto wrote %v for a small root", left)
	}
}

// followingLog closes ready once the server's index is in use and, on
// Linux, its watcher follows the tree (or says why not).
type followingLog struct {
	testLog
	once  sync.Once
	ready chan struct{}
}

func (l *followingLog) Write(p []byte) (int, error) {
	s := string(p)
	done := strings.Contains(s, "index: ready") || strings.Contains(s, "index: reusing")
	if runtime.GOOS == "linux" {
		done = strings.Contains(s, "index: following changes") || strings.Contains(s, "index: not following changes") || strings.Contains(s, "index: no watcher")
	}
	if done {
		l.once.Do(func() { close(l.ready) })
	}
	return l.testLog.Write(p)
}

// TestIndexFollowsOutsideChanges: another process creates, edits in
// place, renames, moves directories and deletes files while an indexed
// server (which on Linux reads only the directories leading to a
// candidate or a change) and an unindexed one answer the same fs_grep
// calls; after every change, with nothing waited for, both answers are
// the same, with rg on PATH and without.
func TestIndexFollowsOutsideChanges(t *testing.T) {
	attack(t)
	for _, m := range modes(t) {
		t.Run(m.name, func(t *testing.T) {
			root := t.TempDir()
			os.Mkdir(filepath.Join(root, ".git"), 0o755)
			for i := range 60 {
				p := filepath.Join(root, fmt.Sprintf("a%d/b%d/f%d.txt", i%3, i%7, i))
				os.MkdirAll(filepath.Dir(p), 0o755)
				content := "plain text\n"
				if i%11 == 0 {
					content = "a NEEDLE here\n"
				}
				os.WriteFile(p, []byte(content), 0o644)
				old := time.Now().Add(-time.Hour) // settled: the index takes the content
				os.Chtimes(p, old, old)
			}
			cmd := exec.Command(binary, "--read-only", "--index", "on", root)
			cmd.Env = append(os.Environ(), "PATH="+m.path, "XDG_CACHE_HOME="+t.TempDir())
			log := &followingLog{testLog: testLog{t: t, prefix: "fsmcp: "}, ready: make(chan struct{})}
			cmd.Stderr = log
			on, err := newClient().Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { on.Close() })
			off := connectStdio(t, m, "--read-only", "--index", "off", root)
			select {
			case <-log.ready:
			case <-time.After(2 * time.Minute): // only bounds a hang
				t.Fatal("the index was not ready")
			}
			r := rand.New(rand.NewPCG(1, 2))
			at := func(rel string) string { return filepath.Join(root, rel) }
			rounds := 300
			if testing.Short() {
				rounds = 60
			}
			for round := range rounds {
				d := fmt.Sprintf("a%d/b%d", r.IntN(3), r.IntN(7))
				name := fmt.Sprintf("%s/g%d.txt", d, r.IntN(15))
				switch r.IntN(6) {
				case 0:
					os.MkdirAll(at(d), 0o755)
					os.WriteFile(at(name), []byte(fmt.Sprintf("NEEDLE round %d\n", round)), 0o644)
				case 1:
					if f, err := os.OpenFile(at(name), os.O_WRONLY, 0); err == nil {
						f.WriteAt([]byte("NEEDLE"), 0)
						f.Close()
					}
				case 2:
					os.Rename(at(name), at(fmt.Sprintf("a%d/moved%d.txt", r.IntN(3), round)))
				case 3:
					os.Remove(at(name))
				case 4:
					nd := fmt.Sprintf("a%d/new%d/deep", r.IntN(3), round)
					os.MkdirAll(at(nd), 0o755)
					os.WriteFile(at(nd+"/h.txt"), []byte("NEEDLE in a new tree\n"), 0o644)
				case 5:
					os.Rename(at(fmt.Sprintf("a%d", r.IntN(3))), at(fmt.Sprintf("a%d-swap", round)))
					os.Rename(at(fmt.Sprintf("a%d-swap", round)), at(fmt.Sprintf("a%d", r.IntN(3))))
				}
				args := map[string]any{"pattern": "NEEDLE", "output_mode": "content", "path": root}
				if got, want := mustCall(t, on, "fs_grep", args), mustCall(t, off, "fs_grep", args); got != want {
					t.Fatalf("round %d: --index on answers\n%.800s\n--index off\n%.800s", round, got, want)
				}
			}
		})
	}
}
