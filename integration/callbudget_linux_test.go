package integration

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOneCallNamingABigFileFortyTimesLoadsItOnce: read_multiple_files
// (reference) and read_content (filesystem-mcp) naming a 10 MiB file 40
// times (a 2 KB request) stay within the per-call budget: the server's
// peak memory stays far below the 400 MiB the names ask for, the call
// answers, and the server serves the next call.
func TestOneCallNamingABigFileFortyTimesLoadsItOnce(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "big.txt"), strings.Repeat("0123456789abcdef\n", (10<<20)/17))
	names := make([]any, 40)
	for i := range names {
		names[i] = "big.txt"
	}
	cases := []struct {
		profile []string
		tool    string
		args    map[string]any
	}{
		{[]string{"--profile", "reference", root}, "read_multiple_files", map[string]any{"paths": absAll(root, names)}},
		{[]string{"--profile", "filesystem-mcp", "--allowed-dir", root}, "read_content", map[string]any{"paths": names}},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			cmd := exec.Command(binary, c.profile...)
			cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
			defer cancel()
			cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := callRaw(cs, c.tool, c.args, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.tool, err)
			}
			if res.IsError {
				t.Fatalf("%s failed as a whole", c.tool)
			}
			peak := peakRSS(t, cmd.Process.Pid)
			t.Logf("peak %d MiB", peak>>20)
			if peak > 256<<20 {
				t.Fatalf("the server peaked at %d MiB for one call (40 names of a 10 MiB file)", peak>>20)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatalf("the server did not answer the next call: %v", err)
			}
		})
	}
}

func absAll(root string, names []any) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = filepath.Join(root, fmt.Sprint(n))
	}
	return out
}

// peakRSS is the process's peak resident set (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 { return procStatus(t, pid, "VmHWM") }
