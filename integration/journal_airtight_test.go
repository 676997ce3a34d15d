//go:build unix

package integration

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// TestUndoNeverChangesMetadataOutside: chmod_items changes g.txt, then
// g.txt is replaced by a hard link to a file outside the roots; undoing
// the chmod is refused (g.txt is not what the change left), and with
// force it is refused again (a file with another hard link, which may lie
// outside, is never given a mode): the outside file keeps its mode.
func TestUndoNeverChangesMetadataOutside(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(outside, 0o755)
	g, secret := filepath.Join(root, "g.txt"), filepath.Join(outside, "secret")
	write(t, g, "g\n")
	os.Chmod(g, 0o644)
	write(t, secret, "secret\n")
	os.Chmod(secret, 0o600)
	cs := connectStdio(t, m, "--profile", "filesystem-mcp", "--journal-tools", "--allowed-dir", root)
	mustCall(t, cs, "chmod_items", map[string]any{"paths": []any{"g.txt"}, "mode": "640"})
	hist := mustCall(t, cs, "fs_history", map[string]any{"path": root})
	id := strings.Fields(hist)[0]
	os.Remove(g)
	if err := os.Link(secret, g); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		res, err := callRaw(cs, "fs_undo", map[string]any{"path": root, "id": id, "force": force}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("fs_undo force=%v of the chmod through a hard link to outside was not refused: %s", force, testenv.Text(res))
		}
		if fi, _ := os.Stat(secret); fi.Mode().Perm() != 0o600 {
			t.Fatalf("fs_undo force=%v changed the outside file's mode to %v", force, fi.Mode().Perm())
		}
	}
}

// TestNarrowedChangesStayInTheUsersHistory: a client that narrows its
// calls to a subdirectory (_meta.allowed_dirs) cannot keep its changes
// out of the history of the DIR the user started fsmcp with.
func TestNarrowedChangesStayInTheUsersHistory(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "sub")
	os.MkdirAll(sub, 0o755)
	write(t, filepath.Join(sub, "x.txt"), "one\n")
	cs := connectStdio(t, m, root)
	res, err := callRaw(cs, "fs_write", map[string]any{"file_path": filepath.Join(sub, "x.txt"), "content": "two\n"}, map[string]any{"allowed_dirs": []any{sub}})
	if err != nil || res.IsError {
		t.Fatalf("narrowed fs_write: %v %v", err, res)
	}
	if h := mustCall(t, cs, "fs_history", map[string]any{}); !strings.Contains(h, "x.txt") {
		t.Errorf("fs_history of the DIR does not list the narrowed change:\n%s", h)
	}
	cs.Close()
	out, _ := exec.Command(binary, "history", root).CombinedOutput()
	if !strings.Contains(string(out), "x.txt") {
		t.Fatalf("fsmcp history DIR does not list the narrowed change:\n%s", out)
	}
	out, err = exec.Command(binary, "undo", root, "--since", "1h").CombinedOutput()
	if err != nil || readFileOr(filepath.Join(sub, "x.txt")) != "one\n" {
		t.Fatalf("fsmcp undo DIR --since 1h: %v\n%s", err, out)
	}
	// And from the subdirectory: the DIR's journal is found and only its
	// changes there are undone (here: the undo above, redone).
	cmd := exec.Command(binary, "redo", ".")
	cmd.Dir = sub
	if out, err := cmd.CombinedOutput(); err != nil || readFileOr(filepath.Join(sub, "x.txt")) != "two\n" {
		t.Fatalf("fsmcp redo . in the subdirectory: %v\n%s", err, out)
	}
}

// TestJournalNeverLandsInAnotherRoot: with the state directory inside
// the second of two DIRs, nothing is journaled (a tool could read or
// forge the journal there), nothing is written in it, and the server
// says so at start.
func TestJournalNeverLandsInAnotherRoot(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	cs := connectStdioEnv(t, m, []string{"XDG_STATE_HOME=" + filepath.Join(b, "state")}, a, b)
	mustCall(t, cs, "fs_write", map[string]any{"file_path": filepath.Join(a, "f.txt"), "content": "x"})
	res, _ := callRaw(cs, "fs_history", map[string]any{"path": a}, nil)
	if res == nil || !res.IsError || !strings.Contains(testenv.Text(res), "journal is off") {
		t.Errorf("fs_history with the journal inside a root: %v", res)
	}
	cs.Close()
	if _, err := os.Stat(filepath.Join(b, "state")); err == nil {
		t.Fatal("a journal was written inside the second root")
	}
}

// TestHistoryShowsNoSessionID: over HTTP a session id is a credential
// (it reaches the session's shell); history labels sessions without it.
func TestHistoryShowsNoSessionID(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cs := connectHTTP(t, m, root)
	id := cs.ID()
	if id == "" {
		t.Fatal("no session id over HTTP")
	}
	mustCall(t, cs, "fs_write", map[string]any{"file_path": filepath.Join(root, "f.txt"), "content": "x"})
	h := mustCall(t, cs, "fs_history", map[string]any{})
	out, _ := exec.Command(binary, "history", root).CombinedOutput()
	for _, s := range []string{h, string(out)} {
		if strings.Contains(s, id) || !strings.Contains(s, "f.txt") {
			t.Fatalf("history shows the session id %s (or not the change):\n%s", id, s)
		}
	}
}

