//go:build unix

package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"golang.org/x/sys/unix"
)

// Temp is a new file written whole before it is put in place under its
// final name. Every step — creating it, naming it, removing it — is done
// relative to one descriptor of the parent directory, opened through the
// root once: a parent swapped for a link out afterwards changes nothing,
// and the cleanup of a failed write cannot be refused.
//
// On Linux the file is made unnamed (O_TMPFILE) where the file system
// allows: it has no name until Commit links it in, so a write that fails
// or a process that is killed leaves nothing behind. Elsewhere it is a
// hidden ".NAME.fsmcp-RANDOM.tmp" in the same directory, removed on
// failure (a SIGKILL can leave that one).
type Temp struct {
	f     *os.File
	dir   *os.File // the parent directory, opened through the root
	name  string   // the hidden name, "" while the file is unnamed
	final *Path
}

// CreateTemp starts a new file that Commit will put at p.
func (p *Path) CreateTemp(perm fs.FileMode) (*Temp, error) {
	if p.IsRoot() {
		return nil, errors.New("cannot write the allowed directory itself")
	}
	// O_DIRECTORY|O_NONBLOCK: a FIFO swapped in for the parent fails at
	// once instead of blocking the open.
	dir, err := p.Root.fs.OpenFile(path.Dir(p.Rel), os.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	t := &Temp{dir: dir, final: p}
	if f, err := openUnnamed(dir, perm); err == nil {
		t.f = f
		return t, nil
	}
	t.name = tempName(path.Base(p.Rel))
	fd, err := unix.Openat(int(dir.Fd()), t.name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		dir.Close()
		return nil, describe(p.Abs, err)
	}
	t.f = os.NewFile(uintptr(fd), t.name)
	return t, nil
}

// File is the file to write to.
func (t *Temp) File() *os.File { return t.f }

// Commit flushes the file to disk (so a power loss cannot leave an empty
// file under the final name) and puts it in place: replacing what is
// there when replace is set, else failing with an ExistsError if the
// name exists.
func (t *Temp) Commit(replace bool) error {
	p := t.final
	defer t.Discard()
	if err := t.f.Sync(); err != nil {
		return describe(p.Abs, err)
	}
	dfd := int(t.dir.Fd())
	final := path.Base(p.Rel)
	if t.name == "" {
		if !replace {
			if err := linkUnnamed(t.f, t.dir, final); err != nil {
				return t.noReplace(err)
			}
			return unix.Fsync(dfd)
		}
		t.name = tempName(final)
		if err := linkUnnamed(t.f, t.dir, t.name); err != nil {
			t.name = ""
			return describe(p.Abs, err)
		}
	}
	if !replace {
		err := unix.Linkat(dfd, t.name, dfd, final, 0)
		if err == nil {
			return unix.Fsync(dfd) // Discard removes the hidden name
		}
		if err != unix.EPERM && err != unix.ENOTSUP && err != unix.EOPNOTSUPP {
			return t.noReplace(err)
		}
		// No hard links here: rename, after a check that can race.
		if err := unix.Fstatat(dfd, final, &unix.Stat_t{}, unix.AT_SYMLINK_NOFOLLOW); err == nil {
			return &ExistsError{Path: p.Abs}
		}
	}
	if err := unix.Renameat(dfd, t.name, dfd, final); err != nil {
		return describe(p.Abs, err)
	}
	t.name = ""
	return unix.Fsync(dfd) // the new name itself survives a power loss
}

// CommitOver is Commit(true) for a caller that holds the file it
// replaces open (for its lock). A Unix rename replaces an open file, so
// held stays open here (see the Windows version).
func (t *Temp) CommitOver(held io.Closer) error { return t.Commit(true) }

func (t *Temp) noReplace(err error) error {
	if errors.Is(err, unix.EEXIST) {
		return &ExistsError{Path: t.final.Abs}
	}
	return describe(t.final.Abs, err)
}

// Discard closes the file and removes it if it was not committed
// (relative to the parent's descriptor). It may be called more than once.
func (t *Temp) Discard() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
	if t.name != "" {
		unix.Unlinkat(int(t.dir.Fd()), t.name, 0)
		t.name = ""
	}
	if t.dir != nil {
		t.dir.Close()
		t.dir = nil
	}
}

// Chtimes sets the file's access and modification times.
func (t *Temp) Chtimes(atime, mtime time.Time) error {
	if t.name == "" {
		return describe(t.final.Abs, futimes(t.f, atime, mtime))
	}
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return describe(t.final.Abs, unix.UtimesNanoAt(int(t.dir.Fd()), t.name, ts, unix.AT_SYMLINK_NOFOLLOW))
}
