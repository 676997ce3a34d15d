package native

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// record builds one linux_dirent64 record, padded to 8 bytes as the
// kernel pads them.
func record(name string, typ byte) []byte {
	n := (direntName + len(name) + 1 + 7) &^ 7
	r := make([]byte, n)
	binary.NativeEndian.PutUint16(r[direntReclen:], uint16(n))
	r[direntType] = typ
	copy(r[direntName:], name)
	return r
}

// TestParseDirents: types map as os.ReadDir maps them, "." and ".." are
// skipped, a type the file system did not report is looked up without
// following a link, and a malformed record ends the parse.
func TestParseDirents(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "u-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "u-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("u-dir", filepath.Join(dir, "u-link")); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var buf []byte
	for _, r := range [][]byte{
		record(".", unix.DT_DIR), record("..", unix.DT_DIR), record("f", unix.DT_REG), record("d", unix.DT_DIR),
		record("l", unix.DT_LNK), record("p", unix.DT_FIFO), record("u-file", unix.DT_UNKNOWN),
		record("u-dir", unix.DT_UNKNOWN), record("u-link", unix.DT_UNKNOWN), record("u-gone", unix.DT_UNKNOWN),
	} {
		buf = append(buf, r...)
	}
	bad := record("after-bad", unix.DT_REG)
	binary.NativeEndian.PutUint16(bad[direntReclen:], 4096)
	buf = append(buf, bad...)
	got := parseDirents(fd, buf, nil)
	want := []dirent{
		{"f", 0}, {"d", fs.ModeDir}, {"l", fs.ModeSymlink}, {"p", fs.ModeIrregular},
		{"u-file", 0}, {"u-dir", fs.ModeDir}, {"u-link", fs.ModeSymlink}, {"u-gone", fs.ModeIrregular},
	}
	if !slices.Equal(got, want) {
		t.Errorf("parseDirents = %v, want %v", got, want)
	}
}

// TestListDirMatchesReadDir: listDir gives what os.ReadDir gives, for a
// directory bigger than one getdents buffer.
func TestListDirMatchesReadDir(t *testing.T) {
	dir := t.TempDir()
	for i := range 3000 {
		name := filepath.Join(dir, "a-rather-long-file-name-to-fill-more-than-one-buffer-"+strconv.Itoa(i))
		if err := os.WriteFile(name, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var st workerState
	ents, err := listDir(&st, fd, dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []dirent
	for _, e := range entries {
		want = append(want, dirent{e.Name(), e.Type()})
	}
	slices.SortFunc(ents, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	if len(ents) != 3001 || !slices.Equal(ents, want) {
		t.Errorf("listDir gave %d entries, os.ReadDir %d, or they differ", len(ents), len(want))
	}
}
