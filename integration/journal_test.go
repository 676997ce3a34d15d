//go:build unix

package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// journaled is one tool of one profile that changes f.txt (mode 0640,
// "orig\nEND\n") in root.
type journaled struct {
	name    string
	profile []string
	rootArg string
	tool    string
	args    func(root string) map[string]any
	// env is added to the server's environment; changed says whether the
	// call changed f.txt (nil: its content differs).
	env     func(root string) []string
	changed func(fi os.FileInfo) bool
	root    bool // needs root (a chown to another user)
}

var journaledTools = []journaled{
	{"fs_edit", nil, "", "fs_edit", func(r string) map[string]any {
		return map[string]any{"file_path": r + "/f.txt", "old_string": "END", "new_string": "changed"}
	}, nil, nil, false},
	{"fs_write", nil, "", "fs_write", func(r string) map[string]any {
		return map[string]any{"file_path": r + "/f.txt", "content": "replaced"}
	}, nil, nil, false},
	{"fs_delete", nil, "", "fs_delete", func(r string) map[string]any {
		return map[string]any{"path": r + "/f.txt"}
	}, nil, nil, false},
	{"fs_move", nil, "", "fs_move", func(r string) map[string]any {
		return map[string]any{"source": r + "/f.txt", "destination": r + "/g.txt"}
	}, nil, nil, false},
	{"reference/edit_file", []string{"--profile", "reference"}, "", "edit_file", func(r string) map[string]any {
		return map[string]any{"path": r + "/f.txt", "edits": []any{map[string]any{"oldText": "END", "newText": "changed"}}}
	}, nil, nil, false},
	{"reference/write_file", []string{"--profile", "reference"}, "", "write_file", func(r string) map[string]any {
		return map[string]any{"path": r + "/f.txt", "content": "replaced"}
	}, nil, nil, false},
	{"reference/move_file", []string{"--profile", "reference"}, "", "move_file", func(r string) map[string]any {
		return map[string]any{"source": r + "/f.txt", "destination": r + "/g.txt"}
	}, nil, nil, false},
	{"filesystem-mcp/replace_content", []string{"--profile", "filesystem-mcp"}, "--allowed-dir", "replace_content", func(string) map[string]any {
		return map[string]any{"paths": []any{"f.txt"}, "operations": []any{map[string]any{"search": "END", "replace": "changed"}}}
	}, nil, nil, false},
	{"filesystem-mcp/write_content", []string{"--profile", "filesystem-mcp"}, "--allowed-dir", "write_content", func(string) map[string]any {
		return map[string]any{"items": []any{map[string]any{"path": "f.txt", "content": "replaced"}}}
	}, nil, nil, false},
	{"filesystem-mcp/delete_items", []string{"--profile", "filesystem-mcp"}, "--allowed-dir", "delete_items", func(string) map[string]any {
		return map[string]any{"paths": []any{"f.txt"}}
	}, nil, nil, false},
	{"localcowork/write_file", []string{"--profile", "localcowork"}, "", "filesystem.write_file", func(r string) map[string]any {
		return map[string]any{"path": r + "/f.txt", "content": "replaced"}
	}, nil, nil, false},
	{"localcowork/move_file", []string{"--profile", "localcowork"}, "", "filesystem.move_file", func(r string) map[string]any {
		return map[string]any{"source": r + "/f.txt", "destination": r + "/g.txt"}
	}, nil, nil, false},
	{name: "localcowork/delete_file (to the trash)", profile: []string{"--profile", "localcowork"}, tool: "filesystem.delete_file",
		args: func(r string) map[string]any { return map[string]any{"path": r + "/f.txt"} },
		env:  func(r string) []string { return []string{"LOCALCOWORK_DATA_DIR=" + r + "/.localcowork"} }},
	{name: "filesystem-mcp/chmod_items", profile: []string{"--profile", "filesystem-mcp"}, rootArg: "--allowed-dir", tool: "chmod_items",
		args:    func(string) map[string]any { return map[string]any{"paths": []any{"f.txt"}, "mode": "600"} },
		changed: func(fi os.FileInfo) bool { return fi.Mode().Perm() != 0o640 }},
	{name: "filesystem-mcp/chown_items", profile: []string{"--profile", "filesystem-mcp"}, rootArg: "--allowed-dir", tool: "chown_items",
		args: func(string) map[string]any {
			return map[string]any{"paths": []any{"f.txt"}, "uid": 65534, "gid": 65534}
		},
		changed: func(fi os.FileInfo) bool { return fileOwner(fi) != [2]int{os.Getuid(), os.Getgid()} }, root: true},
}

