//go:build !unix

package journal

import "os"

// flock: no cross-process lock here; the in-process one stands.
func flock(*os.File) error { return nil }
