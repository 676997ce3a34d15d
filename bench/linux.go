package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/fsmcp/fsmcp/backend"
)

// linuxTarball is Debian's linux-source-6.12 package's payload.
const linuxTarball = "/usr/src/linux-source-6.12.tar.xz"

// linuxQueries are issue 14's rows: the kinds of query in ripgrep's own
// benchmark suite, counted per file (output_mode count, rg -c).
var linuxQueries = []query{
	{name: "literal", grep: backend.GrepQuery{Pattern: "PM_RESUME", Mode: backend.Count}},
	{name: "literal -i", grep: backend.GrepQuery{Pattern: "PM_RESUME", IgnoreCase: true, Mode: backend.Count}},
	{name: "alternation", grep: backend.GrepQuery{Pattern: "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", Mode: backend.Count}},
	{name: "alternation -i", grep: backend.GrepQuery{Pattern: "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", IgnoreCase: true, Mode: backend.Count}},
	{name: "word", grep: backend.GrepQuery{Pattern: `\bPM_RESUME\b`, Mode: backend.Count}},
	{name: "no literal", grep: backend.GrepQuery{Pattern: `[A-Z]+_SUSPEND`, Mode: backend.Count}},
	{name: "unicode class", grep: backend.GrepQuery{Pattern: `\p{Greek}`, Mode: backend.Count}},
	{name: "words _ops", grep: backend.GrepQuery{Pattern: `\w+\s+\w+_ops\b`, Mode: backend.Count}},
	{name: "glob **/*.c", glob: "**/*.c", rgGlob: "*.c"},
}

// linuxTree returns the unpacked Linux 6.12 source, unpacking Debian's
// tarball on first use into $TMPDIR/fsmcp-bench-linux (outside any git
// repository, like a tarball a user unpacks). The last two lines of its
// top .gitignore (Debian packaging: "/*" and "!/debian/", which hide the
// whole tree wherever .gitignore counts) are dropped, so every backend
// sees the source whether or not .gitignore counts outside a repository.
func linuxTree() (string, error) {
	parent := filepath.Join(os.TempDir(), "fsmcp-bench-linux")
	dir := filepath.Join(parent, "linux-source-6.12")
	marker := filepath.Join(parent, ".unpacked")
	if _, err := os.Stat(marker); err == nil {
		return dir, nil
	}
	if _, err := os.Stat(linuxTarball); err != nil {
		return "", fmt.Errorf("%s is missing: install it with apt-get install linux-source-6.12 (make bench-linux does)", linuxTarball)
	}
	fmt.Fprintf(os.Stderr, "bench: unpacking %s into %s ...\n", linuxTarball, parent)
	_ = os.RemoveAll(parent)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("tar", "-xJf", linuxTarball, "-C", parent)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("unpacking %s: %v", linuxTarball, err)
	}
	gi := filepath.Join(dir, ".gitignore")
	data, err := os.ReadFile(gi)
	if err != nil {
		return "", err
	}
	var kept [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if s := string(l); s != "/*" && s != "!/debian/" {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(gi, bytes.Join(kept, []byte("\n")), 0o644); err != nil {
		return "", err
	}
	return dir, os.WriteFile(marker, nil, 0o644)
}
