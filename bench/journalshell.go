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

// shellRow is one fs_bash command timed against a server with the change
// journal on and one with it off: setup prepares each server's root,
// command(i) is the i-th run's command there.
type shellRow struct {
	name    string
	setup   func(root string) error
	command func(root string, i int) string
	runs    int
}

// journalShellRows are issue 32's cost rows for fs_bash: a command that
// changes nothing, one that writes 2,000 small files, a make -j2 of a
// small C project, git checkout between two tags of a tree (the Linux
// source where its tarball is installed, else GOROOT), and a 10 GiB
// write over a file larger than the journal keeps (which still runs, its
// answer saying what was not kept). Each row: interleaved runs, medians,
// the ratio on/off.
func journalShellRows(bin string, runs int, gitTree string, bigGiB int, only string) {
	rows := []shellRow{
		{name: "a command that changes nothing (ls)", runs: runs,
			command: func(r string, i int) string { return "ls " + r + " >/dev/null" }},
		{name: "2,000 small files written by tar x", runs: runs, setup: smallTar,
			command: func(r string, i int) string {
				return fmt.Sprintf("mkdir %s/t%d && tar xf %s/2k.tar -C %s/t%d", r, i, r, r, i)
			}},
		{name: "2,000 small files written by a Python loop", runs: runs,
			command: func(r string, i int) string {
				return fmt.Sprintf("mkdir %s/p%d && python3 -c 'for i in range(2000): open(\"%s/p%d/f%%d\" %% i, \"w\").write(str(i))'", r, i, r, i)
			}},
		{name: "2,000 small files written by bash's echo (the least work a write can be)", runs: runs,
			command: func(r string, i int) string {
				return fmt.Sprintf("mkdir %s/w%d && cd %s/w%d && for i in $(seq 2000); do echo $i > f$i; done", r, i, r, i)
			}},
		{name: fmt.Sprintf("an npm-install-like tree of %d small files (%d packages) written by tar x", npmFiles, npmPackages), runs: max(3, runs/2), setup: npmTar,
			command: func(r string, i int) string {
				return fmt.Sprintf("mkdir %s/n%d && tar xf %s/pkgs.tar -C %s/n%d", r, i, r, r, i)
			}},
		{name: "make -j2 -B of a 40-file C project", runs: runs, setup: cProject,
			command: func(r string, i int) string { return "make -s -B -j2 -C " + r + "/proj" }},
	}
	if gitTree != "" {
		var tagA, tagB string
		rows = append(rows, shellRow{name: "git checkout between two tags of " + filepath.Base(gitTree), runs: max(3, runs/2),
			setup: func(r string) (err error) { tagA, tagB, err = gitTags(gitTree, r); return err },
			command: func(r string, i int) string {
				tag := tagA
				if i%2 == 0 {
					tag = tagB
				}
				return "git -C " + r + "/repo checkout -q " + tag
			}})
	}
	if bigGiB > 0 {
		rows = append(rows, shellRow{name: fmt.Sprintf("%d GiB written over a 1 GiB file (--journal-size 512MiB)", bigGiB), runs: 1,
			setup: func(r string) error {
				return exec.Command("dd", "if=/dev/zero", "of="+r+"/big", "bs=1M", "count=1024", "status=none").Run()
			},
			command: func(r string, i int) string {
				return fmt.Sprintf("dd if=/dev/zero of=%s/big bs=1M count=%d status=none", r, bigGiB<<10)
			}})
	}
	for _, row := range rows {
		if strings.Contains(row.name, only) {
			timeShellRow(bin, row)
		}
	}
}

func timeShellRow(bin string, row shellRow) {
	dir, err := os.MkdirTemp("", "fsmcp-bench-shell-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: journal:", err)
		return
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	sessions := map[string]*mcp.ClientSession{}
	roots := map[string]string{}
	for _, mode := range []string{"on", "off"} {
		root := filepath.Join(dir, "root-"+mode)
		os.MkdirAll(root, 0o755)
		if row.setup != nil {
			if err := row.setup(root); err != nil {
				fmt.Fprintln(os.Stderr, "bench: journal:", row.name, err)
				return
			}
		}
		cmd := exec.Command(bin, "--journal", mode, "--journal-size", "512MiB", "--index", "off", root)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state-"+mode))
		if journalUser != nil {
			// The server, and so the command, as another user: its tar
			// makes no fchown.
			if err := asUser(cmd, dir, bin); err != nil {
				fmt.Fprintln(os.Stderr, "bench: journal:", err)
				return
			}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "fsmcp-bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: journal: connect:", err)
			return
		}
		defer cs.Close()
		sessions[mode], roots[mode] = cs, root
		// The first command starts the session's shell (namespaces):
		// not timed.
		sessions[mode].CallTool(ctx, &mcp.CallToolParams{Name: "fs_bash", Arguments: map[string]any{"command": "true"}})
	}
	times := map[string][]time.Duration{}
	var said string
	for i := range row.runs {
		for _, mode := range []string{"on", "off"} {
			t0 := time.Now()
			res, err := sessions[mode].CallTool(ctx, &mcp.CallToolParams{Name: "fs_bash", Arguments: map[string]any{"command": row.command(roots[mode], i), "timeout": 600000}})
			if err != nil || res.IsError {
				fmt.Fprintln(os.Stderr, "bench: journal:", row.name, err, textOf(res))
				return
			}
			times[mode] = append(times[mode], time.Since(t0))
			if mode == "on" && strings.Contains(textOf(res), "[journal:") {
				said = textOf(res)
			}
		}
	}
	on, off := median(times["on"]), median(times["off"])
	fmt.Printf("journal: fs_bash %s (median of %d): journal on %.1f ms, off %.1f ms (%.2fx)\n", row.name, row.runs, ms(on), ms(off), float64(on)/float64(off))
	if said != "" {
		fmt.Printf("         its answer: %s\n", said[strings.Index(said, "[journal:"):])
	}
}

