//go:build unix && !linux

package testenv

// inodeFlags: chattr's flags are Linux's.
func inodeFlags(p string) string { return "" }
