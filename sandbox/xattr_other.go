//go:build !linux

package sandbox

// xattrs: extended attributes are carried over on Linux only.
func (p *Path) xattrs() map[string][]byte { return nil }
