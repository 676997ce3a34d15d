package journal

import (
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Line is one entry as a person reads it, on one line whatever the names
// hold: id, time, tool, session, the command (fs_bash), what happened to
// which paths, and whether it can be undone.
func (e *Entry) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %s", e.ID, e.Time.Local().Format(time.DateTime), escape.Name(or(e.Tool, "-")))
	if e.Session != "" {
		b.WriteString("  session " + escape.Name(e.Session))
	}
	if e.Command != "" {
		c := e.Command
		if len(c) > 200 {
			c = c[:200] + "…"
		}
		b.WriteString("  $ " + escape.Name(c))
	}
	if len(e.Undoes) > 0 {
		verb := "undoes"
		if e.Redo {
			verb = "redoes"
		}
		b.WriteString("  " + verb + " " + strings.Join(e.Undoes, ","))
	}
	b.WriteString("  " + e.pathsLine())
	if o := e.outsideLine(); o != "" {
		if len(e.Ops) > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + o)
	}
	switch {
	case e.UndoneBy != "":
		b.WriteString("  [undone by " + e.UndoneBy + "]")
	case e.live:
		b.WriteString("  [in progress]")
	case !e.Closed:
		b.WriteString("  [cut short: fsmcp stopped during it]")
	case e.NotUndoable != "":
		b.WriteString("  [not undoable: " + escape.Name(e.NotUndoable) + "]")
	}
	for _, n := range e.Notes {
		b.WriteString("  [" + escape.Name(n) + "]")
	}
	return b.String()
}

// pathsLine says what happened to the entry's paths, each once, from
// its state before the entry to its state after: the first few, and how
// many more. A file made and gone within the entry (a temporary one) is
// left out.
func (e *Entry) pathsLine() string {
	const show = 5
	final := map[string]Image{}
	for _, f := range e.After {
		final[e.baseOf(f.Base)+"\x00"+f.Path] = f.Image
	}
	type path struct {
		name   string
		before Image
		meta   bool   // only mode, owner or times were recorded
		to     string // moved there
		swap   string // exchanged with this
	}
	var order []string
	paths := map[string]*path{}
	at := func(base, rel string, before Image, meta bool) *path {
		k := e.baseOf(base) + "\x00" + rel
		if p := paths[k]; p != nil {
			p.meta = p.meta && meta
			return p
		}
		p := &path{name: filepath.Join(e.baseOf(base), filepath.FromSlash(rel)), before: before, meta: meta}
		paths[k] = p
		order = append(order, k)
		return p
	}
	for _, op := range e.Ops {
		switch op.Kind {
		case "times":
		case "move":
			src := at(op.Base, op.Path, op.Before, false)
			at(op.ToBase, op.To, Image{}, false)
			if src.before.Exists() {
				src.to = filepath.Join(e.baseOf(op.ToBase), filepath.FromSlash(op.To))
			}
		case "exchange":
			a := at(op.Base, op.Path, op.Before, false)
			b := at(op.Base, op.To, Image{}, false)
			a.swap = filepath.Join(e.baseOf(op.Base), filepath.FromSlash(op.To))
			b.swap = a.name
		default:
			at(op.Base, op.Path, op.Before, op.Kind == "meta" || op.Kind == "flags")
		}
	}
	var parts []string
	for _, k := range order {
		p := paths[k]
		now := final[k]
		var what string
		switch {
		case p.swap != "":
			what = "exchanged with " + escape.Name(p.swap)
		case !p.before.Exists() && !now.Exists():
			continue
		case p.to != "" && !now.Exists():
			what = "moved to " + escape.Name(p.to)
		case p.meta:
			what = fmt.Sprintf("mode %04o", p.before.Mode)
			if now.Mode != p.before.Mode {
				what += fmt.Sprintf(" -> %04o", now.Mode)
			}
			if p.before.Owner != nil && now.Owner != nil && *p.before.Owner != *now.Owner {
				what += fmt.Sprintf(", owner %d:%d -> %d:%d", p.before.Owner[0], p.before.Owner[1], now.Owner[0], now.Owner[1])
			}
		default:
			what = size(p.before) + " -> " + size(now)
		}
		parts = append(parts, escape.Name(p.name)+" ("+what+")")
	}
	if len(parts) > show {
		parts = append(parts[:show], fmt.Sprintf("and %d more", len(parts)-show))
	}
	return strings.Join(parts, ", ")
}

