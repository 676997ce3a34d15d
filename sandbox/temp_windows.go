package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// Temp is a new file written whole before it is put in place under its
// final name. On Windows it is a hidden ".NAME.fsmcp-RANDOM.tmp" next to
// the final name, reached by name through the root (there are no *at
// calls), and removed on failure.
type Temp struct {
	f     *os.File
	tmp   *Path
	final *Path
}

// CreateTemp starts a new file that Commit will put at p.
func (p *Path) CreateTemp(perm fs.FileMode) (*Temp, error) {
	if p.IsRoot() {
		return nil, errors.New("cannot write the allowed directory itself")
	}
	tmp := p.TempSibling()
	f, err := tmp.OpenFile(os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return &Temp{f: f, tmp: tmp, final: p}, nil
}

// File is the file to write to.
func (t *Temp) File() *os.File { return t.f }

// Commit flushes the file and renames it into place, replacing what is
// there when replace is set, else failing with an ExistsError.
func (t *Temp) Commit(replace bool) error {
	defer t.Discard()
	if err := t.f.Sync(); err != nil {
		return describe(t.final.Abs, err)
	}
	if err := t.f.Close(); err != nil {
		return describe(t.final.Abs, err)
	}
	t.f = nil
	var err error
	if replace {
		err = t.tmp.Rename(t.final)
	} else {
		err = t.tmp.RenameNoReplace(t.final)
	}
	if err == nil {
		t.tmp = nil
	}
	return err
}

// Discard closes the file and removes it if it was not committed.
func (t *Temp) Discard() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
	if t.tmp != nil {
		t.tmp.Remove()
		t.tmp = nil
	}
}

// Chtimes sets the file's access and modification times.
func (t *Temp) Chtimes(atime, mtime time.Time) error { return t.tmp.Chtimes(atime, mtime) }
