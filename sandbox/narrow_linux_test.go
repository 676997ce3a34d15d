package sandbox

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// swapLoop exchanges a and b (a directory and a symlink out) with
// RENAME_EXCHANGE until stop is closed, and counts the swaps.
func swapLoop(t *testing.T, a, b string, stop <-chan struct{}, swaps *atomic.Int64) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			swaps.Add(1)
		}
	}()
	return done
}

// TestNarrowRaceNeverRootsOutside narrows to a directory that a swapper
// keeps exchanging with a link out of the root: no narrowed root may ever
// hold the outside directory.
func TestNarrowRaceNeverRootsOutside(t *testing.T) {
	f := newFixture(t)
	sub := filepath.Join(f.root, "sub")
	must(t, os.WriteFile(filepath.Join(sub, "inside"), []byte("in\n"), 0o644))
	must(t, os.Symlink(f.outside, filepath.Join(f.root, "swap")))
	outFI, err := os.Stat(f.outside)
	must(t, err)

	stop := make(chan struct{})
	var swaps atomic.Int64
	done := swapLoop(t, sub, filepath.Join(f.root, "swap"), stop, &swaps)
	defer func() { close(stop); <-done }()
	deadline := time.Now().Add(2 * time.Second)
	ok := 0
	for i := 0; i < 20000 && time.Now().Before(deadline); i++ {
		n, err := f.sb.Narrow([]string{sub})
		if err != nil {
			continue
		}
		ok++
		h := n.roots[0].fs
		if fi, err := h.Stat("."); err == nil && os.SameFile(fi, outFI) {
			t.Fatal("a narrowed root holds the outside directory")
		}
		if _, err := h.Stat("secret"); err == nil {
			t.Fatal("the outside secret is reachable through a narrowed root")
		}
		n.Close()
	}
	t.Logf("%d narrowings succeeded during %d swaps", ok, swaps.Load())
}
