package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Plan is one install, uninstall or status: which host, which of its
// settings, and what the hooks run.
type Plan struct {
	Host    string // "claude-code", "codex" or "gemini"
	Project string // the project's directory, for its own settings; "" for the user's
	Home    string // the user's home directory
	Binary  string // fsmcp's absolute path, which the hooks run
	State   string // fsmcp's state directory (scripts the hooks need live here)
	Getenv  func(string) string
}

// host is what differs from host to host.
type host interface {
	// settings is the file an install writes.
	settings(p Plan) string
	// install adds fsmcp's hooks to d (replacing its own from before).
	install(p Plan, d *doc) error
	// uninstall takes them out of d; it reports whether there were any.
	uninstall(p Plan, d *doc) bool
	// installed reports whether d has them, and what they run.
	installed(p Plan, d *doc) (bool, string)
	// files are the files of fsmcp's own an install writes beside the
	// settings (scripts), by path, with their content.
	files(p Plan) map[string]string
}

// moreHost is a host whose hooks need settings beside the JSON ones
// (Codex's config.toml, Gemini CLI's .env).
type moreHost interface {
	// editMore makes those edits, given the settings before and after
	// the install or uninstall; it returns the files to write and what
	// the user must know.
	editMore(p Plan, before, after *doc, install bool) ([]writer, []string, error)
}

// A writer is a settings file edited, to be written once every edit of
// an install is known to be good.
type writer interface{ write() error }

// statusHost says more about an install than whether it is there.
type statusHost interface {
	status(p Plan, d *doc) []string
}

var hosts = map[string]host{"claude-code": claudeCode{}, "codex": codex{}, "gemini": gemini{}}

// Hosts are the hosts fsmcp installs hooks into.
func Hosts() []string { return []string{"claude-code", "codex", "gemini"} }

func hostOf(p Plan) (host, error) {
	h, ok := hosts[p.Host]
	if !ok {
		return nil, fmt.Errorf("unknown host %q: fsmcp installs hooks into %s", p.Host, strings.Join(Hosts(), ", "))
	}
	return h, nil
}

// Install writes fsmcp's hooks into the host's settings; it returns the
// file it wrote, and what the user must know (what keeps the host from
// running them yet).
func Install(p Plan) (string, []string, error) {
	h, err := hostOf(p)
	if err != nil {
		return "", nil, err
	}
	path := h.settings(p)
	d, err := readDoc(path)
	if err != nil {
		return "", nil, err
	}
	before := copyDoc(d)
	if err := h.install(p, d); err != nil {
		return "", nil, fmt.Errorf("%s: %v; nothing was written", path, err)
	}
	var more []writer
	var notes []string
	if mh, ok := h.(moreHost); ok {
		if more, notes, err = mh.editMore(p, before, d, true); err != nil {
			return "", nil, err
		}
	}
	for f, content := range h.files(p) {
		if err := writeFile(f, []byte(content), 0o755); err != nil {
			return "", nil, err
		}
	}
	if err := d.write(); err != nil {
		return "", nil, err
	}
	for _, t := range more {
		if err := t.write(); err != nil {
			return "", nil, err
		}
	}
	return path, notes, nil
}

// Uninstall takes fsmcp's hooks out of the host's settings, leaving the
// rest; it returns the file, and whether there were any.
func Uninstall(p Plan) (string, bool, error) {
	h, err := hostOf(p)
	if err != nil {
		return "", false, err
	}
	path := h.settings(p)
	d, err := readDoc(path)
	if err != nil {
		return "", false, err
	}
	before := copyDoc(d)
	if !h.uninstall(p, d) {
		return path, false, nil
	}
	var more []writer
	if mh, ok := h.(moreHost); ok {
		if more, _, err = mh.editMore(p, before, d, false); err != nil {
			return "", false, err
		}
	}
	if err := d.write(); err != nil {
		return "", false, err
	}
	for _, t := range more {
		if err := t.write(); err != nil {
			return "", false, err
		}
	}
	for f := range h.files(p) {
		os.Remove(f)
	}
	return path, true, nil
}

// Status says whether the host's settings have fsmcp's hooks, and
// whether what they run is there.
func Status(p Plan) (string, error) {
	h, err := hostOf(p)
	if err != nil {
		return "", err
	}
	path := h.settings(p)
	d, err := readDoc(path)
	if err != nil {
		return "", err
	}
	ok, runs := h.installed(p, d)
	if !ok {
		return fmt.Sprintf("%s: not installed in %s", p.Host, path), nil
	}
	if _, err := os.Stat(runs); errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("%s: installed in %s, but %s is missing: the host runs its commands unjournaled (install again)", p.Host, path, runs), nil
	}
	if sh, ok := h.(statusHost); ok {
		if notes := sh.status(p, d); len(notes) > 0 {
			return fmt.Sprintf("%s: installed in %s (runs %s), but %s", p.Host, path, runs, strings.Join(notes, "; ")), nil
		}
	}
	return fmt.Sprintf("%s: installed in %s (runs %s)", p.Host, path, runs), nil
}

// scriptName is a script's name for the host, one per project (its
// settings name the project's DIR) or the user's.
func scriptName(p Plan, name string) string {
	if p.Project == "" {
		return filepath.Join(p.State, "hooks", name)
	}
	sum := sha256.Sum256([]byte(p.Project))
	return filepath.Join(p.State, "hooks", name+"-"+hex.EncodeToString(sum[:6]))
}

// quote quotes s for a POSIX shell.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookCommand is the command a host's hook runs: fsmcp hook HOST, with
// the project's DIR when the settings are the project's.
func hookCommand(p Plan) string {
	c := quote(p.Binary) + " hook " + p.Host
	if p.Project != "" {
		c += " --dir " + quote(p.Project)
	}
	if p.Host != "claude-code" {
		// Where the journal is, whatever environment the host gives its
		// hooks and commands (Gemini CLI in CI passes only a few names).
		c += " --state-home " + quote(filepath.Dir(p.State))
	}
	return c
}