func size(im Image) string {
	switch im.Type {
	case Absent:
		return "absent"
	case File:
		return fmt.Sprintf("%d bytes", im.Size)
	case Dir:
		return "directory"
	case Link:
		return "link to " + escape.Name(im.Target)
	}
	return im.Type
}

// maxDiff bounds a diff's input per side.
const maxDiff = 1 << 20

// Diff is the entry's change as a unified diff per file, from the kept
// content to what the file holds now, while it still holds what the
// entry left. Control characters in names and lines are escaped, so a
// diff cannot move a terminal's cursor or hide a line.
func (e *Entry) Diff(sb *sandbox.Sandbox) string {
	final := map[string]Image{}
	for _, f := range e.After {
		final[e.baseOf(f.Base)+"\x00"+f.Path] = f.Image
	}
	var b strings.Builder
	for _, op := range e.Ops {
		if op.Kind != "state" {
			continue
		}
		k := e.baseOf(op.Base) + "\x00" + op.Path
		after, ok := final[k]
		if !ok || op.Before.Type != File && after.Type != File {
			continue
		}
		name := filepath.Join(e.baseOf(op.Base), filepath.FromSlash(op.Path))
		before, ok1 := e.content(op.Before)
		now, ok2 := e.current(sb, name, after)
		if !ok1 || !ok2 {
			fmt.Fprintf(&b, "%s: no diff (its content is not kept, or changed since)\n", escape.Name(name))
			continue
		}
		if binary(before) || binary(now) {
			fmt.Fprintf(&b, "%s: binary content changed\n", escape.Name(name))
			continue
		}
		d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(now)),
			FromFile: escape.Name(name) + " (before)", ToFile: escape.Name(name) + " (after)", Context: 3,
		})
		if d == "" {
			d = escape.Name(name) + ": content unchanged\n"
		}
		b.WriteString(escape.Text(d))
	}
	return b.String()
}

// content reads a kept content, up to maxDiff bytes.
func (e *Entry) content(im Image) ([]byte, bool) {
	if im.Type != File {
		return nil, im.Type == Absent
	}
	if im.Size > maxDiff {
		return nil, false
	}
	r, err := e.store.openContent(&im)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxDiff+1))
	return b, err == nil
}

// current reads what name holds now if it is what the entry left.
func (e *Entry) current(sb *sandbox.Sandbox, name string, after Image) ([]byte, bool) {
	if after.Type != File {
		return nil, after.Type == Absent
	}
	p, err := sb.Resolve(name)
	if err != nil || after.Size > maxDiff {
		return nil, false
	}
	data, err := p.ReadFile(maxDiff)
	if err != nil || after.Hash != "" && hashOf(data) != after.Hash {
		return nil, false
	}
	return data, true
}

// binary is git diff's rule (a NUL byte in the first 8000 bytes), for a
// history that reads like git's; files.Classify decides what a tool reads.
func binary(b []byte) bool {
	return strings.IndexByte(string(b[:min(len(b), 8000)]), 0) >= 0
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// readTree reads a tree listing kept in a pack.
func (store *Store) readTree(ref *packRef) ([]treeEntry, error) {
	f, err := store.fs.Open(segPath(ref.Seg, ref.Name))
	if err != nil {
		return nil, fmt.Errorf("its old content is no longer in the journal")
	}
	defer f.Close()
	var list []treeEntry
	err = json.NewDecoder(flate.NewReader(io.NewSectionReader(f, ref.Off, ref.Len))).Decode(&list)
	readTreeNames(list)
	return list, err
}
