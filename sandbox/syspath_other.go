//go:build !windows

package sandbox

import "path/filepath"

// sysPath is the absolute path p as the system will open it, the form
// every guard compares: on Unix p cleaned (a name means itself).
func sysPath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", ErrNotAbsolute
	}
	return filepath.Clean(p), nil
}

// TrimDevicePrefix is p: Unix paths have no device prefixes.
func TrimDevicePrefix(p string) string { return p }
