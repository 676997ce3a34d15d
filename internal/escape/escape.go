// Package escape prints file names so that one name is always one line
// and one field: a name cannot forge a result line or a TSV column.
package escape

// needs reports whether s has a byte that AppendName rewrites.
func needs(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '\\' && backslashEscaped {
			return true
		}
	}
	return false
}

// AppendName appends s with its control characters escaped: \t, \n and
// \r by name, the others as \xNN, and a backslash doubled so that an
// escape cannot be forged either (except on Windows, where a backslash is
// the path separator and never part of a name: see backslashEscaped).
func AppendName(b []byte, s string) []byte {
	if !needs(s) {
		return append(b, s...)
	}
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && backslashEscaped:
			b = append(b, '\\', '\\')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return b
}

// Name returns s escaped as AppendName does.
func Name(s string) string {
	if !needs(s) {
		return s
	}
	return string(AppendName(nil, s))
}
