//go:build unix

package toolkit

import (
	"testing"
	"time"
)

// TestRootPath: a client's root is a file:// URI of an absolute, clean
// path on this machine; anything else names no directory (and never the
// working directory, which an empty path would mean to sandbox.New).
func TestRootPath(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///home/me/project":          "/home/me/project",
		"file://localhost/home/me/project": "/home/me/project",
		"file:///home/me/with%20space":     "/home/me/with space",
		"file:///":                         "/",
	} {
		if got, err := rootPath(uri); err != nil || got != want {
			t.Errorf("rootPath(%q) = %q, %v; want %q", uri, got, err, want)
		}
	}
	for _, uri := range []string{"", "file://", "file:", "file:relative", "file://host/home/me", "http://localhost/home",
		"/home/me", "file:///home/../etc", "file:///home/%2e%2e/etc", "file:///home/./me", "file:///home?x", "file:///home#x",
		"file:///home/%00x", "::"} {
		if got, err := rootPath(uri); err == nil {
			t.Errorf("rootPath(%q) = %q, want it refused", uri, got)
		}
	}
}

// TestRequestState: a state is accepted until it expires, and not once
// altered or from another server (another key).
func TestRequestState(t *testing.T) {
	s, other := NewSessions(), NewSessions()
	now := time.Now()
	state := s.signState(now.Add(time.Minute))
	if !s.validState(state, now) {
		t.Fatal("a fresh state refused")
	}
	if s.validState(state, now.Add(2*time.Minute)) {
		t.Error("an expired state accepted")
	}
	if other.validState(state, now) {
		t.Error("another server's state accepted")
	}
	for _, bad := range []string{"", ".", "x.y", state + "A", "A" + state, state[:len(state)-1]} {
		if s.validState(bad, now) {
			t.Errorf("state %q accepted", bad)
		}
	}
}
