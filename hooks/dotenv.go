package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// A dotenv file (Gemini CLI's ~/.gemini/.env): NAME=value lines, read as
// lines and written back with one of them set or taken out, the rest as
// they were.
type dotenv struct {
	path    string
	lines   []string
	exists  bool
	mode    fs.FileMode
	emptied bool // its one line taken out: the file goes
}

func readDotenv(path string) (*dotenv, error) {
	e := &dotenv{path: path, mode: 0o600}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return e, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxSettings {
		return nil, fmt.Errorf("%s is %d bytes, more than a settings file holds; nothing was written", path, fi.Size())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	e.exists, e.mode, e.lines = true, fi.Mode().Perm(), splitLines(b)
	return e, nil
}

// find is the line that sets name, and its value (unquoted), or -1.
func (e *dotenv) find(name string) (int, string) {
	for i, l := range e.lines {
		s := strings.TrimSpace(l)
		s = strings.TrimPrefix(s, "export ")
		if v, ok := strings.CutPrefix(s, name+"="); ok {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			return i, v
		}
	}
	return -1, ""
}

// set makes name's line say value (a path: quoted, no quote in it).
func (e *dotenv) set(name, value string) {
	line := name + "='" + value + "'\n"
	if i, _ := e.find(name); i >= 0 {
		e.lines[i] = line
		return
	}
	if n := len(e.lines); n > 0 && !strings.HasSuffix(e.lines[n-1], "\n") {
		e.lines[n-1] += "\n"
	}
	e.lines = append(e.lines, line)
}

func (e *dotenv) del(name string) bool {
	i, _ := e.find(name)
	if i < 0 {
		return false
	}
	e.lines = append(e.lines[:i], e.lines[i+1:]...)
	e.emptied = strings.TrimSpace(strings.Join(e.lines, "")) == ""
	return true
}

// write writes the file back; one left with nothing goes.
func (e *dotenv) write() error {
	text := strings.Join(e.lines, "")
	if e.emptied {
		if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeFile(e.path, []byte(text), e.mode)
}
