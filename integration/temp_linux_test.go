package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestKilledCopyLeavesNoTemp kills fsmcp with SIGKILL in the middle of a
// large fs_copy: the copy is written into an unnamed file, so nothing may
// be left in the destination directory.
func TestKilledCopyLeavesNoTemp(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "big.bin")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	for range 256 { // real data: a sparse file would copy in no time
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	dstDir := filepath.Join(root, "out")
	if err := os.Mkdir(dstDir, 0o755); err != nil {
		t.Fatal(err)
	}

	// The kill must land while the copy runs: a copy that finished first
	// is tried again (into a fresh destination), a bounded number of
	// times, and the test fails if the kill never lands mid-copy.
	const tries = 10
	for try := range tries {
		dst := filepath.Join(dstDir, strconv.Itoa(try))
		if err := os.Mkdir(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		if killMidCopy(t, root, src, dst) {
			return
		}
	}
	t.Fatalf("in %d tries the copy always finished before it could be seen running", tries)
}

// killMidCopy starts fsmcp, has it copy src into dst, and kills it with
// SIGKILL once it has the destination open. It reports whether the kill
// landed mid-copy; either way nothing but the copy may be in dst.
func killMidCopy(t *testing.T, root, src, dst string) bool {
	t.Helper()
	cmd := exec.Command(binary, root)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	pid := cmd.Process.Pid

	done := make(chan struct{})
	go func() {
		defer close(done)
		cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_copy", Arguments: map[string]any{
			"source": src, "destination": filepath.Join(dst, "big.bin")}})
	}()
	// Wait for the copy's file to be open in fsmcp, then kill it.
	deadline := time.Now().Add(time.Minute) // only bounds a hang
	caught := false
	for !caught && time.Now().Before(deadline) {
		select {
		case <-done:
			deadline = time.Time{}
			continue
		default:
		}
		ents, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
		for _, e := range ents {
			if l, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", e.Name())); err == nil && strings.HasPrefix(l, dst+"/") {
				caught = true
				break
			}
		}
	}
	cmd.Process.Kill()
	// Not cmd.Wait: the go-sdk's transport waits on the process itself
	// when the pipe breaks, and two Waits on one Cmd can block forever.
	waitGone(t, pid)
	<-done
	ents, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "big.bin" {
			t.Errorf("left in the destination after SIGKILL: %s", e.Name())
		}
	}
	if caught {
		t.Logf("killed mid-copy; destination holds %d entries", len(ents))
	}
	return caught
}
