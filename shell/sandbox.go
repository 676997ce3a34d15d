//go:build unix

package shell

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// sandboxArg is argv[1] of the re-executed fsmcp binary that confines
// itself and then execs bash. It is not a user-facing command.
const sandboxArg = "__fsmcp_sandbox_exec"

// policy is what the sandboxed shell may touch. The parent computes it
// (so it can be inspected and tested) and hands it to the child as JSON.
// Anything not named here is denied: reading, writing, listing, executing,
// creating, removing, renaming into or out of it.
type policy struct {
	// RW: full access, including renames between directories (refer),
	// truncate and making files, directories, sockets and fifos; no
	// device ioctls. The roots and the session's private temp dir.
	RW []string `json:"rw"`
	// RX: read, list and execute. System program and library trees.
	RX []string `json:"rx"`
	// RO: read and list only, no execute. Configuration and data that
	// common tools read at start.
	RO []string `json:"ro"`
	// Dev: read and write, no ioctl beyond Landlock's always-allowed set
	// (FIOCLEX, FIONREAD, ...). Harmless device files.
	Dev []string `json:"dev"`
	// RWDirs: RW's rights on directories the child inherits as open
	// descriptors (the roots, opened through fsmcp's handles), so that the
	// rule covers the directory fsmcp holds, not whatever the name leads
	// to when the child starts.
	RWDirs []fdDir `json:"rwdirs,omitempty"`
	// Mount, where bwrap is missing, is the private root the helper
	// builds itself (in the new namespaces it was started in) before
	// Landlock.
	Mount *mountPlan `json:"mount,omitempty"`
	// LockDev: the helper runs in bwrap's namespaces, whose /dev holds
	// the host's device nodes bound read-write; it makes them read-only
	// (lockDevices) before anything else runs.
	LockDev bool `json:"lock_dev,omitempty"`
	// Trace, when set, is the descriptor of the socket the helper sends
	// the listener of the command's seccomp filter on (trace_linux.go).
	Trace int `json:"trace,omitempty"`
	// NoConfine: an unconfined shell, traced or kept only.
	NoConfine bool `json:"no_confine,omitempty"`
	// Keep, when set, is the descriptor of the pipe to fsmcp on which the
	// helper, as the command's keeper (keeper_linux.go), sends bash's wait
	// status; the command, started as its child with this policy less
	// Keep, inherits descriptors 0 to KeepFds-1 but that one.
	Keep    int `json:"keep,omitempty"`
	KeepFds int `json:"keep_fds,omitempty"`
}

// mountPlan is the shell's private root, as the helper builds it.
type mountPlan struct {
	Dir   string   `json:"dir"`   // an empty directory to build the root on
	RO    []string `json:"ro"`    // system trees and files, PATH directories of links: read-only
	Tmp   string   `json:"tmp"`   // the session's temp dir, read-write
	Roots []fdDir  `json:"roots"` // read-write, at their names; FD -1: bound by name
	Cwd   string   `json:"cwd"`
}

// fdDir is an inherited directory descriptor and the name it was opened
// as (for messages, and the fallback where /proc is not mounted).
type fdDir struct {
	FD   int    `json:"fd"`
	Name string `json:"name"`
}

// systemRX are the directory trees whose programs and libraries a shell
// needs, read+execute. Missing ones are skipped.
var systemRX = []string{
	"/usr",   // programs, libraries, locale data (/usr/lib/locale, /usr/share/locale), zoneinfo, CA bundle sources (/usr/share/ca-certificates), python's stdlib
	"/bin",   // on merged-/usr systems a symlink into /usr; on others the base programs
	"/sbin",  // same for system programs (ip, ldconfig) that scripts call by path
	"/lib",   // dynamic loader and libc on non-merged systems
	"/lib32", // multilib loaders, where present
	"/lib64", // the x86-64 dynamic loader path (/lib64/ld-linux-x86-64.so.2) named in every ELF binary
	"/libx32",
	"/opt", // vendor-installed toolchains (node, JDKs) that PATH points into
}