// TestHistoryEscapesControlCharacters: a name with a newline cannot forge
// a history line, and names, commands and diffs reach a terminal with no
// ESC, BEL or carriage return that could move its cursor.
func TestHistoryEscapesControlCharacters(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cs := connectStdio(t, m, root)
	forged := "x\nhoj0000000  2026-01-01 00:00:00  fs_delete  /etc/passwd (1 bytes -> absent)"
	mustCall(t, cs, "fs_write", map[string]any{"file_path": filepath.Join(root, forged), "content": "a\n"})
	mustCall(t, cs, "fs_write", map[string]any{"file_path": filepath.Join(root, "e\x1b[2Kv\a.txt"), "content": "ok\n\x1b[1A\x1b[2Krm -rf ~\r\n"})
	mustCall(t, cs, "fs_bash", map[string]any{"command": "printf 'b\\033[2K\\n' > " + root + "/sh.txt"})
	// C1 controls (U+009B, the one-character CSI; a raw 0x9b byte, not
	// UTF-8) and a bidi override (U+202E), in names the shell makes and
	// in a file's lines.
	mustCall(t, cs, "fs_bash", map[string]any{"command": "cd " + root + " && printf 'x\\n' > $'c1\\u009b2J' && printf 'y\\n' > $'raw\\x9b2J' && printf 'l\\u202ettt\\u009b\\n' > $'bidi\\u202etxt.exe'"})
	// rawControls: ESC, BEL, CR, U+202E, and the byte 0x9b (alone, or
	// in U+009B's encoding).
	rawControls := func(s string) bool {
		return strings.ContainsAny(s, "\x1b\a\r\u202e") || strings.IndexByte(s, 0x9b) >= 0
	}
	h := mustCall(t, cs, "fs_history", map[string]any{})
	if n := len(strings.Split(strings.TrimSpace(h), "\n")); n != 4 {
		t.Errorf("fs_history of 4 changes has %d lines:\n%s", n, h)
	}
	id := strings.Fields(h)[0]
	if one := mustCall(t, cs, "fs_history", map[string]any{"id": id}); rawControls(one) {
		t.Errorf("fs_history with a diff writes raw controls:\n%q", one)
	}
	if rawControls(h) {
		t.Errorf("fs_history writes raw controls:\n%q", h)
	}
	cs.Close()
	for _, a := range [][]string{{"history", root}, {"history", "-v", root}, {"history", "--diff", id, root}} {
		out, err := exec.Command(binary, a...).CombinedOutput()
		if err != nil {
			t.Fatalf("fsmcp %v: %v", a, err)
		}
		if rawControls(string(out)) {
			t.Errorf("fsmcp %v writes raw control characters:\n%q", a, out)
		}
		if a[1] == root && len(strings.Split(strings.TrimSpace(string(out)), "\n")) != 4 {
			t.Errorf("fsmcp history of 4 changes:\n%s", out)
		}
	}
	out, _ := exec.Command(binary, "undo", root, "--last", "4").CombinedOutput()
	if rawControls(string(out)) {
		t.Errorf("fsmcp undo writes raw control characters:\n%q", out)
	}
	var st syscall.Stat_t
	if syscall.Lstat(filepath.Join(root, forged), &st) == nil {
		t.Errorf("the undo left the file with a newline in its name: %s", out)
	}
}

// TestJournalSizeBoundsNarrowedChanges: changes narrowed to ten
// subdirectories under --journal-size 256KiB stay in one journal within
// the bound, as du counts it.
func TestJournalSizeBoundsNarrowedChanges(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	cs := connectStdioEnv(t, m, []string{"XDG_STATE_HOME=" + state}, "--journal-size", "256KiB", root)
	for i := range 10 {
		sub := filepath.Join(root, fmt.Sprintf("sub%d", i))
		os.MkdirAll(sub, 0o755)
		for j := range 3 {
			name := filepath.Join(sub, fmt.Sprintf("f%d", j))
			write(t, name, strings.Repeat(fmt.Sprint(i), 40<<10))
			res, err := callRaw(cs, "fs_write", map[string]any{"file_path": name, "content": "replaced"}, map[string]any{"allowed_dirs": []any{sub}})
			if err != nil || res.IsError {
				t.Fatalf("narrowed fs_write: %v %v", err, res)
			}
		}
	}
	cs.Close()
	journals, _ := filepath.Glob(filepath.Join(state, "fsmcp", "journal", "*"))
	if len(journals) != 1 {
		t.Errorf("%d journals for one DIR: %v", len(journals), journals)
	}
	var used int64
	filepath.WalkDir(filepath.Join(state, "fsmcp", "journal"), func(p string, d fs.DirEntry, err error) error {
		if fi, err := os.Lstat(p); err == nil && p != filepath.Join(state, "fsmcp", "journal") {
			used += fi.Sys().(*syscall.Stat_t).Blocks * 512
		}
		return nil
	})
	if used > 256<<10 {
		t.Fatalf("the journal takes %d bytes under --journal-size 256KiB", used)
	}
}

