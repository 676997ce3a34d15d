package journal

import (
	"io/fs"
	"time"
)

// Types of what a path holds.
const (
	Absent = ""      // nothing
	File   = "file"  // a regular file
	Dir    = "dir"   // a directory
	Link   = "link"  // a symbolic link
	FIFO   = "fifo"  // a named pipe
	Other  = "other" // a socket or device: made again where it can be (Node)
)

// Image is the state of one path at one moment: what it held, with its
// mode (set-uid, set-gid and sticky bits included), owner and times, and
// where its content is kept when the journal keeps it.
type Image struct {
	Type   string  `json:"type,omitempty"`
	Mode   uint32  `json:"mode,omitempty"` // the Unix permission bits, 07777
	Owner  *[2]int `json:"owner,omitempty"`
	MTime  int64   `json:"mtime,omitempty"` // nanoseconds since 1970
	ATime  int64   `json:"atime,omitempty"`
	Size   int64   `json:"size,omitempty"`
	Hash   string  `json:"hash,omitempty"`   // sha256 of a file's content, where read
	Target string  `json:"target,omitempty"` // a link's target
	// Where the content is kept: inline (a small file), in the segment's
	// pack, or the object itself moved or linked into the journal (held).
	Data []byte   `json:"data,omitempty"`
	Pack *packRef `json:"pack,omitempty"`
	Held string   `json:"held,omitempty"`
	// Tree lists a directory's whole content, kept in the pack (a tree
	// copied into the journal where it could not be moved there).
	Tree *packRef `json:"tree,omitempty"`
	// Usage is the disk the kept content takes, in bytes.
	Usage int64 `json:"usage,omitempty"`
	// Identity: the object, so an undo can tell it is the same one.
	Dev   uint64 `json:"dev,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
	Nlink uint64 `json:"nlink,omitempty"`
	// Manifest sums a directory tree's names, types, sizes and times: an
	// undo removes a tree only while it is what the change left.
	Manifest string `json:"manifest,omitempty"`
	// Node is a socket's or device's kind (socket, char, block) and Rdev
	// a device's number, where the system tells them (Linux): enough to
	// make the node again (a socket is a name; its listener is gone).
	Node string `json:"node,omitempty"`
	Rdev uint64 `json:"rdev,omitempty"`
	// Xattrs are a file's or directory's extended attributes, where
	// XattrsKept (Linux): put back with its mode (xattr_linux.go).
	Xattrs     map[string][]byte `json:"xattrs,omitempty"`
	XattrsKept bool              `json:"xk,omitempty"`
	// Flags are the inode flags (chattr's) a "flags" op keeps (Linux).
	Flags *uint32 `json:"fl,omitempty"`
	// Lost says why the content was not kept ("" when it was, or when
	// there was none to keep).
	Lost string `json:"lost,omitempty"`
	// Open says a process the command left running held the file open
	// for writing when the step ended, or had opened it to write in the
	// step (a final's): what it writes later passes no call fsmcp sees,
	// so an undo asks only that the file be the same one, or, where the
	// step's end found nothing yet (an open let go on, not yet done),
	// that a file be there.
	Open bool `json:"open,omitempty"`
	// Checked says the kept content (Data, Pack or Held) was read from
	// the very inode whose mode, owner and attributes the image records
	// (opened, then compared by device and inode). An undo puts a
	// set-uid or set-gid bit, an owner or a file capability back only
	// on such content: an older journal's, read by name after an lstat,
	// may be another file's that took the name in between.
	Checked bool `json:"ck,omitempty"`
}

// attrs is what an undo puts back on the object besides its content.
func (im *Image) attrs() Attrs {
	return Attrs{Mode: im.Mode, Owner: im.Owner, ATime: im.atime(), MTime: im.mtime(), Xattrs: im.Xattrs, XattrsKept: im.XattrsKept}
}

// Exists reports whether the path held anything.
func (im *Image) Exists() bool { return im.Type != Absent }

// kept reports whether the content needed to bring the path back is
// there (a directory's own state, a link's target and a pipe need none).
func (im *Image) kept() bool {
	switch im.Type {
	case File:
		return im.Data != nil || im.Pack != nil || im.Held != "" || im.Size == 0 && im.Lost == ""
	case Dir:
		return im.Lost == ""
	case Other:
		return im.Node != ""
	}
	return true
}

// perm is the image's mode as a FileMode (set-uid, set-gid, sticky
// included).
func (im *Image) perm() fs.FileMode { return FileMode(im.Mode) }

// FileMode is a Unix mode's permission bits (07777) as a FileMode.
func FileMode(u uint32) fs.FileMode {
	m := fs.FileMode(u & 0o777)
	if u&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if u&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if u&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

func (im *Image) mtime() time.Time { return time.Unix(0, im.MTime) }
func (im *Image) atime() time.Time {
	if im.ATime == 0 {
		return im.mtime()
	}
	return time.Unix(0, im.ATime)
}

// unixMode is fi's permission bits as Unix spells them.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

func typeOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return File
	case m.IsDir():
		return Dir
	case m&fs.ModeSymlink != 0:
		return Link
	case m&fs.ModeNamedPipe != 0:
		return FIFO
	}
	return Other
}

// statImage is fi as an Image without content: type, mode, owner, times,
// size and identity.
func statImage(fi fs.FileInfo) Image {
	im := Image{Type: typeOf(fi.Mode()), Mode: unixMode(fi.Mode()), MTime: fi.ModTime().UnixNano(), Size: fi.Size()}
	if im.Type != File {
		im.Size = 0
	}
	if im.Type == Other {
		im.Node, im.Rdev = nodeOf(fi)
	}
	if s, ok := sysStat(fi); ok {
		im.Owner = &[2]int{s.uid, s.gid}
		im.ATime, im.Dev, im.Ino, im.Nlink = s.atime, s.dev, s.ino, s.nlink
	}
	return im
}

// isOf reports whether fi (a descriptor's fstat, or an lstat taken
// later) describes the object im was read from: the same type, device,
// inode, mode and owner. Where the system tells no identity (Windows)
// only the type and mode are compared.
func (im *Image) isOf(fi fs.FileInfo) bool {
	now := statImage(fi)
	if now.Type != im.Type || now.Mode != im.Mode || !ownerEq(im.Owner, now.Owner) {
		return false
	}
	return im.Ino == 0 || now.Ino == 0 || sameObject(*im, now)
}

// sameObject reports whether a and b are the same file-system object, as
// far as the images tell: the same device and inode where both have them.
func sameObject(a, b Image) bool {
	return a.Ino != 0 && b.Ino != 0 && a.Dev == b.Dev && a.Ino == b.Ino
}

// sameState reports whether now still holds what was: the same type,
// and for a file the same content (by hash where both were read, else
// the same size and modification time), for a link the same target.
func sameState(was, now Image) bool {
	if was.Type != now.Type {
		return false
	}
	switch was.Type {
	case File:
		if was.Hash != "" && now.Hash != "" {
			return was.Hash == now.Hash
		}
		return was.Size == now.Size && was.MTime == now.MTime
	case Link:
		return was.Target == now.Target
	case Dir:
		return was.Manifest == "" || now.Manifest == "" || was.Manifest == now.Manifest
	}
	return true
}

// unchanged reports whether a path still holds exactly what it held
// before a step: same type, mode and owner, and the same content (by
// hash, or the very same inode unmodified).
func unchanged(before, now Image) bool {
	if before.Type != now.Type || before.Mode != now.Mode || !ownerEq(before.Owner, now.Owner) {
		return false
	}
	if before.XattrsKept && now.XattrsKept && !sameXattrs(before.Xattrs, now.Xattrs) {
		return false
	}
	if before.Held != "" && !sameObject(before, now) {
		// The object itself went into the journal and another took its
		// place (a tree copied over a tree with the same times, as two
		// trees unpacked from one archive have): a change.
		return false
	}
	switch before.Type {
	case File:
		if before.Hash != "" && now.Hash != "" {
			return before.Hash == now.Hash && before.MTime == now.MTime
		}
		return sameObject(before, now) && before.Size == now.Size && before.MTime == now.MTime
	case Link:
		return before.Target == now.Target && before.MTime == now.MTime
	}
	// A directory, a FIFO, a socket or a device: its time says whether
	// it changed (touch sock, which opens nothing, then sets the time,
	// was taken for no change at all, so no entry, and no undo).
	return before.MTime == now.MTime
}

// sameXattrs reports whether two sets of extended attributes are equal.
func sameXattrs(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || string(v) != string(w) {
			return false
		}
	}
	return true
}
