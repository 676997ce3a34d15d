package sandbox

// cutPathPrefix compares as Windows file systems do by default: drive
// letters and names without regard to case, so with the root C:\ws the
// path c:\WS\x is inside it.
func cutPathPrefix(p, prefix string) (string, bool) { return cutPrefixUpper(p, prefix) }
