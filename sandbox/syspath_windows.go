package sandbox

import (
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsmcp/fsmcp/fault"
)

// sysPath is the absolute path p as Windows will open it, the form every
// guard compares, so that no spelling of a path is judged as one name
// and opened as another:
//
//   - The \\?\ and \\.\ prefixes (//?/, //./) before a drive or UNC\ are
//     dropped: \\?\C:\ws\a.txt is C:\ws\a.txt, also past 260 characters
//     (Go adds the prefix back where a name needs it). Other device
//     namespaces (\\.\PhysicalDrive0, \\?\GLOBALROOT\..., \\?\Volume{...}\,
//     \\.\pipe\x) are refused: they are not files in a directory.
//   - A name with a colon (a.txt:x, a.txt::$DATA: an alternate data
//     stream) and a reserved device name (CON, NUL, COM1, and aux.txt
//     where this Windows still reserves it) are refused, each with its
//     own sentence.
//   - The rest is normalised by Windows itself (GetFullPathName): \ and /
//     alike, . and .. resolved, and the trailing dots and spaces Win32
//     strips from a name stripped, so ws\. , ws\.. and ws\... are ws.
//     The \\?\ form skips that step when Windows opens it, but fsmcp opens
//     every name beneath its root's handle (os.Root), which cleans it
//     the same way: the prefix only changes how a name is spelled.
func sysPath(p string) (string, error) {
	q, err := dropDevicePrefix(p)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(q) {
		return "", ErrNotAbsolute
	}
	if err := plainNames(p, q); err != nil {
		return "", err
	}
	full, err := syscall.FullPath(filepath.FromSlash(q))
	if err != nil {
		return "", fault.Errorf(fault.Invalid, p, "%s is not a path Windows can open: %v", p, err)
	}
	// Windows resolves . and .. first and then drops one trailing dot of
	// a name in the middle, so "..." there becomes a name "..", which it
	// does not resolve again and no file can have; cleaning the result
	// would take it as the parent. Refused instead of guessed at.
	vol := filepath.VolumeName(full)
	for _, name := range strings.Split(full[len(vol):], `\`) {
		if name == "." || name == ".." {
			return "", fault.Errorf(fault.Invalid, p, "%s holds a name of dots that Windows shortens to %s in the middle of a path, which names no file", p, name)
		}
	}
	return filepath.Clean(full), nil
}

// TrimDevicePrefix is p without a \\?\ or \\.\ prefix (or //?/, \??\)
// before a drive letter or UNC\, and any other p as it is: for text that
// is not yet a path (a glob pattern), where the prefix's ? would read as a
// wildcard.
func TrimDevicePrefix(p string) string {
	q, err := dropDevicePrefix(p)
	if err != nil {
		return p
	}
	return q
}

// dropDevicePrefix drops a \\?\ or \\.\ prefix (or the same with /, or
// the NT form \??\) that stands before a drive letter or UNC\, and
// refuses any other device path.
func dropDevicePrefix(p string) (string, error) {
	device := len(p) >= 4 && isSep(p[0]) && isSep(p[3]) &&
		(isSep(p[1]) && (p[2] == '?' || p[2] == '.') || p[1] == '?' && p[2] == '?')
	if !device {
		return p, nil
	}
	rest := p[4:]
	switch {
	case len(rest) >= 2 && isLetter(rest[0]) && rest[1] == ':' && (len(rest) == 2 || isSep(rest[2])):
		return rest, nil
	case len(rest) >= 4 && strings.EqualFold(rest[:3], "UNC") && isSep(rest[3]):
		return `\\` + rest[4:], nil
	}
	return "", fault.Errorf(fault.Invalid, p, "%s is a Windows device or volume path, not a file in a directory; give the path with its drive letter (C:\\...) or as \\\\server\\share\\...", p)
}

// plainNames refuses a name in q (p as the client gave it) that Windows
// takes as something other than a file or directory: a colon (an
// alternate data stream) or a reserved device name.
func plainNames(p, q string) error {
	vol := filepath.VolumeName(q)
	for _, name := range strings.FieldsFunc(q[len(vol):], func(r rune) bool { return r == '\\' || r == '/' }) {
		switch {
		case strings.Contains(name, ":"):
			return fault.Errorf(fault.Invalid, p, "%s names an alternate data stream (%s: the part after the colon), which fsmcp does not open; give the file's own path", p, name)
		case name != "." && name != ".." && !filepath.IsLocal(name):
			return fault.Errorf(fault.Invalid, p, "%s names the Windows device %s, not a file: Windows reserves CON, PRN, AUX, NUL, COM1-COM9 and LPT1-LPT9 (on Windows 10 and older with any extension too), so no file can have that name", p, name)
		}
	}
	return nil
}

func isSep(c byte) bool    { return c == '\\' || c == '/' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