// TestEveryJournaledToolUndoneAfterRestart changes f.txt through each
// journaled tool of each profile, stops the server, and undoes the change
// with "fsmcp undo DIR --last 1" from the terminal: bytes, mode and
// modification time are the original's, and no new file is left.
func TestEveryJournaledToolUndoneAfterRestart(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, w := range journaledTools {
		t.Run(w.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(root, "f.txt")
			write(t, name, "orig\nEND\n")
			os.Chmod(name, 0o640)
			os.Chtimes(name, mtime, mtime)
			args := append([]string{}, w.profile...)
			if w.rootArg != "" {
				args = append(args, w.rootArg)
			}
			if w.root && os.Getuid() != 0 {
				t.Skip("SKIPPED: giving a file away needs root")
			}
			var env []string
			if w.env != nil {
				env = w.env(root)
			}
			cs := connectStdioEnv(t, m, env, append(args, root)...)
			res, err := callRaw(cs, w.tool, w.args(root), nil)
			if err != nil || res.IsError || strings.Contains(testenv.Text(res), `"error"`) {
				t.Fatalf("%s: %v %v", w.tool, err, testenv.Text(res))
			}
			if fi, err := os.Stat(name); w.changed == nil && readFileOr(name) == "orig\nEND\n" || w.changed != nil && (err != nil || !w.changed(fi)) {
				t.Fatalf("%s did not change f.txt", w.tool)
			}
			cs.Close() // the server exits: the undo below runs after a restart

			hist, err := exec.Command(binary, "history", root).CombinedOutput()
			if err != nil || !strings.Contains(string(hist), w.tool) || !strings.Contains(string(hist), name) {
				t.Fatalf("fsmcp history: %v\n%s", err, hist)
			}
			out, err := exec.Command(binary, "undo", root, "--last", "1").CombinedOutput()
			if err != nil {
				t.Fatalf("fsmcp undo: %v\n%s", err, out)
			}
			if got := readFileOr(name); got != "orig\nEND\n" {
				t.Fatalf("after undo f.txt holds %q\nundo said: %s", got, out)
			}
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(mtime) {
				t.Errorf("after undo f.txt has mode %v and mtime %v, want 0640 and %v", fi.Mode().Perm(), fi.ModTime(), mtime)
			}
			if own := fileOwner(fi); own != [2]int{os.Getuid(), os.Getgid()} {
				t.Errorf("after undo f.txt is owned by %v, want %d:%d", own, os.Getuid(), os.Getgid())
			}
			if _, err := os.Lstat(filepath.Join(root, "g.txt")); err == nil {
				t.Error("the moved-to g.txt is still there after undo")
			}
		})
	}
}

