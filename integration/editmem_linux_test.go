package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEditOfABigFilePeaksUnderThreeTimesItsSizeAndGivesItBack: fs_edit
// of a 96 MiB file (issue 25 measured 3–5x the size at peak, and ~875 MB
// still resident minutes after a 200 MB edit) peaks under three times the
// file's size, and the server holds under half of it once the call has
// answered. Memory, not time: the bound holds on a loaded machine.
func TestEditOfABigFilePeaksUnderThreeTimesItsSizeAndGivesItBack(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const size = 96 << 20
	line := "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n"
	body := strings.Repeat(line, size/len(line))
	name := filepath.Join(root, "big.txt")
	write(t, name, "HEAD\n"+body)
	body = ""
	cmd := exec.Command(binary, "--max-file-size", "1GiB", root)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	before := procStatus(t, cmd.Process.Pid, "VmRSS")
	res, err := callRaw(cs, "fs_edit", map[string]any{"file_path": name, "old_string": "HEAD\n", "new_string": "HEAD, edited\n"}, nil)
	if err != nil || res.IsError {
		t.Fatalf("fs_edit: %v %v", err, res)
	}
	peak, after := procStatus(t, cmd.Process.Pid, "VmHWM"), procStatus(t, cmd.Process.Pid, "VmRSS")
	t.Logf("file %d MiB: RSS %d MiB before, peak %d MiB (%.2fx), %d MiB after", size>>20, before>>20, peak>>20, float64(peak-before)/size, after>>20)
	if peak-before > 3*size {
		t.Errorf("fs_edit of a %d MiB file peaked at %d MiB over the %d MiB the server held before (want under 3x the file)", size>>20, (peak-before)>>20, before>>20)
	}
	if after-before > size/2 {
		t.Errorf("after fs_edit of a %d MiB file answered, the server still held %d MiB more than before (want under half the file)", size>>20, (after-before)>>20)
	}
	got, err := os.ReadFile(name)
	if err != nil || !strings.HasPrefix(string(got[:20]), "HEAD, edited\n") || len(got) != size/len(line)*len(line)+len("HEAD, edited\n") {
		t.Fatalf("the file was not edited as asked (%v)", err)
	}
}

// procStatus reads one field of /proc/PID/status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc status", field)
	return 0
}
