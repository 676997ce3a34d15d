//go:build unix && !linux

package shell

// hostPid: without namespaces a pid is the same everywhere.
func (s *Session) hostPid(nspid int) (int, error) { return nspid, nil }
