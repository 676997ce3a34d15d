package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// A TOML settings file (Codex's config.toml) is edited as text, line by
// line, so that the user's comments, order and layout stay as they are:
// a key of a [table] is set where it is, or added to its table, or the
// table added at the end. Each edit is checked by reading the result
// back: it must hold what the file held, with that one change. One that
// does not (a file laid out in a way this editor does not follow) is
// refused, and nothing is written.
type tomlDoc struct {
	path string
	text []byte
	v    map[string]any
	mode fs.FileMode
}

// readTOML reads a TOML file; a missing one is empty. One that is not
// TOML is refused.
func readTOML(path string) (*tomlDoc, error) {
	t := &tomlDoc{path: path, v: map[string]any{}, mode: 0o600}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxSettings {
		return nil, fmt.Errorf("%s is %d bytes, more than a settings file holds; nothing was written", path, fi.Size())
	}
	t.mode = fi.Mode().Perm()
	if t.text, err = os.ReadFile(path); err != nil {
		return nil, err
	}
	if _, err := toml.Decode(string(t.text), &t.v); err != nil {
		return nil, fmt.Errorf("%s is not TOML (%v); fix or move it, then install again: nothing was written", path, oneLine(err))
	}
	return t, nil
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// get is the value at table path and key, or nil.
func (t *tomlDoc) get(table []string, key string) any {
	m := t.v
	for _, k := range table {
		n, _ := m[k].(map[string]any)
		if n == nil {
			return nil
		}
		m = n
	}
	return m[key]
}

// set makes table.key the value lit (a TOML literal) says.
func (t *tomlDoc) set(table []string, key, lit string) error {
	var want any
	var probe map[string]any
	if _, err := toml.Decode("x = "+lit, &probe); err != nil {
		return err
	}
	want = probe["x"]
	if reflect.DeepEqual(t.get(table, key), want) {
		return nil
	}
	lines := splitLines(t.text)
	line := quoteKey(key) + " = " + lit
	start, end := section(lines, table)
	switch {
	case start < 0:
		var b bytes.Buffer
		b.Write(t.text)
		if len(t.text) > 0 {
			if t.text[len(t.text)-1] != '\n' {
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		}
		b.WriteString("[" + tablePath(table) + "]\n" + line + "\n")
		return t.replace(b.Bytes(), func(v map[string]any) { setIn(v, table, key, want) })
	default:
		at := -1
		for i := start + 1; i < end; i++ {
			if k, ok := lineKey(lines[i]); ok && len(k) == 1 && k[0] == key {
				at = i
			}
		}
		if at >= 0 {
			lines[at] = line + "\n"
		} else {
			// After the table's last line that is not blank.
			i := end
			for i > start+1 && strings.TrimSpace(lines[i-1]) == "" {
				i--
			}
			lines = append(lines[:i], append([]string{line + "\n"}, lines[i:]...)...)
			if i > 0 && !strings.HasSuffix(lines[i-1], "\n") {
				lines[i-1] += "\n"
			}
		}
		return t.replace([]byte(strings.Join(lines, "")), func(v map[string]any) { setIn(v, table, key, want) })
	}
}

// del takes table.key out, and the table's header with it when nothing
// is left in it; it reports whether there was one.
func (t *tomlDoc) del(table []string, key string) (bool, error) {
	if t.get(table, key) == nil {
		return false, nil
	}
	lines := splitLines(t.text)
	start, end := section(lines, table)
	at := -1
	for i := start + 1; start >= 0 && i < end; i++ {
		if k, ok := lineKey(lines[i]); ok && len(k) == 1 && k[0] == key {
			at = i
		}
	}
	if at < 0 {
		return false, fmt.Errorf("%s sets %s.%s where fsmcp does not edit it: take it out yourself", t.path, tablePath(table), key)
	}
	lines = append(lines[:at], lines[at+1:]...)
	end--
	empty := true
	for i := start + 1; i < end; i++ {
		if s := strings.TrimSpace(lines[i]); s != "" && !strings.HasPrefix(s, "#") {
			empty = false
		}
	}
	if empty {
		// The header, its blank lines, and one blank line before it.
		from := start
		if from > 0 && strings.TrimSpace(lines[from-1]) == "" {
			from--
		}
		lines = append(lines[:from], lines[end:]...)
	}
	return true, t.replace([]byte(strings.Join(lines, "")), func(v map[string]any) {
		m := walk(v, table)
		delete(m, key)
		if empty && len(m) == 0 {
			prune(v, table)
		}
	})
}

// rename moves table from one path to another (Codex's trust of a hook
// whose group moved up when fsmcp's left).
func (t *tomlDoc) rename(from, to []string) error {
	lines := splitLines(t.text)
	start, _ := section(lines, from)
	if start < 0 {
		return nil
	}
	lines[start] = "[" + tablePath(to) + "]\n"
	return t.replace([]byte(strings.Join(lines, "")), func(v map[string]any) {
		m := walk(v, from)
		prune(v, from)
		setIn(v, to[:len(to)-1], to[len(to)-1], m)
	})
}

// replace takes text as the file's new content if it reads back as the
// file's values with change made; else it refuses.
func (t *tomlDoc) replace(text []byte, change func(map[string]any)) error {
	var got map[string]any
	if _, err := toml.Decode(string(text), &got); err != nil {
		return fmt.Errorf("%s is laid out in a way fsmcp does not edit (%v); nothing was written", t.path, oneLine(err))
	}
	var want map[string]any
	toml.Decode(string(t.text), &want)
	if want == nil {
		want = map[string]any{}
	}
	change(want)
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%s is laid out in a way fsmcp does not edit; nothing was written", t.path)
	}
	t.text, t.v = text, got
	return nil
}

func (t *tomlDoc) write() error { return writeFile(t.path, t.text, t.mode) }

func walk(v map[string]any, table []string) map[string]any {
	for _, k := range table {
		n, _ := v[k].(map[string]any)
		if n == nil {
			n = map[string]any{}
			v[k] = n
		}
		v = n
	}
	return v
}

func setIn(v map[string]any, table []string, key string, val any) {
	walk(v, table)[key] = val
}

// prune takes table out of v, and each table above it left empty by
// that.
func prune(v map[string]any, table []string) {
	if len(table) == 0 {
		return
	}
	parent := walk(v, table[:len(table)-1])
	delete(parent, table[len(table)-1])
	if len(parent) == 0 {
		prune(v, table[:len(table)-1])
	}
}

func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// section is where table's [header] line is and where its section ends
// (the next header, or the end); start is -1 when it has none.
func section(lines []string, table []string) (start, end int) {
	start = -1
	for i, l := range lines {
		path, array, ok := headerPath(l)
		if !ok {
			continue
		}
		if start >= 0 {
			return start, i
		}
		if !array && reflect.DeepEqual(path, table) {
			start = i
		}
	}
	return start, len(lines)
}

// headerPath reads a [table] or [[array]] header line.
func headerPath(line string) (path []string, array bool, ok bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "[") {
		return nil, false, false
	}
	s = s[1:]
	if strings.HasPrefix(s, "[") {
		array, s = true, s[1:]
	}
	path, rest, ok := readKeyPath(s)
	if !ok {
		return nil, false, false
	}
	rest = strings.TrimLeft(rest, " \t")
	close := "]"
	if array {
		close = "]]"
	}
	if !strings.HasPrefix(rest, close) {
		return nil, false, false
	}
	rest = strings.TrimSpace(rest[len(close):])
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, false, false
	}
	return path, array, true
}

