//go:build unix

package watch

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// mkdirChain makes n nested directories named name under dir, relative to
// each parent's descriptor (a full path may exceed PATH_MAX).
func mkdirChain(t *testing.T, dir, name string, n int) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	unix.Close(fd)
}

// TestWatchDepthBoundedWithNote: a tree deeper than MaxDepth is watched
// down to MaxDepth, and the result says the rest is not.
func TestWatchDepthBoundedWithNote(t *testing.T) {
	dir, sb := newDir(t)
	mkdirChain(t, dir, "d", 300)
	p, _ := sb.Resolve(dir)
	w, err := New(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if got := w.Dirs(); got != DefaultMaxDepth+1 {
		t.Errorf("watching %d directories, want %d", got, DefaultMaxDepth+1)
	}
	if notes := strings.Join(w.Notes(), "\n"); !strings.Contains(notes, "more than 64 levels") {
		t.Errorf("no depth note: %q", notes)
	}
}

// TestWatchSkipsOverlongPathWithNote: a directory whose path is too long
// to watch is skipped with a note; the rest of the tree is watched.
func TestWatchSkipsOverlongPathWithNote(t *testing.T) {
	dir, sb := newDir(t)
	mkdirChain(t, dir, strings.Repeat("x", 250), 20) // past PATH_MAX at level 17
	mkdirChain(t, filepath.Join(dir), "ok", 1)
	p, _ := sb.Resolve(dir)
	w, err := New(p, Options{})
	if err != nil {
		t.Fatalf("one over-long path failed the whole watch: %v", err)
	}
	defer w.Close()
	if w.Dirs() < 2 {
		t.Errorf("watching %d directories", w.Dirs())
	}
	if notes := strings.Join(w.Notes(), "\n"); !strings.Contains(notes, "could not be watched") {
		t.Errorf("no note for the skipped directories: %q", notes)
	}
}

// TestWatchHonoursContext: a setup whose context has ended stops at once
// with one clear sentence.
func TestWatchHonoursContext(t *testing.T) {
	dir, sb := newDir(t)
	mkdirChain(t, dir, "d", 10)
	p, _ := sb.Resolve(dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(p, Options{Context: ctx})
	if err == nil || !strings.Contains(err.Error(), "time limit") {
		t.Errorf("err = %v, want a time-limit sentence", err)
	}
}