// smallTar writes root/2k.tar: 2,000 small files.
func smallTar(root string) error {
	src := filepath.Join(root, "src2k")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	for i := range 2000 {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d", i)), []byte(fmt.Sprintf("line %d\n", i)), 0o644); err != nil {
			return err
		}
	}
	if out, err := exec.Command("tar", "cf", filepath.Join(root, "2k.tar"), "-C", root, "src2k").CombinedOutput(); err != nil {
		return fmt.Errorf("tar: %v\n%s", err, out)
	}
	return os.RemoveAll(src)
}

// cProject writes a C project of 40 small files and a Makefile to
// root/proj.
func cProject(root string) error {
	dir := filepath.Join(root, "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var objs []string
	for i := range 40 {
		src := fmt.Sprintf("#include <stdio.h>\n#include <string.h>\nint f%d(const char *s) {\n\tint n = 0;\n\tfor (size_t i = 0; i < strlen(s); i++)\n\t\tn += s[i] * %d;\n\treturn n;\n}\n", i, i+1)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.c", i)), []byte(src), 0o644); err != nil {
			return err
		}
		objs = append(objs, fmt.Sprintf("f%d.o", i))
	}
	main := "int f0(const char *);\nint main(void) { return f0(\"x\") == 0; }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(main), 0o644); err != nil {
		return err
	}
	mk := fmt.Sprintf("OBJS = main.o %s\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) -O1 -c -o $@ $<\n", strings.Join(objs, " "))
	return os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644)
}

// gitTags makes root/repo a git repository of tree with two tags: A, the
// tree as it is, and B, with one file in twenty changed and one in
// fifty removed; it returns the tags (root/repo is left at B).
func gitTags(tree, root string) (string, string, error) {
	repo := filepath.Join(root, "repo")
	git := func(a ...string) error {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "core.autocrlf=false"}, a...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(a, " "), err, out)
		}
		return nil
	}
	if out, err := exec.Command("cp", "-a", tree, repo).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("copying %s: %v\n%s", tree, err, out)
	}
	for _, step := range [][]string{{"init", "-q"}, {"add", "-A", "-f"}, {"commit", "-q", "-m", "A"}, {"tag", "A"}} {
		if err := git(step...); err != nil {
			return "", "", err
		}
	}
	n := 0
	filepath.Walk(repo, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() && fi.Name() == ".git" {
			return filepath.SkipDir
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		n++
		switch {
		case n%50 == 0:
			os.Remove(p)
		case n%20 == 0:
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				f.WriteString("\n/* changed for tag B */\n")
				f.Close()
			}
		}
		return nil
	})
	for _, step := range [][]string{{"add", "-A", "-f"}, {"commit", "-q", "-m", "B"}, {"tag", "B"}} {
		if err := git(step...); err != nil {
			return "", "", err
		}
	}
	return "A", "B", nil
}

// gitTreeFor resolves -journal-git: "" is the Linux source where its
// tarball is installed, else GOROOT.
func gitTreeFor(choice string) string {
	switch choice {
	case "-":
		return ""
	case "", "linux":
		if _, err := os.Stat(linuxTarball); err == nil || choice == "linux" {
			if dir, err := linuxTree(); err == nil {
				return dir
			} else if choice == "linux" {
				fmt.Fprintln(os.Stderr, "bench: journal:", err)
				return ""
			}
		}
		fallthrough
	case "goroot":
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	return choice
}

// npmPackages and npmFiles shape the npm-install-like row's tree: many
// packages of small files in a few levels of directories, as
// node_modules holds them.
const (
	npmPackages = 600
	npmFiles    = 30000
)

// npmTar writes root/pkgs.tar: npmFiles small files (100 bytes to 6 KiB,
// the sizes of a package's JavaScript, JSON and Markdown) in npmPackages
// packages, each with a package.json, a README, lib/ and lib/sub/
// directories and a few scoped ones, as an install unpacks them. The
// tree is the same on every run (its sizes from a fixed seed).
func npmTar(root string) error {
	src := filepath.Join(root, "node_modules")
	rnd := uint64(0x9e3779b97f4a7c15)
	next := func(n int) int { rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17; return int(rnd % uint64(n)) }
	per := npmFiles / npmPackages
	for p := range npmPackages {
		pkg := fmt.Sprintf("pkg-%03d", p)
		if p%10 == 0 {
			pkg = fmt.Sprintf("@scope-%d/pkg-%03d", p/60, p)
		}
		for f := range per {
			var rel string
			switch {
			case f == 0:
				rel = "package.json"
			case f == 1:
				rel = "README.md"
			case f%3 == 0:
				rel = fmt.Sprintf("lib/sub/m%d.js", f)
			default:
				rel = fmt.Sprintf("lib/f%d.js", f)
			}
			path := filepath.Join(src, pkg, rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			body := strings.Repeat("module.exports = function () { return 1 }\n", 1+next(140))
			if err := os.WriteFile(path, []byte(body[:min(len(body), 100+next(6044))]), 0o644); err != nil {
				return err
			}
		}
	}
	if out, err := exec.Command("tar", "cf", filepath.Join(root, "pkgs.tar"), "-C", src, ".").CombinedOutput(); err != nil {
		return fmt.Errorf("tar: %v\n%s", err, out)
	}
	return os.RemoveAll(src)
}