func readFileOr(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

// TestUndoToolAndJournalOutOfReach: fs_undo (fsmcp, and reference under
// --journal-tools) reverts a change and, called again, redoes it; the
// journal's own files, outside the roots, cannot be read through any
// profile's read tool by any spelling (absolute, dot-dot, a symlink in
// the root pointing at it).
func TestUndoToolAndJournalOutOfReach(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	for _, pr := range []struct {
		name    string
		args    []string
		rootArg string
		read    func(p string) (string, map[string]any)
	}{
		{"fsmcp", nil, "", func(p string) (string, map[string]any) { return "fs_read", map[string]any{"file_path": p} }},
		{"reference", []string{"--profile", "reference", "--journal-tools"}, "", func(p string) (string, map[string]any) {
			return "read_file", map[string]any{"path": p}
		}},
		{"filesystem-mcp", []string{"--profile", "filesystem-mcp", "--journal-tools"}, "--allowed-dir", func(p string) (string, map[string]any) {
			return "read_content", map[string]any{"items": []any{map[string]any{"path": p}}}
		}},
		{"localcowork", []string{"--profile", "localcowork", "--journal-tools"}, "", func(p string) (string, map[string]any) {
			return "filesystem.read_file", map[string]any{"path": p}
		}},
	} {
		t.Run(pr.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(root, "f.txt")
			write(t, name, "one\n")
			args := append([]string{}, pr.args...)
			if pr.rootArg != "" {
				args = append(args, pr.rootArg)
			}
			cs := connectStdio(t, m, append(args, root)...)
			// fs_write is fsmcp's; the others change the file the same way
			// through the core, so the file is changed with the CLI-free
			// path every profile shares: an fsmcp server on the same root.
			other := connectStdio(t, m, root)
			mustCall(t, other, "fs_write", map[string]any{"file_path": name, "content": "two\n"})
			hist := mustCall(t, cs, "fs_history", map[string]any{"path": root})
			if !strings.Contains(hist, "fs_write") || !strings.Contains(hist, name) {
				t.Fatalf("fs_history: %s", hist)
			}
			id := strings.Fields(hist)[0]
			diff := mustCall(t, cs, "fs_history", map[string]any{"path": root, "id": id})
			if !strings.Contains(diff, "-one") || !strings.Contains(diff, "+two") {
				t.Errorf("fs_history id=%s shows no diff: %s", id, diff)
			}
			mustCall(t, cs, "fs_undo", map[string]any{"path": root, "id": id})
			if got := readFileOr(name); got != "one\n" {
				t.Fatalf("after fs_undo f.txt holds %q", got)
			}
			hist = mustCall(t, cs, "fs_history", map[string]any{"path": root, "limit": 1})
			mustCall(t, cs, "fs_undo", map[string]any{"path": root, "id": strings.Fields(hist)[0]})
			if got := readFileOr(name); got != "two\n" {
				t.Fatalf("undoing the undo left %q, want the change redone", got)
			}

			// The journal directory of this root, outside it.
			logs, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "fsmcp", "journal", "*", "root"))
			var jdir string
			for _, l := range logs {
				if strings.TrimSpace(readFileOr(l)) == root {
					jdir = filepath.Dir(l)
				}
			}
			if jdir == "" {
				t.Fatal("no journal directory for the root")
			}
			if fi, err := os.Stat(jdir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("journal directory mode: %v %v", fi.Mode(), err)
			}
			const log = "seg/00000001.log"
			if !strings.Contains(readFileOr(filepath.Join(jdir, log)), `"t":"b"`) {
				t.Fatalf("no log at %s", filepath.Join(jdir, log))
			}
			rel, _ := filepath.Rel(root, filepath.Join(jdir, log))
			symlink(t, jdir, filepath.Join(root, "j"))
			for _, p := range []string{filepath.Join(jdir, log), filepath.Join(root, rel), root + "/j/" + log, root + "/./j/../j/" + log} {
				tool, a := pr.read(p)
				res, err := callRaw(cs, tool, a, nil)
				if err == nil && !res.IsError && strings.Contains(testenv.Text(res), `"t":"b"`) {
					t.Errorf("%s %s read the journal", tool, p)
				}
			}
			for _, p := range []string{filepath.Join(jdir, log), root + "/j/" + log} {
				res, err := callRaw(cs, "fs_undo", map[string]any{"path": p, "since": "1h"}, nil)
				if err == nil && !res.IsError {
					t.Errorf("fs_undo path=%s was accepted", p)
				}
			}
		})
	}
}

// TestNoHomeServesUnjournaled: a host that passes only PATH (no HOME, no
// XDG_STATE_HOME) still gets a working server; the journal is off with a
// warning naming why, and fs_history says there is no journal. An
// explicit --journal on there is a start-up error, not a silent off.
func TestNoHomeServesUnjournaled(t *testing.T) {
	tr := newTree(t)
	m := modes(t)[0]
	env := []string{"PATH=" + m.path}
	cmd := exec.Command(binary, tr.root)
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect without HOME: %v", err)
	}
	mustCall(t, cs, "fs_write", map[string]any{"file_path": filepath.Join(tr.root, "n.txt"), "content": "x"})
	cs.Close()
	if !strings.Contains(stderr.String(), "not journaled") || !strings.Contains(stderr.String(), "XDG_STATE_HOME") {
		t.Fatalf("no warning naming why the journal is off:\n%s", stderr.String())
	}
	strict := exec.Command(binary, "--journal", "on", tr.root)
	strict.Env = env
	out, err := strict.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "state directory") {
		t.Fatalf("--journal on without a state directory: %v\n%s", err, out)
	}
}

