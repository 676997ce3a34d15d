package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// hookRows are issue 46's cost rows: what fsmcp's Claude Code hooks add
// to a call of the host's own tools, each a process of its own as the
// host starts it, medians of runs, interleaved with the call without
// them. An Edit gets a hook before and one after it (both timed, each a
// JSON on stdin as Claude Code sends it); a Bash command runs through
// the prefix script (fsmcp hook --shell, then fsmcp run) instead of the
// host's own bash -c; and a command making 2,000 small files, through
// the prefix and without it.
func hookRows(bin string, runs int) {
	dir, err := os.MkdirTemp("", "fsmcp-bench-hooks-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: hooks:", err)
		return
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "root")
	os.MkdirAll(root, 0o755)
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "SHELL=/bin/bash", "CLAUDE_CODE_SESSION_ID=bench")
	install := exec.Command(bin, "hooks", "install", "claude-code")
	install.Dir, install.Env = root, env
	if out, err := install.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: hooks: install: %v\n%s", err, out)
		return
	}
	prefix, _ := filepath.Glob(filepath.Join(dir, "state", "fsmcp", "hooks", "claude-code-shell-*"))
	if len(prefix) != 1 {
		fmt.Fprintln(os.Stderr, "bench: hooks: no prefix script")
		return
	}
	file := filepath.Join(root, "f.txt")
	os.WriteFile(file, []byte(strings.Repeat("a line of a small source file, about sixty bytes long.....\n", 68)), 0o644)
	timed := func(stdin string, name string, args ...string) time.Duration {
		c := exec.Command(name, args...)
		c.Dir, c.Env = root, env
		c.Stdin = strings.NewReader(stdin)
		t0 := time.Now()
		if out, err := c.CombinedOutput(); err != nil && c.ProcessState.ExitCode() != 3 {
			fmt.Fprintf(os.Stderr, "bench: hooks: %s: %v\n%s", name, err, out)
		}
		return time.Since(t0)
	}
	event := func(ev string, i int) string {
		return fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":%q,"tool_name":"Edit","tool_use_id":"toolu_%d","tool_input":{"file_path":%q,"old_string":"a","new_string":"b"}}`, root, ev, i, file)
	}
	script := func(cmd string) string {
		return "source /dev/null 2>/dev/null || true && eval '" + cmd + "' < /dev/null && pwd -P >| " + filepath.Join(dir, "claude-x-cwd")
	}
	make2000 := `mkdir -p m && cd m && for i in $(seq 2000); do echo $i > f$i; done; cd .. && rm -rf m`
	t := map[string][]time.Duration{}
	for i := range runs + 1 {
		pre := timed(event("PreToolUse", i), bin, "hook", "claude-code", "--dir", root)
		post := timed(event("PostToolUse", i), bin, "hook", "claude-code", "--dir", root)
		hooked := timed("", prefix[0], script("echo hi"))
		plain := timed("", "/bin/bash", "-c", script("echo hi"))
		many := timed("", prefix[0], script(make2000))
		manyPlain := timed("", "/bin/bash", "-c", script(make2000))
		if i == 0 {
			continue // warm-up
		}
		for k, d := range map[string]time.Duration{"pre": pre, "post": post, "hooked": hooked, "plain": plain, "many": many, "manyPlain": manyPlain} {
			t[k] = append(t[k], d)
		}
	}
	pre, post := median(t["pre"]), median(t["post"])
	fmt.Printf("hooks: Claude Code Edit (medians of %d): PreToolUse hook %.1f ms, PostToolUse hook %.1f ms (process start included)\n", runs, ms(pre), ms(post))
	hooked, plain := median(t["hooked"]), median(t["plain"])
	fmt.Printf("hooks: Claude Code Bash 'echo hi': through the prefix %.1f ms, bash -c %.1f ms: +%.1f ms\n", ms(hooked), ms(plain), ms(hooked-plain))
	many, manyPlain := median(t["many"]), median(t["manyPlain"])
	fmt.Printf("hooks: Claude Code Bash making 2,000 files: through the prefix %.0f ms, bash -c %.0f ms (%.2fx)\n", ms(many), ms(manyPlain), float64(many)/float64(manyPlain))
}

// codexHookRows are the same rows for Codex: its apply_patch's hooks
// (each a process, a JSON on stdin as Codex sends it), and a command run
// as Codex runs it (bash -c) with fsmcp's BASH_ENV, against bash -c
// without it.
func codexHookRows(bin string, runs int) {
	dir, err := os.MkdirTemp("", "fsmcp-bench-codex-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: codex hooks:", err)
		return
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "root")
	os.MkdirAll(root, 0o755)
	state := filepath.Join(dir, "state")
	env := append(os.Environ(), "XDG_STATE_HOME="+state, "CODEX_HOME="+filepath.Join(dir, "codex"), "CODEX_THREAD_ID=bench")
	install := exec.Command(bin, "hooks", "install", "codex", "--user")
	install.Dir, install.Env = root, env
	if out, err := install.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: codex hooks: install: %v\n%s", err, out)
		return
	}
	bashEnv := "BASH_ENV=" + filepath.Join(state, "fsmcp", "hooks", "codex-bash-env")
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(strings.Repeat("a line of a small source file, about sixty bytes long.....\n", 68)), 0o644)
	timed := func(stdin string, extra []string, name string, args ...string) time.Duration {
		c := exec.Command(name, args...)
		c.Dir, c.Env = root, append(env, extra...)
		c.Stdin = strings.NewReader(stdin)
		t0 := time.Now()
		if out, err := c.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: codex hooks: %s: %v\n%s", name, err, out)
		}
		return time.Since(t0)
	}
	event := func(ev string, i int) string {
		return fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":%q,"tool_name":"apply_patch","tool_use_id":"call_%d","tool_input":{"command":"*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch\n"}}`, root, ev, i)
	}
	make2000 := `mkdir -p m && cd m && for i in $(seq 2000); do echo $i > f$i; done; cd .. && rm -rf m`
	t := map[string][]time.Duration{}
	for i := range runs + 1 {
		pre := timed(event("PreToolUse", i), nil, bin, "hook", "codex")
		post := timed(event("PostToolUse", i), nil, bin, "hook", "codex")
		hooked := timed("", []string{bashEnv}, "/bin/bash", "-c", "echo hi")
		plain := timed("", nil, "/bin/bash", "-c", "echo hi")
		many := timed("", []string{bashEnv}, "/bin/bash", "-c", make2000)
		manyPlain := timed("", nil, "/bin/bash", "-c", make2000)
		if i == 0 {
			continue // warm-up
		}
		for k, d := range map[string]time.Duration{"pre": pre, "post": post, "hooked": hooked, "plain": plain, "many": many, "manyPlain": manyPlain} {
			t[k] = append(t[k], d)
		}
	}
	fmt.Printf("hooks: Codex apply_patch (medians of %d): PreToolUse hook %.1f ms, PostToolUse hook %.1f ms (process start included)\n", runs, ms(median(t["pre"])), ms(median(t["post"])))
	hooked, plain := median(t["hooked"]), median(t["plain"])
	fmt.Printf("hooks: Codex exec_command 'echo hi': with fsmcp's BASH_ENV %.1f ms, bash -c %.1f ms: +%.1f ms\n", ms(hooked), ms(plain), ms(hooked-plain))
	many, manyPlain := median(t["many"]), median(t["manyPlain"])
	fmt.Printf("hooks: Codex exec_command making 2,000 files: with fsmcp's BASH_ENV %.0f ms, bash -c %.0f ms (%.2fx)\n", ms(many), ms(manyPlain), float64(many)/float64(manyPlain))
}
