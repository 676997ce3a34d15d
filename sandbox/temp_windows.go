package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/fsmcp/fsmcp/fault"
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
func (t *Temp) Commit(replace bool) error { return t.commit(replace, nil) }

// CommitOver is Commit(true) for a caller that holds the file it
// replaces open (for its lock). Windows replaces an open file only with
// a POSIX-semantics rename, which FAT32 and exFAT drives, many SMB
// shares and Wine lack (Go tries it first, then the classic rename,
// which refuses an open target): where the rename is refused, held is
// let go of and the rename tried again (replaceTries). The caller's
// in-process lock still keeps fsmcp's own writers out meanwhile.
func (t *Temp) CommitOver(held io.Closer) error { return t.commit(true, held) }

// replaceTries bounds the renames of a refused replace, a few
// milliseconds apart, doubling (about 0.6 s in all): a program that has
// the file open only for a moment (a virus scanner, a search indexer,
// fsmcp's own index build) no longer blocks it where the classic rename
// is all there is. One that keeps it open makes the last try fail, and
// nothing changes.
const replaceTries = 7

func (t *Temp) commit(replace bool, held io.Closer) error {
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
		wait := 10 * time.Millisecond
		for try := 1; try < replaceTries && fault.KindOf(err) == fault.Permission; try++ {
			if held != nil {
				held.Close()
			} else {
				time.Sleep(wait)
				wait *= 2
			}
			held = nil
			err = t.tmp.Rename(t.final)
		}
		if fault.KindOf(err) == fault.Permission {
			err = fault.Errorf(fault.Permission, t.final.Abs, "permission denied: Windows refused to replace %s (it does while another program has the file open, or where you may not change it)", t.final.Abs)
		}
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
