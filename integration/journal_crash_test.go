//go:build unix

package integration

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// TestJournalCrashLeavesOldOrNewAndReadableJournal SIGKILLs fsmcp while a
// large fs_write is in flight (killed as soon as the journal's log is
// written, which is just before the write lands), several times: the file is always the old or the new content, never a mix, and
// "fsmcp history" and "fsmcp undo" still read the journal; an undo of the
// last change restores the old content when the new one landed.
func TestJournalCrashLeavesOldOrNewAndReadableJournal(t *testing.T) {
	old := strings.Repeat("old line\n", 1000)
	big := strings.Repeat("new content, a long line to make the write take a while\n", 150000) // ~8 MiB
	for i := range 5 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(root, "f.txt")
			write(t, name, old)
			sum := sha256.Sum256([]byte(root))
			// The journal's first segment, made beforehand so it can be
			// watched: the server writes the entry there.
			jdir := filepath.Join(os.Getenv("XDG_STATE_HOME"), "fsmcp", "journal", hex.EncodeToString(sum[:8]), "seg")
			if err := os.MkdirAll(jdir, 0o700); err != nil {
				t.Fatal(err)
			}
			w, err := fsnotify.NewWatcher()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Add(jdir); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary, root)
			cmd.Env = append(os.Environ(), "FSMCP_MAX_FILE_SIZE=64MiB")
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			send := func(v any) {
				b, _ := json.Marshal(v)
				in.Write(append(b, '\n'))
			}
			send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
			r := bufio.NewReader(out)
			if _, err := r.ReadString('\n'); err != nil { // the initialize answer
				t.Fatal(err)
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
			send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "fs_write", "arguments": map[string]any{"file_path": name, "content": big}}})
			for ev := range w.Events { // the entry is in the log: the write comes next
				if filepath.Base(ev.Name) == "00000001.log" {
					break
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()

			got := readFileOr(name)
			t.Logf("after SIGKILL the file is the new content: %v", got == big)
			if got != old && got != big {
				t.Fatalf("after SIGKILL f.txt is neither old nor new (%d bytes)", len(got))
			}
			hist, err := exec.Command(binary, "history", root).CombinedOutput()
			if err != nil {
				t.Fatalf("fsmcp history after SIGKILL: %v\n%s", err, hist)
			}
			// A change killed before it landed must say it was cut short;
			// one that landed may have ended too before the kill (on a
			// loaded machine the test sees the log's event late).
			if got == old && strings.Contains(string(hist), "fs_write") && !strings.Contains(string(hist), "cut short") {
				t.Errorf("history does not say the killed change was cut short:\n%s", hist)
			}
			if got == old {
				// The change was journaled and killed before it landed:
				// its undo changes nothing.
				out, _ := exec.Command(binary, "undo", root, "--last", "1").CombinedOutput()
				if readFileOr(name) != old {
					t.Fatalf("undo of a change that never landed changed the file: %s", out)
				}
			}
			if got == big {
				if out, err := exec.Command(binary, "undo", root, "--last", "1").CombinedOutput(); err != nil || readFileOr(name) != old {
					t.Fatalf("undo after SIGKILL: %v\n%s", err, out)
				}
			}
			left, _ := filepath.Glob(filepath.Join(root, ".*"))
			if len(left) > 0 {
				t.Errorf("litter in the root after SIGKILL: %v", left)
			}
		})
	}
}