// lineKey reads the key of a "key = value" line.
func lineKey(line string) ([]string, bool) {
	path, rest, ok := readKeyPath(line)
	if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t"), "=") {
		return nil, false
	}
	return path, true
}

// readKeyPath reads a dotted TOML key (bare, "basic" or 'literal' parts)
// from the start of s, and what follows it.
func readKeyPath(s string) ([]string, string, bool) {
	var path []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		switch s[0] {
		case '"':
			i := 1
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				return nil, "", false
			}
			k, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return nil, "", false
			}
			path, s = append(path, k), s[i+1:]
		case '\'':
			i := strings.IndexByte(s[1:], '\'')
			if i < 0 {
				return nil, "", false
			}
			path, s = append(path, s[1:i+1]), s[i+2:]
		default:
			i := 0
			for i < len(s) && isBare(s[i]) {
				i++
			}
			if i == 0 {
				return nil, "", false
			}
			path, s = append(path, s[:i]), s[i:]
		}
		t := strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(t, ".") {
			return path, s, true
		}
		s = t[1:]
	}
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// quoteKey is a key as TOML writes it: bare where it can be.
func quoteKey(k string) string {
	bare := k != ""
	for i := 0; i < len(k); i++ {
		bare = bare && isBare(k[i])
	}
	if bare {
		return k
	}
	return tomlString(k)
}

func tablePath(table []string) string {
	q := make([]string, len(table))
	for i, k := range table {
		q[i] = quoteKey(k)
	}
	return strings.Join(q, ".")
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
