package sandbox

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is root or lies below it, and returns path
// relative to root, slash-separated ("." for root itself). It is the one
// lexical "is this inside that root" of fsmcp: both are absolute, cleaned
// here (so "/root/../x" is not inside /root, and a trailing separator
// changes nothing), compared by whole names (/root does not hold
// /root-evil) and as the system compares names (cutPathPrefix:
// case-insensitive on Windows). It reads no file system: a link is
// whatever the caller resolved it to.
func Within(root, path string) (rel string, ok bool) {
	root, path = filepath.Clean(root), filepath.Clean(path) // no copy when already clean
	rest, ok := cutPathPrefix(path, root)
	switch {
	case !ok:
		return "", false
	case rest == "":
		return ".", true
	case strings.HasSuffix(root, sep): // a volume's root (/, C:\) ends in one
	case strings.HasPrefix(rest, sep):
		rest = rest[len(sep):]
	default: // /root-evil beside /root
		return "", false
	}
	return filepath.ToSlash(rest), true
}

const sep = string(filepath.Separator)

// WithinAny returns the first of roots that holds path, and whether one
// does.
func WithinAny(roots []string, path string) (string, bool) {
	for _, r := range roots {
		if _, ok := Within(r, path); ok {
			return r, true
		}
	}
	return "", false
}
