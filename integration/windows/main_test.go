//go:build windows

package windows

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

var (
	// fsmcpExe is the fsmcp.exe under test.
	fsmcpExe string
	// wine is whether the suite runs under Wine.
	wine bool
	// state is what the servers get as %LOCALAPPDATA%: their journals
	// and index caches go there, not into the user's.
	state string
)

// Wine's own gaps: a test that meets one is skipped under Wine with the
// reason, never counted as a pass; on Windows it runs.
const (
	wineRemove = "os.Root's remove answers \"Invalid function\" under Wine, which lacks the delete call Go makes first (FileDispositionInformationEx)"
	wineLinks  = "a symlink made under Wine is a Unix symlink, which Windows programs see as a plain file"
	wineJunc   = "Wine cannot make junctions"
)

func TestMain(m *testing.M) {
	wine = underWine()
	fsmcpExe = os.Getenv("FSMCP_EXE")
	if fsmcpExe == "" {
		fsmcpExe = filepath.Join("..", "..", "bin", "windows", "fsmcp.exe")
	}
	if wine && strings.HasPrefix(fsmcpExe, "/") {
		fsmcpExe = "Z:" + filepath.FromSlash(fsmcpExe) // a Unix path: Wine's Z: is /
	}
	if _, err := os.Stat(fsmcpExe); err != nil {
		fmt.Fprintf(os.Stderr, "no fsmcp.exe to test (make test-windows builds it; FSMCP_EXE names another): %v\n", err)
		os.Exit(1)
	}
	var err error
	if state, err = os.MkdirTemp("", "fsmcp-win-state-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if wine {
		fmt.Fprintf(os.Stderr, "windows suite: %s under Wine\n", fsmcpExe)
	}
	code := m.Run()
	removeTree(state)
	os.Exit(code)
}

// underWine reports whether this program runs under Wine: Wine's ntdll
// exports wine_get_version, Windows' does not.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// skipUnderWine skips t under Wine, saying which of Wine's gaps it meets.
func skipUnderWine(t *testing.T, gap string) {
	t.Helper()
	if wine {
		t.Skipf("SKIPPED under Wine: %s", gap)
	}
}

// tempDir is a new directory removed after the test: t.TempDir's own
// cleanup removes through the call Wine lacks, so a test would fail on
// Wine's account; this one removes each entry by name (DeleteFile,
// RemoveDirectory), which Wine has.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "fsmcp-win-")
	if err != nil {
		t.Fatal(err)
	}
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := removeTree(d); err != nil {
			t.Errorf("removing %s: %v", d, err)
		}
	})
	return d
}

// removeTree removes dir and everything in it, deepest first, by name.
func removeTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	var paths []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		paths = append(paths, p)
		return nil
	})
	var first error
	for i := len(paths) - 1; i >= 0; i-- {
		os.Chmod(paths[i], 0o666) // a read-only file
		if err := os.Remove(paths[i]); err != nil && !os.IsNotExist(err) && first == nil {
			first = err
		}
	}
	return first
}
