// Package hooks writes fsmcp's hooks into agent hosts' own settings
// (Claude Code, Codex, Gemini CLI), merged into what is there: the
// user's other hooks and settings kept, installing twice the same as
// once, a file it cannot read refused with one sentence and left as it
// is. What the hooks then do (journal each of the host's shell commands
// and file edits) is fsmcp hook's, in package main.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fsmcp/fsmcp/internal/jsonorder"
)

// A settings document, read from a JSON file: its value, and its text
// (for the order of its keys when written back).
type doc struct {
	path string
	v    map[string]any
	raw  json.RawMessage
	mode fs.FileMode
}

// maxSettings bounds a settings file read.
const maxSettings = 16 << 20

// readDoc reads a JSON settings file; a missing one is empty. A file
// that is not a JSON object is refused: nothing is written over it.
func readDoc(path string) (*doc, error) {
	d := &doc{path: path, v: map[string]any{}, mode: 0o600}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxSettings {
		return nil, fmt.Errorf("%s is %d bytes, more than a settings file holds; nothing was written", path, fi.Size())
	}
	d.mode = fi.Mode().Perm()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(b, &d.v); err != nil || d.v == nil {
		return nil, fmt.Errorf("%s is not a JSON object (%v); fix or move it, then install again: nothing was written", path, errorOf(err))
	}
	d.raw = b
	return d, nil
}

func errorOf(err error) string {
	if err == nil {
		return "null"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	return err.Error()
}

// write writes the document back whole, in one rename: its keys in
// their order, indented as such files are.
func (d *doc) write() error {
	b, err := jsonorder.Marshal(d.v, d.raw)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	return writeFile(d.path, out.Bytes(), d.mode)
}

// writeFile replaces path with data atomically (a new file renamed over
// it), making its directory where missing.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// object is v[key] as an object, made when missing; ok is false when it
// is something else.
func object(v map[string]any, key string) (map[string]any, bool) {
	switch x := v[key].(type) {
	case nil:
		m := map[string]any{}
		v[key] = m
		return m, true
	case map[string]any:
		return x, true
	}
	return nil, false
}

// list is v[key] as a list (nil when missing); ok is false when it is
// something else.
func list(v map[string]any, key string) ([]any, bool) {
	switch x := v[key].(type) {
	case nil:
		return nil, true
	case []any:
		return x, true
	}
	return nil, false
}
