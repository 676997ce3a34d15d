package shell

import "io/fs"

// A Recorder is told of each change a command (and every process it
// starts) is about to make to the file system, before the change is
// made: the process waits until Before returns, so the recorder can keep
// what the change will replace. The change journal is one. Paths are
// absolute, as the command's processes see them: the roots and the
// private temp directory appear there at their own names.
type Recorder interface {
	Before(ev Event)
	// Returned is told once bash has exited, before the processes the
	// command left running are looked at (Result.Running, Writing):
	// what changes after it is theirs.
	Returned()
}

// A LinkFree Recorder knows paths where no link can stand (below a
// directory the command made, where it made none and moved nothing in):
// a call there that would follow one is told to the recorder without the
// tracer's look for one first.
type LinkFree interface {
	NoLinks(path string) bool
}

// A Finisher is a Recorder told when the last process of the command
// has ended (or its session closed): no change follows, and what it
// held for the background's changes can go.
type Finisher interface {
	Finished()
}

// Change is what a system call is about to do to a path.
type Change int

const (
	// Write: a file is opened for writing or truncated (its content may
	// change in place), or created where nothing was.
	Write Change = iota
	// Create: a directory, node, link or hard link is made at Path.
	Create
	// Remove: Path is unlinked, or an empty directory removed.
	Remove
	// Rename: Path is renamed to To (replacing what To held).
	Rename
	// Exchange: Path and To swap places.
	Exchange
	// Meta: Path's mode, owner or times change.
	Meta
	// Flags: Path's inode flags change (chattr: append-only, no-dump,
	// no-atime and the like).
	Flags
	// Unreadable: a call changes a path longer than the system names
	// (PATH_MAX, 4096 bytes on Linux): where it lands cannot be told.
	Unreadable
)

// Event is one change about to be made.
type Event struct {
	Change Change
	Path   string
	To     string // Rename, Exchange: the other name; Create of a hard link: the name it links to
	// NoReplace: a rename that fails where To exists (RENAME_NOREPLACE,
	// which mv tries first): then nothing changes.
	NoReplace bool
	// CrossMount: a rename whose two names lie on different mounts,
	// which fails (EXDEV) by itself; mv then copies and removes, each
	// call traced.
	CrossMount bool
	// RemoveDir: a removal that takes only a directory (rmdir, unlinkat
	// with AT_REMOVEDIR), which fails on anything else.
	RemoveDir bool
	// MakeDir: a Create that makes a directory (mkdir), where nothing
	// may be below it yet.
	MakeDir bool
	// Follow: a link at Path is followed (an open without O_NOFOLLOW, a
	// chmod); the change lands on what it points to.
	Follow bool
	// Seen is Path's lstat as the tracer took it, the call stopped, to
	// learn whether there was a link to follow: there was none (Follow
	// is then false), and the recorder need not look again. Nil when the
	// tracer did not look.
	Seen *Lstat
	Pid  int
}

// Lstat is an lstat's answer: Info, or Err (nothing there, say).
type Lstat struct {
	Info fs.FileInfo
	Err  error
}
