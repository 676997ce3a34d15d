package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/fsmcp/fsmcp/backend"
)

// monoCopies is how many copies of the Linux tree make the monorepo
// (the -copies flag; 12 by default, about 1M files and 20 GB).
var monoCopies = 12

// monoQueries are issue 22's rows: selective queries (which the index
// narrows), unselective ones (which it must not slow down) and globs,
// counted per file so the whole result is produced, not a first page.
var monoQueries = []query{
	{name: "literal", grep: backend.GrepQuery{Pattern: "PM_RESUME", Mode: backend.Count}},
	{name: "word", grep: backend.GrepQuery{Pattern: `\bPM_RESUME\b`, Mode: backend.Count}},
	{name: "literal -i", grep: backend.GrepQuery{Pattern: "PM_RESUME", IgnoreCase: true, Mode: backend.Count}},
	{name: "alternation", grep: backend.GrepQuery{Pattern: "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", Mode: backend.Count}},
	{name: "probe regex", grep: backend.GrepQuery{Pattern: `static int \w+_probe\(`, Mode: backend.Count}},
	{name: "words _ops", grep: backend.GrepQuery{Pattern: `\w+\s+\w+_ops\b`, Mode: backend.Count}},
	{name: "unicode class", grep: backend.GrepQuery{Pattern: `\p{Greek}`, Mode: backend.Count}},
	{name: "glob **/*.c", glob: "**/*.c", rgGlob: "*.c"},
	{name: "glob **/Makefile", glob: "**/Makefile", rgGlob: "Makefile"},
}

// monoTree returns issue 36's monorepo: monoCopies copies of the
// unpacked Linux tree (linuxTree) under one git init in
// $TMPDIR/fsmcp-bench-mono, each file its own inode, as in a real
// monorepo (cp --reflink=auto: shared extents where the file system has
// them, real copies elsewhere). Hard-linked copies, which issue 22 used,
// hid the cost of reading and indexing 1M distinct files behind 1.46 GB
// of content read once. make bench-mono removes it afterwards.
func monoTree() (string, error) {
	src, err := linuxTree()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.TempDir(), "fsmcp-bench-mono")
	marker := filepath.Join(dir, ".git", fmt.Sprintf("fsmcp-bench-complete-distinct-%d", monoCopies))
	if _, err := os.Stat(marker); err == nil {
		return dir, nil
	}
	fmt.Fprintf(os.Stderr, "bench: building %s (%d copies of %s) ...\n", dir, monoCopies, src)
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git init: %v: %s", err, out)
	}
	for i := range monoCopies {
		dst := filepath.Join(dir, fmt.Sprintf("linux-%02d", i+1))
		if out, err := exec.Command("cp", "-a", "--reflink=auto", src, dst).CombinedOutput(); err != nil {
			return "", fmt.Errorf("cp -a: %v: %s", err, out)
		}
	}
	return dir, os.WriteFile(marker, nil, 0o644)
}
