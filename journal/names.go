package journal

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// A name (a path, a link's target, an attribute's name) is any bytes
// but NUL, and JSON strings are UTF-8: encoding/json writes an invalid
// byte as U+FFFD, so a file named "bad\xff" would come back from the log
// as another name, and its undo would find nothing there. The log keeps
// such a name as NUL and its bytes in base64, which no real name can
// be; a name that is valid UTF-8 is kept as it is.

const rawMark = "\x00"

// wireName is how the log keeps name.
func wireName(name string) string {
	if utf8.ValidString(name) && !strings.HasPrefix(name, rawMark) {
		return name
	}
	return rawMark + base64.StdEncoding.EncodeToString([]byte(name))
}

// nameOf is the name the log keeps as s.
func nameOf(s string) string {
	if !strings.HasPrefix(s, rawMark) {
		return s
	}
	b, err := base64.StdEncoding.DecodeString(s[len(rawMark):])
	if err != nil {
		return s
	}
	return string(b)
}

// plainName reports whether the log keeps name as it is.
func plainName(name string) bool {
	return utf8.ValidString(name) && !strings.HasPrefix(name, rawMark)
}

func plainImage(im *Image) bool {
	if !plainName(im.Target) {
		return false
	}
	for k := range im.Xattrs {
		if !plainName(k) {
			return false
		}
	}
	return true
}

// mapImage applies f to the names im holds (a new map of attributes
// where one of their names changes).
func mapImage(im *Image, f func(string) string) {
	im.Target = f(im.Target)
	for k := range im.Xattrs {
		if f(k) != k {
			m := make(map[string][]byte, len(im.Xattrs))
			for k, v := range im.Xattrs {
				m[f(k)] = v
			}
			im.Xattrs = m
			return
		}
	}
}

func mapOp(op *Op, f func(string) string) {
	op.Base, op.Path, op.ToBase, op.To, op.Trash = f(op.Base), f(op.Path), f(op.ToBase), f(op.To), f(op.Trash)
	mapImage(&op.Before, f)
}

func mapFinal(fi *Final, f func(string) string) {
	fi.Base, fi.Path = f(fi.Base), f(fi.Path)
	mapImage(&fi.Image, f)
}

// wireRecord is r with its names as the log keeps them: r itself where
// every name is kept as it is (nearly always), else a copy.
func wireRecord(r *record) *record {
	plain := true
	if op := r.Op; op != nil {
		plain = plainName(op.Base) && plainName(op.Path) && plainName(op.ToBase) && plainName(op.To) && plainName(op.Trash) && plainImage(&op.Before)
	}
	for i := 0; plain && i < len(r.After); i++ {
		a := &r.After[i]
		plain = plainName(a.Base) && plainName(a.Path) && plainImage(&a.Image)
	}
	if plain {
		return r
	}
	c := *r
	if r.Op != nil {
		op := *r.Op
		mapOp(&op, wireName)
		c.Op = &op
	}
	if r.After != nil {
		c.After = append([]Final(nil), r.After...)
		for i := range c.After {
			mapFinal(&c.After[i], wireName)
		}
	}
	return &c
}

// readRecord gives r, as read from the log, its names back.
func readRecord(r *record) {
	if r.Op != nil {
		mapOp(r.Op, nameOf)
	}
	for i := range r.After {
		mapFinal(&r.After[i], nameOf)
	}
}

// wireTree is a tree's listing with its names as the log keeps them.
func wireTree(list []treeEntry) {
	for i := range list {
		list[i].Path = wireName(list[i].Path)
		mapImage(&list[i].Image, wireName)
	}
}

// readTreeNames gives a tree's listing, as read, its names back.
func readTreeNames(list []treeEntry) {
	for i := range list {
		list[i].Path = nameOf(list[i].Path)
		mapImage(&list[i].Image, nameOf)
	}
}