// TestACommandPastTheBoundIsSaid (issue 47, item 7): under a small
// --journal-size one command makes more changes than the journal keeps
// for one (thousands of renames and mode changes of one file). It used to
// leave no entry at all (its records outgrew the bound, and pruning took
// the segment that held them) and say nothing; now its answer says what
// was not kept, and history lists it, not undoable.
func TestACommandPastTheBoundIsSaid(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	write(t, filepath.Join(root, "a"), "a\n")
	cs := connectStdioEnv(t, m, []string{"XDG_STATE_HOME=" + state}, "--journal-size", "1MiB", root)
	out := mustCall(t, cs, "fs_bash", map[string]any{"command": "cd " + root + ` && python3 -c "
import os
for i in range(12000):
    os.chmod('a', 0o600 if i % 2 else 0o644)
    os.rename('a', 'b'); os.rename('b', 'a')
os.chmod('a', 0o640)
"`})
	if !strings.Contains(out, "more changes than the journal keeps for one change") {
		t.Errorf("the answer does not say what was not kept:\n%s", tailOf(out))
	}
	h := mustCall(t, cs, "fs_history", map[string]any{})
	if !strings.Contains(h, "python3") || !strings.Contains(h, "not undoable") {
		t.Errorf("fs_history does not list the command, not undoable:\n%s", h)
	}
}

// TestJournalAgeAgesOutAQuietJournal (issue 47, item 5): under
// --journal-age 2s, small edits landing every few hundred milliseconds
// kept the first of them for as long as they came (a segment ended only
// when full, and the one written is never pruned). Now the first leaves
// the listing once it is older than the age, its record leaves the disk
// soon after (a segment also ends after a span of the age) while edits
// still land, and neither comes back after a restart.
func TestJournalAgeAgesOutAQuietJournal(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	env := []string{"XDG_STATE_HOME=" + state}
	cs := connectStdioEnv(t, m, env, "--journal-age", "2s", root)
	f := filepath.Join(root, "f.txt")
	mustCall(t, cs, "fs_write", map[string]any{"file_path": f, "content": "first\n"})
	first := strings.Fields(mustCall(t, cs, "fs_history", map[string]any{}))[0]
	onDisk := func() bool {
		found := false
		filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".log") {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), `"id":"`+first+`"`) {
					found = true
				}
			}
			return nil
		})
		return found
	}
	listed := func() bool {
		res, err := callRaw(cs, "fs_history", map[string]any{"id": first}, nil)
		return err == nil && !res.IsError
	}
	deadline := time.Now().Add(90 * time.Second)
	for i := 0; ; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the first edit is still journaled 90 s later (listed: %v, on disk: %v)", listed(), onDisk())
		}
		// Edits keep landing beside it.
		mustCall(t, cs, "fs_write", map[string]any{"file_path": f, "content": fmt.Sprintf("edit %d\n", i)})
		if !listed() && !onDisk() {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	cs.Close()
	cs = connectStdioEnv(t, m, env, "--journal-age", "2s", root)
	if listed() {
		t.Error("after a restart the aged edit is listed again")
	}
}

// TestDirectoryTimesComeBackPastAStepThatChangedNothing (issue 47, item
// 6): a command that makes and removes a temporary file in g changes
// nothing (no entry) but g's times; the next command's change in g,
// undone, gives g the times it had before both.
func TestDirectoryTimesComeBackPastAStepThatChangedNothing(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state")
	g := filepath.Join(root, "g")
	os.MkdirAll(g, 0o755)
	was := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(g, was, was)
	cs := connectStdioEnv(t, m, []string{"XDG_STATE_HOME=" + state}, root)
	mustCall(t, cs, "fs_bash", map[string]any{"command": "touch " + g + "/t && rm " + g + "/t"})
	if h := mustCall(t, cs, "fs_history", map[string]any{}); !strings.HasPrefix(h, "No changes") {
		t.Fatalf("a command that changed nothing is an entry:\n%s", h)
	}
	mustCall(t, cs, "fs_bash", map[string]any{"command": "echo x > " + g + "/new"})
	cs.Close()
	undo := exec.Command(binary, "undo", root, "--since", "1h")
	undo.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	if out, err := undo.CombinedOutput(); err != nil {
		t.Fatalf("fsmcp undo: %v\n%s", err, out)
	}
	if fi, err := os.Stat(g); err != nil || !fi.ModTime().Equal(was) {
		t.Errorf("g's time after the undo: %v (want %v)", fi.ModTime(), was)
	}
}
