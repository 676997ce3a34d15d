package driver

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/backend/driver/confine"
	"github.com/fsmcp/fsmcp/sandbox"
)

// RGFound is what rg on PATH turned out to be, and the binary fsmcp runs
// for it (FindRG).
//
// The rule: searches run a real ripgrep binary, directly, never the
// script or shim PATH names. What PATH names may be a chain of symbolic
// links (Homebrew, Nix), a script with an interpreter (asdf's shims, a
// team's wrapper) or a program that hands over to another (mise's
// shims); FindRG runs it once with --version, confined, and follows its
// processes to see which binary it ends in. That binary must answer
// --version as the shim did when run by itself under the searches'
// confinement (execute that one binary and its loader, read the search's
// root). Running it directly gives the same answers (fsmcp hands rg every
// flag that decides them; a wrapper's own flags would only change them),
// keeps the confinement to one binary, and never runs the shim's logic
// in a directory the agent can write (a version manager reads
// .tool-versions or mise.toml there, and can be told to run commands).
// Nothing of the chain may lie in an allowed directory: the agent could
// rewrite it.
type RGFound struct {
	// OnPath is the rg PATH names, absolute ("" when there is none).
	OnPath string
	// Bin is the ripgrep binary searches run: the real one behind links
	// and shims. "" when none can be used (then Err says why).
	Bin string
	// Version is Bin's version ("13.0.0").
	Version string
	// Via says how OnPath leads to Bin.
	Via string
	// Libs are the loader and library directories Bin names itself
	// (ELF interpreter, RUNPATH), which its confinement lets it read and
	// execute besides the system's library directories.
	Libs []string
	// Err says why no rg can be used.
	Err error
}

// String names the rg in use, or why there is none: for --version and
// the start-up line.
func (f RGFound) String() string {
	if f.Err != nil {
		return f.Err.Error()
	}
	return fmt.Sprintf("%s (ripgrep %s), %s", f.Bin, f.Version, f.Via)
}

// probeTimeout bounds FindRG's runs of rg --version (a shim's version
// manager may be slow the first time, never this slow).
const probeTimeout = 10 * time.Second

// FindRG finds rg on PATH and the ripgrep binary behind it (see
// RGFound). deny are the directories the agent can write (the allowed
// roots, resolved): nothing in them is run, even confined.
func FindRG(deny []string) RGFound {
	p, err := lookPath("rg")
	if err != nil {
		return RGFound{Err: ErrNoRG}
	}
	if p, err = filepath.Abs(p); err != nil {
		return RGFound{Err: fmt.Errorf("rg on PATH: %v", err)}
	}
	f := RGFound{OnPath: p}
	fail := func(format string, a ...any) RGFound {
		f.Bin, f.Err = "", fmt.Errorf("rg on PATH (%s) cannot be used: %s", p, fmt.Sprintf(format, a...))
		return f
	}
	// What PATH names, statically: each link of a chain (by its real
	// place: a link's directory may itself be reached through one) and
	// the file it ends in. A script's interpreter, and whatever it
	// executes, are checked as they start (Vet, and the probe's Landlock
	// rules, which leave the roots out).
	links, final, err := linkChain(p)
	if err != nil {
		return fail("%v", err)
	}
	for _, l := range append(links, final) {
		if r := within(l, deny); r != "" {
			return fail("%s lies in the allowed directory %s, which the agent can write; it is not run", l, r)
		}
	}
	interp := shebang(final)
	// Dynamically: which binary it ends in.
	traced, err := confine.Trace(confine.Run{
		Path: p, Args: []string{"rg", "--version"}, Env: rgEnv(), Dir: "/", Timeout: probeTimeout,
		Vet: func(image string) bool { return within(image, deny) == "" },
	}, confine.Policy{All: true, AllBut: deny})
	var bin, want string
	switch {
	case errors.Is(err, confine.ErrTimedOut):
		return fail("rg --version did not end within %v; every process it started was killed", probeTimeout)
	case errors.Is(err, confine.ErrVetoed):
		return fail("it executes %s, which lies in an allowed directory; it is not run", traced.Images[len(traced.Images)-1])
	case errors.Is(err, confine.ErrNoTrace):
		// Without ptrace only a binary can be told apart: run it.
		if interp != "" {
			if !confine.Confined() {
				bin = p // unconfined anyway: run the shim as the user has it
				break
			}
			return fail("it is a script run by %s, and what it hands over to cannot be seen here (%v)", interp, err)
		}
		bin = final
	case err != nil:
		return fail("%v", err)
	default:
		if traced.Exit != 0 {
			return fail("rg --version failed (exit status %d%s)", traced.Exit, stderrNote(traced.Stderr))
		}
		if want = firstLine(string(traced.Stdout)); !strings.HasPrefix(want, "ripgrep ") {
			return fail("rg --version does not answer as ripgrep does: %q", want)
		}
		bin = traced.Images[len(traced.Images)-1]
	}
	f.Libs = elfLibs(bin)
	for _, l := range append([]string{bin}, f.Libs...) {
		if r := within(l, deny); r != "" {
			return fail("%s lies in the allowed directory %s, which the agent can write; it is not run", l, r)
		}
	}
	// The binary by itself, as searches run it.
	got, err := runVersion(bin, f.Libs)
	switch {
	case err != nil:
		return fail("%s cannot run confined: %v", bin, err)
	case !strings.HasPrefix(got, "ripgrep "):
		if interp != "" || bin != final {
			return fail("it hands over to %s, which is not ripgrep (%q)", bin, got)
		}
		return fail("%s is not ripgrep: --version answers %q", bin, got)
	case want != "" && got != want:
		return fail("it answers %q, but %s, which it hands over to, answers %q by itself", want, bin, got)
	}
	f.Bin, f.Version = bin, strings.Fields(got)[1]
	f.Via = via(p, links, final, interp, bin)
	return f
}

