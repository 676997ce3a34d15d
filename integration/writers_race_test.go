//go:build unix

package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// raceWriter is one tool of one profile that changes a file by reading it:
// each call must add tok to the file and keep everything else.
type raceWriter struct {
	name    string
	profile []string // server flags before the root
	rootArg string   // the flag that names the root, "" for a plain argument
	call    func(abs, rel, tok string) (tool string, args map[string]any)
}

// raceWriters is every read-modify-write tool of every profile. (Whole
// writes — fs_write, write_file, write_content without append — replace
// the content by definition; they take the same locks.)
var raceWriters = []raceWriter{
	{"fs_edit", nil, "", func(abs, _, tok string) (string, map[string]any) {
		return "fs_edit", map[string]any{"file_path": abs, "old_string": "END", "new_string": tok + "\nEND"}
	}},
	{"reference/edit_file", []string{"--profile", "reference"}, "", func(abs, _, tok string) (string, map[string]any) {
		return "edit_file", map[string]any{"path": abs, "edits": []any{map[string]any{"oldText": "END", "newText": tok + "\nEND"}}}
	}},
	{"filesystem-mcp/replace_content", []string{"--profile", "filesystem-mcp"}, "--allowed-dir", func(_, rel, tok string) (string, map[string]any) {
		return "replace_content", map[string]any{"paths": []any{rel}, "operations": []any{map[string]any{"search": "END", "replace": tok + "\nEND"}}}
	}},
	{"filesystem-mcp/write_content-append", []string{"--profile", "filesystem-mcp"}, "--allowed-dir", func(_, rel, tok string) (string, map[string]any) {
		return "write_content", map[string]any{"items": []any{map[string]any{"path": rel, "content": "\n" + tok + "\n", "append": true}}}
	}},
}

func (w raceWriter) args(root string) []string {
	args := append([]string{}, w.profile...)
	if w.rootArg != "" {
		args = append(args, w.rootArg)
	}
	return append(args, root)
}

// TestEveryWriterAgainstEveryOtherLosesNothing races every read-modify-write
// tool of every profile against every other (itself included) on one
// file: through one server by the same name and via a symlink alias (when
// both tools are in one profile), and from two server processes by name
// and via the alias. Each call adds a distinct token; none may be lost.
// 40 calls a side (times FSMCP_REDTEAM).
func TestEveryWriterAgainstEveryOtherLosesNothing(t *testing.T) {
	each := 40 * attack(t)
	m := mode{"path", os.Getenv("PATH")}
	for i, a := range raceWriters {
		for _, b := range raceWriters[i:] {
			oneServer := strings.Join(a.profile, " ") == strings.Join(b.profile, " ")
			for _, procs := range []int{1, 2} {
				if procs == 1 && !oneServer {
					continue
				}
				for _, alias := range []bool{false, true} {
					how := map[bool]string{false: "by-name", true: "via-alias"}[alias]
					t.Run(fmt.Sprintf("%s+%s/%d-servers/%s", a.name, b.name, procs, how), func(t *testing.T) {
						raceTwoWriters(t, m, a, b, procs, alias, each)
					})
				}
			}
		}
	}
}