// systemRO are single files or small trees, read-only, that common tools
// read when they start. Missing ones are skipped. /etc as a whole is not
// readable: /etc/hostname, /etc/shadow, /etc/ssl/private and the rest
// are denied.
var systemRO = []string{
	"/etc/ld.so.cache",     // the dynamic loader's library index: without it multiarch libs are not found
	"/etc/ld.so.preload",   // preloads the system insists on; the loader fails noisily if it cannot read them
	"/etc/alternatives",    // Debian's symlink farm for editor, java, python etc.; listing it is harmless
	"/etc/localtime",       // the time zone for date, ls -l, git log
	"/etc/passwd",          // uid -> name for ls -l, id, whoami, git's identity, ssh, python's getpass (world-readable, no hashes)
	"/etc/group",           // gid -> name, same tools (world-readable)
	"/etc/nsswitch.conf",   // how glibc looks up users and hosts
	"/etc/hosts",           // host names (network is not confined, see the package comment)
	"/etc/resolv.conf",     // DNS servers, for git fetch / go mod download / curl
	"/etc/host.conf",       // resolver options
	"/etc/gai.conf",        // getaddrinfo address ordering
	"/etc/services",        // port names (getservbyname) used by curl, python, git
	"/etc/protocols",       // protocol names (getprotobyname)
	"/etc/ssl/certs",       // the CA certificates (not /etc/ssl/private)
	"/etc/ssl/openssl.cnf", // OpenSSL's default configuration, read by every TLS client
	"/etc/pki/tls/certs",   // the CA bundle on Fedora/RHEL
	"/etc/ca-certificates", // update-ca-certificates' local additions, pointed to from /etc/ssl/certs
	"/etc/gitconfig",       // system git configuration
	"/etc/mime.types",      // MIME types for python's mimetypes, file servers
	"/etc/python3",         // Debian's python configuration ...
	"/etc/python3.11",      // ... and the sitecustomize.py that /usr/lib/python3.X links to
	"/etc/python3.12",
	"/etc/python3.13",
}

// systemDev are the device files a shell script writes to or reads from:
// /dev/null for redirection, /dev/zero and /dev/full for dd and tests,
// /dev/random and /dev/urandom for mktemp, ssh-keygen, python. /dev/tty
// is not listed: the shell runs in its own session without a
// controlling terminal, so it could not be opened anyway.
var systemDev = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// newPolicy builds the policy for a session: the roots and tmp read-write,
// the system lists above, and the Go toolchain read+execute (GOROOT and
// the module cache, which also holds toolchains that GOTOOLCHAIN
// downloads), found from env so it matches the go the shell will run.
func newPolicy(roots []string, tmp string, env []string) policy {
	p := policy{
		RW:  append(append([]string{}, roots...), tmp),
		RX:  append([]string{}, systemRX...),
		RO:  append([]string{}, systemRO...),
		Dev: append([]string{}, systemDev...),
	}
	p.RX = append(p.RX, goDirs(env)...)
	p.RO = append(p.RO, gitConfig(env)...)
	return p
}

