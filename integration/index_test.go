package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go env GOROOT")
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src", "regexp")
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
