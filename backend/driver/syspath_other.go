//go:build !windows

package driver

import "github.com/fsmcp/fsmcp/backend"

// systemPaths returns s: on Unix the backends' slash-separated paths are
// already the system's own form.
func systemPaths(s backend.Searcher) backend.Searcher { return s }