func raceTwoWriters(t *testing.T, m mode, a, b raceWriter, procs int, alias bool, each int) {
	root, name := raceFile(t, "END\n")
	sessions := twoSessions(t, m, root, a, b, procs)
	rels := [2]string{"f.txt", "f.txt"}
	if alias {
		rels[1] = "alias"
	}
	var wg sync.WaitGroup
	errs := make(chan string, 2)
	for k, w := range []raceWriter{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				tool, args := w.call(filepath.Join(root, rels[k]), rels[k], fmt.Sprintf("tok%d-%d", k, i))
				if e := writerFailed(callRaw(sessions[k], tool, args, nil)); e != "" {
					errs <- fmt.Sprintf("%s %d: %s", tool, i, e)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	data := readFile(t, name)
	lost := 0
	for k := range 2 {
		for i := range each {
			if strings.Count(data, fmt.Sprintf("tok%d-%d\n", k, i)) != 1 {
				lost++
			}
		}
	}
	if lost > 0 || strings.Count(data, "END") != 1 {
		t.Fatalf("%d of %d changes lost or doubled; the file:\n%s", lost, 2*each, data)
	}
	if fi, err := os.Lstat(filepath.Join(root, "alias")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the alias is no longer a symlink: %v", err)
	}
}

// wholeWriters are the tools that replace a file's content whole.
var wholeWriters = []raceWriter{
	{"fs_write", nil, "", func(abs, _, content string) (string, map[string]any) {
		return "fs_write", map[string]any{"file_path": abs, "content": content}
	}},
	{"reference/write_file", []string{"--profile", "reference"}, "", func(abs, _, content string) (string, map[string]any) {
		return "write_file", map[string]any{"path": abs, "content": content}
	}},
	{"filesystem-mcp/write_content", []string{"--profile", "filesystem-mcp"}, "--allowed-dir", func(_, rel, content string) (string, map[string]any) {
		return "write_content", map[string]any{"items": []any{map[string]any{"path": rel, "content": content}}}
	}},
	{"localcowork/write_file", []string{"--profile", "localcowork"}, "", func(abs, _, content string) (string, map[string]any) {
		return "filesystem.write_file", map[string]any{"path": abs, "content": content}
	}},
}

// TestWholeWritesAreNeverUndoneByAChange races every whole write of every
// profile against every read-modify-write tool: a change that read the
// file before a write and wrote after it would put the old content back.
// After each write the change side finishes the call it has under way,
// and the write's content must then still be there. 15 rounds (times
// FSMCP_REDTEAM).
func TestWholeWritesAreNeverUndoneByAChange(t *testing.T) {
	rounds := 15 * attack(t)
	m := mode{"path", os.Getenv("PATH")}
	for _, a := range wholeWriters {
		for _, b := range raceWriters {
			oneServer := strings.Join(a.profile, " ") == strings.Join(b.profile, " ")
			for _, procs := range []int{1, 2} {
				if procs == 1 && !oneServer {
					continue
				}
				for _, alias := range []bool{false, true} {
					how := map[bool]string{false: "by-name", true: "via-alias"}[alias]
					t.Run(fmt.Sprintf("%s+%s/%d-servers/%s", a.name, b.name, procs, how), func(t *testing.T) {
						raceWholeWrites(t, m, a, b, procs, alias, rounds)
					})
				}
			}
		}
	}
}

func raceWholeWrites(t *testing.T, m mode, a, b raceWriter, procs int, alias bool, rounds int) {
	root, name := raceFile(t, "W-start\nEND\n")
	sessions := twoSessions(t, m, root, a, b, procs)
	rel := "f.txt"
	if alias {
		rel = "alias"
	}
	stop := make(chan struct{})
	settle := make(chan chan struct{})
	changeErr := make(chan string, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				changeErr <- ""
				return
			case done := <-settle:
				close(done) // no call of ours is under way now
			default:
			}
			tool, args := b.call(filepath.Join(root, rel), rel, fmt.Sprintf("tok-%d", i))
			if e := writerFailed(callRaw(sessions[1], tool, args, nil)); e != "" {
				changeErr <- fmt.Sprintf("%s %d: %s", tool, i, e)
				<-stop
				return
			}
		}
	}()
	defer close(stop)
	for k := range rounds {
		mark := fmt.Sprintf("W-%d\n", k)
		tool, args := a.call(name, "f.txt", mark+"END\n")
		if e := writerFailed(callRaw(sessions[0], tool, args, nil)); e != "" {
			t.Fatalf("%s %d: %s", tool, k, e)
		}
		done := make(chan struct{})
		select {
		case settle <- done:
			<-done
		case e := <-changeErr:
			t.Fatal(e)
		}
		if data := readFile(t, name); !strings.Contains(data, mark) {
			t.Fatalf("write %d was undone by a change; the file:\n%s", k, data)
		}
	}
}

// raceFile makes the raced file f.txt with content, and the symlink alias
// to it, in a fresh directory.
func raceFile(t *testing.T, content string) (root, name string) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name = filepath.Join(root, "f.txt")
	write(t, name, content)
	symlink(t, "f.txt", filepath.Join(root, "alias"))
	return root, name
}

// writerFailed is why a writer's call failed, or "" when it did not;
// filesystem-mcp reports a file's failure inside a successful answer.
func writerFailed(res *mcp.CallToolResult, err error) string {
	if err != nil {
		return err.Error()
	}
	if text := testenv.Text(res); res.IsError || strings.Contains(text, `"error"`) {
		return text
	}
	return ""
}

// twoSessions connects to one server twice (over HTTP, so calls run at
// once in one process) or to two servers, as a's and b's flags say.
func twoSessions(t *testing.T, m mode, root string, a, b raceWriter, procs int) [2]*mcp.ClientSession {
	var sessions [2]*mcp.ClientSession
	if procs == 2 {
		sessions[0] = connectStdio(t, m, a.args(root)...)
		sessions[1] = connectStdio(t, m, b.args(root)...)
		return sessions
	}
	url, _ := startHTTP(t, m, a.args(root)...)
	for k := range sessions {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
		cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, sessionEra)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions[k] = cs
	}
	return sessions
}

// TestDeleteIsNeverUndoneByAnEdit: fs_delete from one server while
// another keeps editing the same file: once the delete has answered, no
// edit that read the file before it lands afterwards and brings it back.
// Edits after the delete fail as "not found". 20 rounds (times
// FSMCP_REDTEAM).
func TestDeleteIsNeverUndoneByAnEdit(t *testing.T) {
	m := mode{"path", os.Getenv("PATH")}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	editor, deleter := connectStdio(t, m, root), connectStdio(t, m, root)
	name := filepath.Join(root, "f.txt")
	for round := range 20 * attack(t) {
		write(t, name, "END\n")
		started, deleted := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			for i := 0; ; i++ {
				if i == 3 {
					close(started)
				}
				select {
				case <-deleted: // the delete has answered: what is there now stays
					done <- nil
					return
				default:
				}
				res, err := callRaw(editor, "fs_edit", map[string]any{"file_path": name, "old_string": "END\n", "new_string": fmt.Sprintf("tok%d\nEND\n", i)}, nil)
				if err != nil {
					done <- err
					return
				}
				if res.IsError {
					if text := testenv.Text(res); !strings.Contains(text, "not found") {
						done <- fmt.Errorf("edit %d: %s", i, text)
						return
					}
					<-deleted // gone: the delete has landed; wait for its answer
					done <- nil
					return
				}
			}
		}()
		<-started
		mustCall(t, deleter, "fs_delete", map[string]any{"path": name})
		close(deleted)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(name); err == nil {
			t.Fatalf("round %d: the deleted file is back after an edit:\n%s", round, readFile(t, name))
		}
	}
}
