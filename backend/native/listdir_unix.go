//go:build unix && !linux

package native

import (
	"os"

	"golang.org/x/sys/unix"
)

// listState is listDir's scratch space in a walker.
type listState struct {
	ents []dirent // the entries of the directory last listed
}

// listDir lists the open directory fd (path names it in errors) into
// st.list.ents. A read error mid-way gives the entries read so far; err is
// set only when the directory could not be listed at all.
func listDir(st *workerState, fd int, path string) ([]dirent, error) {
	dup, err := unix.Dup(fd) // os.File owns and closes its own descriptor
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), path)
	entries, _ := f.ReadDir(-1)
	f.Close()
	ents := st.list.ents[:0]
	for _, e := range entries {
		ents = append(ents, dirent{name: e.Name(), typ: e.Type()})
	}
	st.list.ents = ents
	return ents, nil
}
