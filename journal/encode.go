package journal

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The log's hot records (an op, what paths hold at the end) are
// encoded by hand: a command that makes thousands of files writes two
// records for each, and encoding/json's reflection was a quarter of the
// journal's cost there. The bytes are exactly json.Marshal's, field for
// field (encode_test.go compares them over every field); any other
// record, and any string json.Marshal would escape, goes through
// encoding/json itself.

// marshalRecord is json.Marshal(r).
func marshalRecord(b []byte, r *record) ([]byte, error) {
	switch {
	case r.T == "o" && r.Op != nil && plainRecord(r):
		b = append(b, `{"t":"o","id":`...)
		b = appendString(b, r.ID)
		b = append(b, `,"op":`...)
		b = appendOp(b, r.Op)
		return append(b, '}'), nil
	case r.T == "a" && plainRecord(r):
		b = append(b, `{"t":"a","id":`...)
		b = appendString(b, r.ID)
		b = append(b, `,"after":[`...)
		for i := range r.After {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFinal(b, &r.After[i])
		}
		return append(b, "]}"...), nil
	}
	j, err := json.Marshal(r)
	return append(b, j...), err
}

// plainRecord reports whether r has none of the fields of the other
// kinds of record (which the hand-written encoding leaves out).
func plainRecord(r *record) bool {
	return r.Time.IsZero() && r.Tool == "" && r.Session == "" && r.Command == "" && r.Undoes == nil && !r.Redo &&
		r.Notes == nil && r.NotUndoable == "" && !r.Noop && r.Home == "" && r.Owner == "" &&
		(r.T == "o") == (len(r.After) == 0)
}

func appendOp(b []byte, op *Op) []byte {
	b = append(b, `{"k":`...)
	b = appendString(b, op.Kind)
	b = appendField(b, "base", op.Base)
	b = append(b, `,"p":`...)
	b = appendString(b, op.Path)
	b = appendField(b, "tobase", op.ToBase)
	b = appendField(b, "to", op.To)
	b = appendField(b, "trash", op.Trash)
	b = appendField(b, "link", op.Link)
	b = append(b, `,"b":`...)
	b = appendImage(b, &op.Before)
	b = appendInt(b, "at", op.At)
	return append(b, '}')
}

func appendFinal(b []byte, f *Final) []byte {
	b = append(b, '{')
	if f.Base != "" {
		b = append(b, `"base":`...)
		b = appendString(b, f.Base)
		b = append(b, ',')
	}
	b = append(b, `"p":`...)
	b = appendString(b, f.Path)
	b = append(b, `,"i":`...)
	b = appendImage(b, &f.Image)
	return append(b, '}')
}

// appendImage is json.Marshal(im), fields in Image's order.
func appendImage(b []byte, im *Image) []byte {
	start := len(b)
	b = append(b, '{')
	b = appendField(b, "type", im.Type)
	b = appendUint(b, "mode", uint64(im.Mode))
	if im.Owner != nil {
		b = append(b, `,"owner":[`...)
		b = strconv.AppendInt(b, int64(im.Owner[0]), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(im.Owner[1]), 10)
		b = append(b, ']')
	}
	b = appendInt(b, "mtime", im.MTime)
	b = appendInt(b, "atime", im.ATime)
	b = appendInt(b, "size", im.Size)
	b = appendField(b, "hash", im.Hash)
	b = appendField(b, "target", im.Target)
	if len(im.Data) > 0 {
		b = append(b, `,"data":"`...)
		b = base64.StdEncoding.AppendEncode(b, im.Data)
		b = append(b, '"')
	}
	b = appendJSON(b, "pack", im.Pack != nil, im.Pack)
	b = appendField(b, "held", im.Held)
	b = appendJSON(b, "tree", im.Tree != nil, im.Tree)
	b = appendInt(b, "usage", im.Usage)
	b = appendUint(b, "dev", im.Dev)
	b = appendUint(b, "ino", im.Ino)
	b = appendUint(b, "nlink", im.Nlink)
	b = appendField(b, "manifest", im.Manifest)
	b = appendField(b, "node", im.Node)
	b = appendUint(b, "rdev", im.Rdev)
	b = appendJSON(b, "xattrs", len(im.Xattrs) > 0, im.Xattrs)
	if im.XattrsKept {
		b = append(b, `,"xk":true`...)
	}
	if im.Flags != nil {
		b = appendKey(b, "fl")
		b = strconv.AppendUint(b, uint64(*im.Flags), 10)
	}
	b = appendField(b, "lost", im.Lost)
	if im.Open {
		b = append(b, `,"open":true`...)
	}
	if im.Checked {
		b = append(b, `,"ck":true`...)
	}
	if len(b) > start+1 {
		b = append(b[:start+1], b[start+2:]...) // the first field's comma
	}
	return append(b, '}')
}

// appendKey appends ,"key": (appendImage drops the first comma).
func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendString(appendKey(b, key), v)
}

func appendInt(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(appendKey(b, key), v, 10)
}

func appendUint(b []byte, key string, v uint64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendUint(appendKey(b, key), v, 10)
}

// appendJSON appends a field encoding/json encodes (rare on the hot
// path: kept content, attributes).
func appendJSON(b []byte, key string, present bool, v any) []byte {
	if !present {
		return b
	}
	j, _ := json.Marshal(v)
	return append(appendKey(b, key), j...)
}

// appendString is json.Marshal(s): a printable ASCII string without
// the characters encoding/json escapes is copied; any other goes
// through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s)
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