// fileOwner is a file's uid and gid.
func fileOwner(fi os.FileInfo) [2]int {
	st := fi.Sys().(*syscall.Stat_t)
	return [2]int{int(st.Uid), int(st.Gid)}
}

// TestMkdirUndoneRemovesWhatItMade: fs_mkdir of a/b/c, where none
// existed, is undone by removing c, b and a; with a file put into a/b
// since, the undo refuses, naming the directory, and removes nothing.
func TestMkdirUndoneRemovesWhatItMade(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	for _, filled := range []bool{false, true} {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		cs := connectStdio(t, m, root)
		mustCall(t, cs, "fs_mkdir", map[string]any{"path": filepath.Join(root, "a", "b", "c")})
		cs.Close()
		if filled {
			write(t, filepath.Join(root, "a", "b", "late.txt"), "kept")
		}
		out, err := exec.Command(binary, "undo", root, "--last", "1").CombinedOutput()
		_, aerr := os.Lstat(filepath.Join(root, "a"))
		switch {
		case !filled && (err != nil || aerr == nil):
			t.Fatalf("undo of mkdir a/b/c: %v; a still there: %v\n%s", err, aerr == nil, out)
		case filled && (err == nil || !strings.Contains(string(out), filepath.Join(root, "a", "b")) || readFileOr(filepath.Join(root, "a", "b", "late.txt")) != "kept"):
			t.Fatalf("undo of mkdir with a file put in since: %v\n%s", err, out)
		}
	}
}

// TestUndoRacingEditsLosesNeither: an undo from the terminal lands while
// fs_edit calls keep appending to the same file. The undo writes under
// the writers' locks, so it falls wholly between two edits: afterwards
// the file holds the restored content with every later edit on top, and
// no edit that read the file before the undo lands after it (which would
// silently put the undone content back).
func TestUndoRacingEditsLosesNeither(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(root, "f.txt")
	write(t, name, "orig\nEND\n")
	cs := connectStdio(t, m, root)
	mustCall(t, cs, "fs_write", map[string]any{"file_path": name, "content": "base\nEND\n"})
	// Edits run until the undo has answered, then five more, so some land
	// before it, some while it runs and some after, however slow it is.
	halfway, undone := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	last := 0
	go func() {
		after := -1
		for i := 0; i < 100000; i++ {
			if i == 20 {
				close(halfway)
			}
			if after < 0 {
				select {
				case <-undone:
					after = i + 5
				default:
				}
			}
			if i == after {
				last = i - 1
				done <- nil
				return
			}
			res, err := callRaw(cs, "fs_edit", map[string]any{"file_path": name, "old_string": "END\n", "new_string": fmt.Sprintf("tok%05d\nEND\n", i)}, nil)
			if err != nil {
				done <- fmt.Errorf("edit %d: %v", i, err)
				return
			}
			if res.IsError {
				done <- fmt.Errorf("edit %d: %s", i, testenv.Text(res))
				return
			}
		}
		done <- errors.New("the undo never answered")
	}()
	<-halfway
	// The fs_write above is the oldest change; undo it while edits land.
	hist, err := exec.Command(binary, "history", root).CombinedOutput()
	if err != nil {
		t.Fatalf("fsmcp history: %v\n%s", err, hist)
	}
	lines := strings.Split(strings.TrimSpace(string(hist)), "\n")
	id := strings.Fields(lines[len(lines)-1])[0]
	out, err := exec.Command(binary, "undo", root, "--id", id, "--force").CombinedOutput()
	close(undone)
	if err != nil || !strings.Contains(string(out), "undone 1") {
		t.Fatalf("fsmcp undo --id %s --force: %v\n%s", id, err, out)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := readFileOr(name)
	body, ok := strings.CutPrefix(got, "orig\n")
	if !ok || strings.Contains(got, "base") || !strings.HasSuffix(got, fmt.Sprintf("tok%05d\nEND\n", last)) || strings.Count(got, "END") != 1 {
		t.Fatalf("after an undo amid edits the file is not the restored content with the later edits on top:\n%s", got)
	}
	prev := -1
	for _, l := range strings.Split(strings.TrimSuffix(body, "END\n"), "\n") {
		var n int
		if l == "" {
			continue
		}
		if _, err := fmt.Sscanf(l, "tok%05d", &n); err != nil || n <= prev {
			t.Fatalf("line %q out of order in:\n%s", l, got)
		}
		prev = n
	}
}
