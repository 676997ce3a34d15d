//go:build windows

package index

import (
	"io"
	"os"
)

// openRegular opens rel in root and refuses anything but a regular file.
func openRegular(root *os.Root, rel string) (*os.File, error) {
	if fi, err := root.Lstat(rel); err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, os.ErrInvalid
	}
	return f, nil
}

// metaOfInfo is what Windows offers: size and modification time (no
// inode or change time, so an edit that keeps both is caught only by
// the racy window).
func metaOfInfo(fi os.FileInfo) meta {
	return meta{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// fileMetaOf is f's metadata; no device (no inode to share content by).
func fileMetaOf(f *os.File) (meta, uint64, error) {
	fi, err := f.Stat()
	if err != nil {
		return meta{}, 0, err
	}
	return metaOfInfo(fi), 0, nil
}

// statAt stats path (the walk on Windows goes by path).
func statAt(_ int, _, path string) (meta, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return meta{}, false
	}
	return metaOfInfo(fi), true
}

// mapFile reads path whole (no mapping on Windows: a mapped file could
// not be replaced by the next build's rename).
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// statIno: Windows has no watcher to prune with, so this is never asked.
func statIno(os.FileInfo) (ino, nlink uint64, regular bool) { return 0, 1, true }

// dirStat stats files by name below root (on Windows through os.Root).
type dirStat struct{ root *os.Root }

// stat is the metadata of the regular file rel, a symlink not followed.
func (d *dirStat) stat(rel string) (meta, bool) {
	fi, err := d.root.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return meta{}, false
	}
	return metaOfInfo(fi), true
}

func (d *dirStat) close() {}
