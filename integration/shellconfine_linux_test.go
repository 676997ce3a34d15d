package integration

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsmcp/fsmcp/shell"
)

// requireSandbox skips, loudly, where the kernel has no Landlock.
func requireSandbox(t *testing.T) {
	t.Helper()
	if _, ok := shell.Available(); !ok {
		t.Skip("SKIPPED: this kernel has no Landlock, so --shell sandboxed cannot be tested here")
	}
}

// resolvedTempDir is t.TempDir with symlinks resolved, as the server
// reports paths.
func resolvedTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// connectBinary starts the fsmcp binary at bin over stdio with args.
func connectBinary(t *testing.T, bin string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &testLog{t: t, prefix: "fsmcp: "}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	cs, err := newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// copyFile copies src to dst with mode.
func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestShellHelperNotTakenFromARoot serves a root that holds the fsmcp
// binary being run (make run's bin/fsmcp; ~/go/bin under ~). The agent
// replaces the binary with a script, through fs_write or through fs_bash;
// the next fs_bash call must still be confined: the helper is a sealed
// copy taken at start, never the path.
func TestShellHelperNotTakenFromARoot(t *testing.T) {
	requireSandbox(t)
	for _, via := range []string{"fs_write", "fs_bash"} {
		t.Run(via, func(t *testing.T) {
			root, outside := resolvedTempDir(t), resolvedTempDir(t)
			if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			self := filepath.Join(root, "bin", "fsmcp")
			copyFile(t, binary, self, 0o755)
			cs := connectBinary(t, self, "--shell", "sandboxed", root)

			if out, isErr := bash(t, cs, "touch "+outside+"/before"); !isErr {
				t.Fatalf("the shell wrote outside before the swap: %q", out)
			}
			script := "#!/bin/sh\ntouch " + outside + "/pwned\nexit 0\n"
			switch via {
			case "fs_write":
				mustCall(t, cs, "fs_write", map[string]any{"file_path": self, "content": script})
			case "fs_bash":
				// The running binary cannot be written in place (ETXTBSY);
				// it can be replaced.
				if out, isErr := bash(t, cs, "rm -f bin/fsmcp && printf '%s' '"+script+"' > bin/fsmcp && chmod 755 bin/fsmcp && echo swapped"); isErr || out != "swapped" {
					t.Fatalf("swap: %v %q", isErr, out)
				}
			}
			if b, err := os.ReadFile(self); err != nil || string(b) != script {
				t.Fatalf("the binary was not replaced: %v", err)
			}
			os.Chmod(self, 0o755) // fs_write keeps the mode; make sure it is executable

			out, isErr := bash(t, cs, "touch "+outside+"/after; echo inside > in.txt; cat in.txt")
			for _, name := range []string{"pwned", "after", "before"} {
				if _, err := os.Stat(filepath.Join(outside, name)); err == nil {
					t.Fatalf("%s was created outside the root: the shell ran unconfined (%q)", name, out)
				}
			}
			if !strings.Contains(out, "inside") {
				t.Fatalf("the shell no longer runs: %v %q", isErr, out)
			}
		})
	}
}
