//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The stop floor times seccomp user notification, which only Linux has.
func stopFloorRows(string, int) { fmt.Fprintln(os.Stderr, "bench: the stop-floor row needs Linux") }

func maybeStopChild() {}
