package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// editRow is issue 25's fs_edit row: one edit near the start of a file of
// mb MiB through the go-sdk client over stdio (--max-file-size 1GiB), the
// call's time, the server's peak RSS (VmHWM) against the file's size, and
// its RSS when the call has answered and 5 s after.
func editRow(bin string, mb int) {
	dir, err := os.MkdirTemp("", "fsmcp-bench-edit-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: edit:", err)
		return
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "big.txt")
	line := "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n"
	size := int64(mb) << 20
	if err := os.WriteFile(name, []byte("HEAD\n"+strings.Repeat(line, int(size)/len(line))), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bench: edit:", err)
		return
	}
	cmd := exec.Command(bin, "--max-file-size", "1GiB", "--index", "off", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-bench", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: edit: connect:", err)
		return
	}
	defer cs.Close()
	srv := &httpServer{cmd: cmd} // for status
	before := srv.status("VmRSS")
	t0 := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_edit",
		Arguments: map[string]any{"file_path": name, "old_string": "HEAD\n", "new_string": "HEAD, edited\n"}})
	took := time.Since(t0)
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "bench: edit:", err)
		return
	case res.IsError:
		fmt.Fprintln(os.Stderr, "bench: edit:", textOf(res))
		return
	}
	peak, after := srv.status("VmHWM"), srv.status("VmRSS")
	time.Sleep(5 * time.Second)
	later := srv.status("VmRSS")
	fmt.Printf("edit: fs_edit of a %d MiB file (stdio): %.0f ms; server RSS %d MB before, peak %d MB (%.2fx the file over the start), %d MB when it answered, %d MB 5 s after\n",
		mb, ms(took), before>>20, peak>>20, float64(peak-before)/float64(size), after>>20, later>>20)
}
