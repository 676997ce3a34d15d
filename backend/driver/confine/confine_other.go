//go:build !linux

package confine

import "errors"

func available() bool { return false }

func restrictThread(Policy, string) error { return errors.New("no Landlock on this system") }

var libDirs []string
