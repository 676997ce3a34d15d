//go:build !linux

package shell

import (
	"errors"
	"runtime"
)

// ErrNoLandlock is returned (wrapped) when the sandboxed mode is asked
// for: Landlock is Linux's, so there is no sandboxed shell here. The caller
// must not fall back to running unconfined when the user asked for it.
var ErrNoLandlock = errors.New("landlock is Linux-only, so the sandboxed shell cannot run on " + runtime.GOOS + " (use --shell on or --shell off)")
