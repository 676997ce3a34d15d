// Package escape prints file names so that one name is always one line
// and one field: a name cannot forge a result line or a TSV column, nor
// move a terminal's cursor or turn the text after it around.
package escape

import "unicode/utf8"

// needs reports whether s has a byte that AppendName rewrites.
func needs(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == '\\' && backslashEscaped {
			return true
		}
		if c >= 0x80 {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || unsafeRune(r) {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// unsafeRune reports whether r is a character a terminal or a reader
// takes for something else than text: a C1 control (U+009B is a
// one-character CSI many terminals obey), a bidirectional control (U+202E
// shows what follows backwards: "txt.exe" as "exe.txt"), or a line or
// paragraph separator.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// AppendName appends s with its control characters escaped: \t, \n and
// \r by name, the other C0 controls and each byte that is not UTF-8 as
// \xNN, C1 and bidirectional controls as \uNNNN, and a backslash doubled
// so that an escape cannot be forged either (except on Windows, where a
// backslash is the path separator and never part of a name: see
// backslashEscaped).
func AppendName(b []byte, s string) []byte {
	if !needs(s) {
		return append(b, s...)
	}
	return appendEscaped(b, s, true)
}

// Name returns s escaped as AppendName does.
func Name(s string) string {
	if !needs(s) {
		return s
	}
	return string(AppendName(nil, s))
}

// Text returns a text (a diff, a file's lines) with what Name escapes
// escaped, but for newlines and tabs, which stay, and backslashes, which
// stay single: a text reads as it is, and cannot move a terminal's
// cursor, hide a line or turn one around.
func Text(s string) string {
	if !needs(s) {
		return s
	}
	return string(appendEscaped(nil, s, false))
}

const hex = "0123456789abcdef"

func appendEscaped(b []byte, s string, name bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if name && backslashEscaped {
				b = append(b, '\\')
			}
			b = append(b, c)
		case c == '\t' && !name, c == '\n' && !name:
			b = append(b, c)
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
		case c < 0x80:
			b = append(b, c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b = append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
			case unsafeRune(r):
				b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
			default:
				b = append(b, s[i:i+n]...)
			}
			i += n - 1
		}
	}
	return b
}
