// Package shell runs fs_bash: a bash session per MCP session whose working
// directory persists across calls and never leaves the allowed roots, and
// which under ModeSandboxed is confined by the kernel (Landlock) rather
// than by a command blocklist.
//
// # Calls
//
// Each Run starts bash in the session's working directory, in a new
// process session (its own process group, no controlling terminal, stdin
// /dev/null). stdout and stderr share one pipe, so their order is kept.
// After the command, the shell writes its physical working directory to a
// separate descriptor (never to the output, so nothing the command prints
// can forge it); the directory is adopted only if it resolves inside a
// root, otherwise the result says "cwd X is outside allowed directories:
// /a, /b" (the roots) and the working directory stays. A command that exits the shell (exit 3,
// set -e) keeps the old directory and reports its status. Output past the
// limit (30000 characters) is cut in the middle, keeping the start and the
// end and saying how many characters were dropped; reading it costs
// bounded memory whatever its size.
//
// A timeout, the caller's context ending (notifications/cancelled) or
// Close kill everything of the command with SIGKILL. Processes a command
// leaves in the background do not hold up the call; they run on until
// Close kills them. A process that starts its own session (setsid), or is
// double-forked away from bash, leaves the process session, but not what
// holds the command: in the session's pid namespace (bwrap) it dies with
// the namespace, and elsewhere on Linux every command runs below a keeper,
// a child subreaper it cannot leave (keeper_linux.go), which kills what
// is below it at a timeout, at Close, and when fsmcp dies.
//
// # What the sandboxed shell can touch
//
// The helper is fsmcp itself, run with a hidden first argument
// (MaybeRunSandboxChild), but never from a path: the binary may lie in a
// root, where the agent could replace it. A copy of the running program
// is taken once, at start, into a sealed memfd, and each call executes
// that copy (PrepareHelper). It applies a Landlock ruleset, checks that it
// took effect (listing / must now be denied) and execs bash; if anything
// fails it exits 126 without running the command. The ruleset is
// inherited by everything bash starts and cannot be lifted.
//
// Where bubblewrap works (see namespace_linux.go), the helper runs in the
// session's own user and pid namespaces and a fresh mount namespace per
// call that holds only the roots, the paths listed below and a private
// /tmp, /dev and /proc: what Landlock cannot refuse (stat, chmod, chown,
// utimes, xattrs) finds nothing outside the roots to act on (the host's
// device nodes in /dev are bound read-only, and the command holds no
// capability). Without it,
// the helper makes user and mount namespaces itself
// (gonamespace_linux.go); where none can be made, Landlock alone, and
// Describe says so. In the list below, "denied" then
// means "does not exist" as well.
//
// Read, write, create, delete, rename, execute:
//   - the allowed roots (as resolved at the time of the call);
//   - a private temp dir per session (TMPDIR; removed by Close). GOCACHE
//     points into it unless set.
//
// Read and execute, no write:
//   - /usr, /bin, /sbin, /lib, /lib32, /lib64, /libx32, /opt: programs,
//     libraries, locale data, zoneinfo, CA sources, python's stdlib;
//   - the Go toolchain: GOROOT (from the go found on PATH, or $GOROOT)
//     and the module cache ($GOMODCACHE, $GOPATH/pkg/mod or ~/go/pkg/mod),
//     which also holds toolchains GOTOOLCHAIN downloads.
//
// Read only: git's global configuration (~/.gitconfig and
// $XDG_CONFIG_HOME/git; git refuses to run when it exists but cannot be
// read, and it holds the commit identity), and a few files in /etc that
// common tools need at start:
// ld.so.cache, ld.so.preload, alternatives, localtime, passwd, group,
// nsswitch.conf, hosts, resolv.conf, host.conf, gai.conf, services,
// protocols, ssl/certs, ssl/openssl.cnf, pki/tls/certs, ca-certificates,
// gitconfig, mime.types, python3*. Read and write: /dev/null, /dev/zero,
// /dev/full, /dev/random, /dev/urandom.
//
// Everything else is denied with EACCES: the rest of /etc (hostname,
// shadow, ssl/private), the rest of the home directory (~/.ssh, ~/.aws,
// shell history, ~/.config), /tmp outside the private dir, /var, /run, /srv,
// /mnt, /media, /proc (so also other processes' command lines and
// environments), /sys, /dev/shm, /dev/tty, and the rest of /dev. A symlink
// in a root that points outside does not help: Landlock checks the file
// reached. Hard links and renames from outside into a root are refused
// (EXDEV). Mounting, chroot escapes and new namespaces are refused
// (Landlock forbids mount changes; no_new_privs also stops set-uid
// programs from gaining privileges). From ABI 6 the shell cannot send
// signals to processes outside its sandbox (fsmcp, the user's other
// programs) nor connect to abstract unix sockets outside it; from ABI 9
// connecting to pathname unix sockets outside the roots (docker.sock, the
// ssh agent) is refused too. On ABI 7 and 8, a pathname unix socket
// outside the roots is still reachable if its file permissions allow:
// the shell could talk to a Docker daemon socket, which is as good as
// root. Run fsmcp as a user who cannot.
//
// The command holds no capability and makes no set-uid or set-gid file:
// a seccomp filter refuses every mode with those bits (setid_linux.go),
// so fsmcp run as root leaves no way up in a root for whoever runs its
// files later.
//
// Not confined: the network (TCP and UDP connect and bind are left as
// they are, so git fetch, go mod download and curl work, and so do
// requests to services on localhost); the world-readable user and group
// lists in /etc/passwd and /etc/group; resources (CPU, memory, disk in
// the roots). The roots themselves are fully writable: the shell
// can change files that other programs later run unconfined, such as
// .git/hooks or a Makefile. Environment variables reach the shell as
// fsmcp received them, except FSMCP_AUTH_TOKEN.
//
// The Go build cache is private to the session (sharing the user's would
// let a sandboxed command plant objects that later unconfined builds
// link), so a session's first build compiles from scratch. Modules must
// already be in the (read-only) module cache; to download more, a command
// can export GOPATH=$TMPDIR/go.
//
// The helper skips PATH entries it cannot use (see policy.onPath) so
// that, for example, a pyenv shim under the unreadable home directory
// does not shadow /usr/bin/python3.
package shell