// via says how PATH's rg leads to bin: "on PATH", or "on PATH as" the
// chain of links, the script or the program it is, and what it hands
// over to.
func via(p string, links []string, final, interp, bin string) string {
	switch {
	case len(links) == 0 && interp == "" && final == bin:
		return "on PATH"
	case bin == p:
		// No ptrace and nothing confining rg: the shim runs as it is.
		return "on PATH, a script run by " + interp + ", run as it is"
	}
	s := "on PATH as " + p
	if len(links) > 0 {
		s = "on PATH as " + strings.Join(append(links, final), " -> ")
		if interp == "" && final == bin {
			return s + " (symbolic links)"
		}
	}
	if interp != "" {
		s += ", a script run by " + interp
	} else {
		s += ", a program"
	}
	if bin != final {
		s += " that hands over to " + bin
	}
	return s
}

// maxLinks bounds a chain of symbolic links, as the kernel's ELOOP does.
const maxLinks = 40

// linkChain follows the symbolic link p names, one link at a time: the
// links passed (each by its real place) and the file the chain ends in.
func linkChain(p string) (links []string, final string, err error) {
	cur := p
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(cur))
		if err != nil {
			return nil, "", err
		}
		cur = filepath.Join(dir, filepath.Base(cur))
		target, err := os.Readlink(cur)
		if err != nil {
			if fi, serr := os.Lstat(cur); serr == nil && fi.Mode()&os.ModeSymlink == 0 {
				return links, cur, nil
			}
			return nil, "", err
		}
		links = append(links, cur)
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		cur = target
	}
	return nil, "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

// shebang returns the interpreter line of a script ("/bin/sh",
// "/usr/bin/env bash"), or "" for anything else.
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	return strings.Join(strings.Fields(string(line)), " ")
}

// elfLibs returns what an ELF binary names for its loading beyond the
// system's library directories: its interpreter and its RUNPATH (or
// RPATH) directories, $ORIGIN expanded, each resolved; nil for anything
// else (a static binary, another format).
func elfLibs(bin string) []string {
	f, err := elf.Open(bin)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	add := func(p string) {
		if p = strings.ReplaceAll(p, "$ORIGIN", filepath.Dir(bin)); p == "" || !filepath.IsAbs(p) {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && !systemLib(r) {
			out = append(out, r)
		}
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			b, err := io.ReadAll(io.LimitReader(prog.Open(), 4096))
			if err == nil {
				add(string(bytes.TrimRight(b, "\x00")))
			}
		}
	}
	for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
		paths, _ := f.DynString(tag)
		for _, ps := range paths {
			for _, p := range strings.Split(ps, ":") {
				add(p)
			}
		}
	}
	return out
}

// systemLib reports whether p lies in a directory the confinement lets
// every helper read and execute anyway.
func systemLib(p string) bool {
	for _, d := range confine.LibDirs() {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// runVersion runs bin --version confined as searches run it (execute bin
// and libs, read nothing else) and returns the first line it prints.
func runVersion(bin string, libs []string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = rgEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second // a process it left holding the output is not waited for
	if err := confine.Start(cmd, confine.Policy{Exec: libs}); err != nil {
		return "", err
	}
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("%v%s", err, stderrNote(errOut.Bytes()))
	}
	return firstLine(out.String()), nil
}

// stderrNote is ": " and the first line of a program's messages, or "".
func stderrNote(b []byte) string {
	if l := strings.TrimSpace(firstLine(strings.TrimSpace(string(b)))); l != "" {
		return ": " + l
	}
	return ""
}

// rgEnv is the environment rg runs with: fsmcp's, with no rg config file
// and without the HTTP token, which rg has no use for.
func rgEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "FSMCP_AUTH_TOKEN=") })
	return append(env, "RIPGREP_CONFIG_PATH=")
}

// within returns the directory of dirs that holds p, or "".
// (sandbox.WithinAny, the one containment rule).
func within(p string, dirs []string) string {
	d, _ := sandbox.WithinAny(dirs, p)
	return d
}
