package localcowork

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf16"
)

// Node's Buffer encodings the original passes through (it drops the first
// "-", so "utf-8" is "utf8"). decodeText turns a file's bytes into the
// string read_file returns; encodeText turns write_file's content into
// bytes. ok is false for an encoding Node does not know either.
func normEncoding(enc string) string {
	if enc == "" {
		return "utf8"
	}
	return strings.Replace(strings.ToLower(enc), "-", "", 1)
}

func decodeText(data []byte, enc string) (string, bool) {
	switch normEncoding(enc) {
	case "utf8":
		return string(data), true // invalid sequences become U+FFFD on the wire, as in Node
	case "latin1", "binary":
		r := make([]rune, len(data))
		for i, b := range data {
			r[i] = rune(b)
		}
		return string(r), true
	case "ascii":
		r := make([]rune, len(data))
		for i, b := range data {
			r[i] = rune(b & 0x7f)
		}
		return string(r), true
	case "base64":
		return base64.StdEncoding.EncodeToString(data), true
	case "base64url":
		return base64.RawURLEncoding.EncodeToString(data), true
	case "hex":
		return hex.EncodeToString(data), true
	case "utf16le", "ucs2":
		u := make([]uint16, len(data)/2)
		for i := range u {
			u[i] = uint16(data[2*i]) | uint16(data[2*i+1])<<8
		}
		return string(utf16.Decode(u)), true
	}
	return "", false
}

func encodeText(s, enc string) ([]byte, bool) {
	switch normEncoding(enc) {
	case "utf8":
		return []byte(s), true
	case "latin1", "binary", "ascii":
		out := make([]byte, 0, len(s))
		for _, r := range s {
			out = append(out, byte(r))
		}
		return out, true
	case "base64":
		b, err := base64.StdEncoding.DecodeString(s)
		return b, err == nil
	case "base64url":
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
		return b, err == nil
	case "hex":
		b, err := hex.DecodeString(s)
		return b, err == nil
	case "utf16le", "ucs2":
		u := utf16.Encode([]rune(s))
		out := make([]byte, 0, 2*len(u))
		for _, c := range u {
			out = append(out, byte(c), byte(c>>8))
		}
		return out, true
	}
	return nil, false
}
