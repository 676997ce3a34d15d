package journal

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Line is one change as a person reads it: id, time, tool, session, what
// happened to which paths, and whether it can be undone.
func (st *Store) Line(e *Entry) string {
	var parts []string
	for i, rel := range e.Paths {
		b, a := e.Before[i], e.After[i]
		parts = append(parts, fmt.Sprintf("%s (%s)", filepath.Join(st.root, filepath.FromSlash(rel)), sizes(b, a)))
	}
	s := fmt.Sprintf("%s  %s  %s", e.ID, e.Time.Local().Format(time.DateTime), or(e.Tool, "-"))
	if e.Session != "" {
		s += "  session " + e.Session
	}
	s += "  " + e.Kind + " " + strings.Join(parts, ", ")
	switch {
	case e.Aborted:
		s += "  [failed; nothing landed]"
	case e.NotUndoable != "":
		s += "  [not undoable: " + e.NotUndoable + "]"
	}
	return s
}

func sizes(b, a Image) string {
	return size(b) + " -> " + size(a)
}

func size(im Image) string {
	switch {
	case !im.Exists:
		return "absent"
	case im.Dir:
		return "directory"
	}
	return fmt.Sprintf("%d bytes", im.Size)
}

// maxDiff bounds a diff's input per side.
const maxDiff = 1 << 20

// Diff is the entry's change as a unified diff per path, from the kept
// before-image to the after-image (the after content is read from the
// blob store when an undo kept it, else from the file while it still
// matches).
func (st *Store) Diff(e *Entry, sb *sandbox.Sandbox) string {
	current := func(rel string) ([]byte, bool) {
		p, err := sb.Resolve(filepath.Join(st.root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, false
		}
		data, err := p.ReadFile(maxDiff)
		return data, err == nil
	}
	var b strings.Builder
	for i, rel := range e.Paths {
		name := filepath.Join(st.root, filepath.FromSlash(rel))
		before, ok1 := st.side(e.Before[i], nil)
		after, ok2 := st.side(e.After[i], func() ([]byte, bool) { return current(rel) })
		if !ok1 || !ok2 {
			fmt.Fprintf(&b, "%s: no diff (its content is not kept, or changed since)\n", name)
			continue
		}
		if isBinary(before) || isBinary(after) {
			fmt.Fprintf(&b, "%s: binary content changed\n", name)
			continue
		}
		d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(after)),
			FromFile: name + " (before)", ToFile: name + " (after)", Context: 3,
		})
		if d == "" {
			d = fmt.Sprintf("%s: content unchanged\n", name)
		}
		b.WriteString(d)
	}
	return b.String()
}

// side returns an image's content: none for an absent path, the blob when
// kept, else what cur returns if its hash matches.
func (st *Store) side(im Image, cur func() ([]byte, bool)) ([]byte, bool) {
	if !im.Exists {
		return nil, true
	}
	if im.Dir || im.Size > maxDiff {
		return nil, false
	}
	if data, err := st.blob(im.Hash); err == nil {
		return data, true
	}
	if cur == nil {
		return nil, false
	}
	data, ok := cur()
	if !ok || hashOf(data) != im.Hash {
		return nil, false
	}
	return data, true
}

func isBinary(b []byte) bool {
	return strings.IndexByte(string(b[:min(len(b), 8000)]), 0) >= 0
}