// gitConfig returns git's global configuration (~/.gitconfig and
// $XDG_CONFIG_HOME/git, default ~/.config/git), read-only. git refuses
// to run at all when it exists but cannot be read ("unknown error
// occurred while reading the configuration files"), and it holds the
// user's identity for commits. The rest of the home directory stays
// denied.
func gitConfig(env []string) []string {
	home := envGet(env, "HOME")
	xdg := envGet(env, "XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var out []string
	if home != "" && filepath.IsAbs(home) {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" && filepath.IsAbs(xdg) {
		out = append(out, filepath.Join(xdg, "git"))
	}
	return out
}

// goDirs returns GOROOT and the module cache for the go command found on
// env's PATH, without running it: GOROOT is the directory above the
// resolved bin/go (or $GOROOT), the module cache $GOMODCACHE, else
// $GOPATH/pkg/mod, else $HOME/go/pkg/mod. Only existing directories
// are returned.
func goDirs(env []string) []string {
	get := func(k string) string { return envGet(env, k) }
	var dirs []string
	if g := get("GOROOT"); g != "" {
		dirs = append(dirs, g)
	}
	if goBin, err := lookPath("go", get("PATH")); err == nil {
		if real, err := filepath.EvalSymlinks(goBin); err == nil {
			dirs = append(dirs, filepath.Dir(filepath.Dir(real)))
		}
	}
	if m := goModCache(env); m != "" {
		dirs = append(dirs, m)
	}
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && filepath.IsAbs(d) {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// goModCache is where the go command on env reads modules (and the
// toolchains GOTOOLCHAIN downloads): $GOMODCACHE, else $GOPATH/pkg/mod,
// else $HOME/go/pkg/mod; "" when none is set.
func goModCache(env []string) string {
	get := func(k string) string { return envGet(env, k) }
	switch {
	case get("GOMODCACHE") != "":
		return get("GOMODCACHE")
	case get("GOPATH") != "":
		first, _, _ := strings.Cut(get("GOPATH"), string(filepath.ListSeparator))
		return filepath.Join(first, "pkg", "mod")
	case get("HOME") != "":
		return filepath.Join(get("HOME"), "go", "pkg", "mod")
	}
	return ""
}

// lookPath finds an executable file named file in the directories of
// path (a PATH value), like exec.LookPath but for another environment.
func lookPath(file, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// readable reports whether dir lies in a tree the policy lets the shell
// read and execute.
func (p policy) readable(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	for _, list := range [][]string{p.RX, p.RW} {
		for _, d := range list {
			if r, err := filepath.EvalSymlinks(d); err == nil && within(real, r) {
				return true
			}
		}
	}
	return false
}

// onPath decides whether the sandboxed shell keeps a PATH entry. A
// readable directory stays. An unreadable one full of programs (a pyenv
// shims dir, ~/.cargo/bin) goes: bash would find a program there, fail to
// run it and not try the next entry, so python3 would break instead of
// coming from /usr/bin. An unreadable directory of symlinks into readable
// trees (a link farm) stays, since exec follows the links.
func (p policy) onPath(dir string) bool {
	if p.readable(dir) {
		return true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 && p.readable(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

// sandboxCommand returns the argv that runs bashArgv confined by p: the
// helper (argv[0], see helperPath) with the hidden sandbox subcommand.
func sandboxCommand(helper string, p policy, bashArgv []string) ([]string, error) {
	js, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return append([]string{helper, sandboxArg, string(js)}, bashArgv...), nil
}

// helperPath is how a child whose descriptor fd is the sealed helper
// names it for exec: the kernel opens the memfd itself, no name is
// looked up.
func helperPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// MaybeRunSandboxChild must be the first thing main (and a TestMain that
// wants the sandbox) calls. When the process was started as fsmcp's
// sandbox helper it confines itself with Landlock and execs bash, and
// never returns; if anything fails it exits with status 126 and a
// message on stderr, without running the command. Otherwise it returns at
// once.
func MaybeRunSandboxChild() {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case holdArg:
			holdNamespace()
		case probeArg:
			os.Exit(0)
		}
	}
	if len(os.Args) < 4 || os.Args[1] != sandboxArg {
		return
	}
	// Capabilities, the bounding set and the seccomp filter belong to a
	// thread, and the thread that execs bash passes its own on: every
	// step below runs on this one.
	runtime.LockOSThread()
	var p policy
	if err := json.Unmarshal([]byte(os.Args[2]), &p); err != nil {
		sandboxFail(fmt.Errorf("bad policy: %w", err))
	}
	// The descriptors above the marker (fd 3) are the helper's own: the
	// memfd it runs from, the namespaces it joined, the roots its rules
	// are built on. None reaches bash.
	if err := closeOnExecFrom(4); err != nil {
		sandboxFail(err)
	}
	if p.Keep > 0 {
		keep(p) // runs the command below it, with this policy less Keep
	}
	if p.Mount != nil {
		if err := buildRoot(*p.Mount); err != nil {
			sandboxFail(err)
		}
	}
	if p.LockDev {
		if err := lockDevices(); err != nil {
			sandboxFail(err)
		}
	}
	if !p.NoConfine {
		if err := dropCapabilities(); err != nil {
			sandboxFail(err)
		}
		if err := restrict(p); err != nil {
			sandboxFail(err)
		}
		if err := installSetIDWall(); err != nil {
			sandboxFail(err)
		}
	}
	if p.Trace > 0 {
		installTrace(p.Trace)
	}
	argv := os.Args[3:]
	err := syscall.Exec(argv[0], argv, os.Environ())
	sandboxFail(fmt.Errorf("exec %s: %w", argv[0], err))
}

func sandboxFail(err error) {
	fmt.Fprintf(os.Stderr, "fsmcp: fs_bash sandbox: %v; the command was not run\n", err)
	os.Exit(126)
}

func envGet(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
