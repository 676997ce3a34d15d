//go:build !windows

package backend

// systemPaths returns s: on Unix the backends' slash-separated paths are
// already the system's own form.
func systemPaths(s Searcher) Searcher { return s }
