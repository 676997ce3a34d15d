package journal

import (
	"os"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/sandbox"
)

// TestUncheckedContentGetsNoPrivilege: content an older fsmcp kept by
// name after its lstat may be another file's; an undo writing it puts
// back no set-uid or set-gid bit, no other owner and no capability, and
// says so. Checked content gets all of them.
func TestUncheckedContentGetsNoPrivilege(t *testing.T) {
	p := &sandbox.Path{Abs: "/r/t", Rel: "t"}
	b := Image{Type: File, Mode: 0o6755, Owner: &[2]int{1234, 1234},
		Xattrs: map[string][]byte{capabilityXattr: {1}, "user.x": {2}}, XattrsKept: true}
	var u undoer
	a := u.fileAttrs(p, b)
	if a.Mode != 0o755 || a.Owner != nil || a.Xattrs[capabilityXattr] != nil || a.Xattrs["user.x"] == nil {
		t.Errorf("unchecked: mode %o owner %v xattrs %v", a.Mode, a.Owner, a.Xattrs)
	}
	if b.Xattrs[capabilityXattr] == nil {
		t.Error("the image's own attributes were changed")
	}
	if len(u.notes) != 1 || !strings.Contains(u.notes[0], "set-uid") || !strings.Contains(u.notes[0], "capabilities") {
		t.Errorf("notes: %q", u.notes)
	}
	b.Checked = true
	u.notes = nil
	if a := u.fileAttrs(p, b); a.Mode != 0o6755 || a.Owner == nil || a.Xattrs[capabilityXattr] == nil || len(u.notes) > 0 {
		t.Errorf("checked: mode %o owner %v xattrs %v notes %q", a.Mode, a.Owner, a.Xattrs, u.notes)
	}
	// A plain file of the undo's own owner loses nothing and says nothing.
	u.notes = nil
	plain := Image{Type: File, Mode: 0o644, Owner: &[2]int{os.Geteuid(), os.Getegid()}}
	if a := u.fileAttrs(p, plain); a.Mode != 0o644 || len(u.notes) > 0 {
		t.Errorf("plain: mode %o notes %q", a.Mode, u.notes)
	}
}
