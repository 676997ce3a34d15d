//go:build unix

package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Session is one MCP session's shell: a working directory kept across
// calls, inside the roots, and the processes its calls left running.
// Each Run starts a new bash in that directory, in a new process session
// (so in its own process group, without a controlling terminal).
// Environment variables and shell functions do not carry over between
// calls; the working directory does.
//
// A Session runs one command at a time; concurrent Runs wait their turn.
type Session struct {
	mode      Mode
	bash      string
	helper    *os.File // the sealed copy of fsmcp that confines bash (sandboxed only)
	env       []string
	maxOutput int
	tmp       string   // private TMPDIR (sandboxed only), removed by Close
	ns        *holder  // the session's user and pid namespaces (sandboxed, where bwrap works)
	pathBinds []string // PATH directories of links the namespace must show (see policy.onPath)
	nsRoot    string   // without bwrap: the empty directory the helper builds its private root on

	sem    chan struct{} // held by the running command (and forever after Close)
	ctx    context.Context
	cancel context.CancelFunc
	close  sync.Once

	mu    sync.Mutex
	roots []string
	pol   policy
	cwd   string
	left  leftovers // process sessions commands left running
	// traces are the supervisors of commands traced, which serve as long
	// as a process of theirs runs.
	traces []*tracing
	// keepers hold what commands left running, where there is no pid
	// namespace of the session's (keeper_linux.go).
	keepers []*keeper
}

// NewSession starts a session in the first root. It fails for ModeOff,
// and for ModeSandboxed where Landlock is unavailable (wrapping
// ErrNoLandlock): it never falls back to an unconfined shell.
func NewSession(opts Options) (*Session, error) {
	if err := CheckMode(opts.Mode); err != nil {
		return nil, err
	}
	if opts.Mode == ModeOff {
		return nil, errors.New("shell: fs_bash is off")
	}
	roots, err := resolveRoots(opts.Roots)
	if err != nil {
		return nil, err
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = withoutEnv(env, "FSMCP_AUTH_TOKEN")
	s := &Session{
		mode:      opts.Mode,
		bash:      opts.Bash,
		maxOutput: opts.MaxOutput,
		sem:       make(chan struct{}, 1),
		roots:     roots,
		cwd:       roots[0],
		left:      leftovers{},
	}
	if s.maxOutput <= 0 {
		s.maxOutput = DefaultMaxOutput
	}
	if s.bash == "" {
		if s.bash, err = lookPath("bash", envGet(env, "PATH")); err != nil {
			s.bash = "/bin/bash"
		}
	}
	if s.mode == ModeSandboxed {
		if s.helper, err = sealedHelper(); err != nil {
			return nil, err
		}
		tmp, err := os.MkdirTemp("", "fsmcp-shell-")
		if err != nil {
			return nil, fmt.Errorf("shell: private temp dir: %w", err)
		}
		if s.tmp, err = filepath.EvalSymlinks(tmp); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		s.pol = newPolicy(roots, s.tmp, env)
		env = s.sandboxEnv(env)
		if bw, _ := namespaces(); bw != nil {
			if s.ns, err = startHolder(bw, s.helper, s.pol); err != nil {
				os.RemoveAll(s.tmp)
				return nil, fmt.Errorf("shell: the sandbox's namespaces: %w", err)
			}
		} else if goNamespaces() {
			if s.nsRoot, err = os.MkdirTemp("", "fsmcp-root-"); err != nil {
				os.RemoveAll(s.tmp)
				return nil, fmt.Errorf("shell: the sandbox's private root: %w", err)
			}
		}
	}
	s.env = env
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// sandboxEnv adapts env to the sandbox: TMPDIR is the private temp dir,
// PATH keeps the directories the shell can use (policy.onPath), and the
// caches tools write to live in the temp dir. The user's own caches (an
// exported GOCACHE, ~/.cache, ~/.npm) are outside the sandbox, so a tool
// told to use them would fail; Go keeps reading modules from the user's
// module cache, which the policy makes readable.
func (s *Session) sandboxEnv(env []string) []string {
	var path []string
	for _, d := range filepath.SplitList(envGet(env, "PATH")) {
		if d != "" && filepath.IsAbs(d) && s.pol.onPath(d) {
			path = append(path, d)
			if !s.pol.readable(d) {
				s.pathBinds = append(s.pathBinds, d)
			}
		}
	}
	modCache := goModCache(env)
	env = withoutEnv(env, "TMPDIR", "PATH", "GOCACHE", "GOPATH", "GOMODCACHE", "npm_config_cache", "XDG_CACHE_HOME")
	env = append(env,
		"TMPDIR="+s.tmp,
		"PATH="+strings.Join(path, ":"),
		"GOCACHE="+filepath.Join(s.tmp, "go-build"),
		"GOPATH="+filepath.Join(s.tmp, "go"), // go install writes to $GOPATH/bin
		"npm_config_cache="+filepath.Join(s.tmp, "npm"),
		"XDG_CACHE_HOME="+filepath.Join(s.tmp, "cache"),
	)
	if modCache != "" {
		env = append(env, "GOMODCACHE="+modCache)
	}
	return env
}

// Mode returns the session's confinement.
func (s *Session) Mode() Mode { return s.mode }

// TempDir returns the private TMPDIR of a sandboxed session ("" when on).
func (s *Session) TempDir() string { return s.tmp }

// Cwd returns the working directory the next call starts in.
func (s *Session) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// SetRoots replaces the allowed roots (for MCP roots/list_changed). The
// working directory moves to the first root if it is no longer inside
// one; a sandboxed session's next command gets the new roots.
func (s *Session) SetRoots(roots []string) error {
	r, err := resolveRoots(roots)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roots = r
	if s.mode == ModeSandboxed {
		s.pol.RW = append(append([]string{}, r...), s.tmp)
	}
	if !withinAny(s.cwd, r) {
		s.cwd = r[0]
	}
	return nil
}

// wrapper is the script bash runs. The command arrives as $1 and is run
// by eval, so a syntax error in it is an ordinary failure (status 2)
// rather than the end of the script. The marker descriptor (fd 3 from
// fsmcp) is moved to a descriptor number above 9 that a read-only
// variable names, and fd 3 is closed, so scripts that use fd 3 themselves
// neither see it nor send the marker into the output. Once the command
// is done, the physical working directory goes to the marker descriptor
// as NUL, path, NUL. A command that leaves the shell itself (exit, set -e,
// a fatal error) writes no marker, so the working directory stays where
// it was.
const wrapper = `exec {__fsmcp_fd}>&3 3>&-
readonly __fsmcp_fd
__fsmcp_c=$1
set --
eval "unset __fsmcp_c
$__fsmcp_c"
__fsmcp_rc=$?
builtin printf '\0%s\0' "$(builtin pwd -P)" >&"$__fsmcp_fd"
exit "$__fsmcp_rc"
`

// Run runs command with bash in the session's working directory and
// returns its output and status. A non-zero exit status is not an error;
// the error is for a command that could not be started (or a closed
// session, or ctx ending while another command still held the session).
//
// The timeout (clamped by ClampTimeout), ctx ending, or Close kill the
// command's whole process session with SIGKILL. When bash ends normally,
// processes it left in the background keep running (and are killed by
// Close); the call returns as soon as bash has exited.
func (s *Session) Run(ctx context.Context, command string, timeout time.Duration) (Result, error) {
	return s.RunWithin(ctx, nil, command, timeout)
}

// RunWithin is Run with the roots in force for this call (say, narrowed by
// _meta.allowed_dirs): they replace the session's roots as SetRoots does,
// once the session is free. nil keeps the session's roots.
func (s *Session) RunWithin(ctx context.Context, roots []string, command string, timeout time.Duration) (Result, error) {
	return s.RunIn(ctx, roots, nil, command, timeout)
}

// RunIn is RunWithin with the roots also given as open directories,
// dirs[i] opened (through the file sandbox's handles) as roots[i]. A
// sandboxed command's Landlock rules for the roots are then built on
// these descriptors, which the helper inherits, not on the names: a root
// whose name is swapped for a link out meanwhile cannot widen them.
func (s *Session) RunIn(ctx context.Context, roots []string, dirs []*os.File, command string, timeout time.Duration) (Result, error) {
	return s.RunTraced(ctx, roots, dirs, command, timeout, nil)
}

// RunTraced is RunIn with every change the command and the processes it
// starts make to the file system told to rec before it is made (see
// trace_linux.go), as long as any of those processes runs. Where that
// cannot be done (not Linux, an old kernel) the command runs untraced and
// Result.Untraced says why.
//
// A run goes through its phases in turn, a function each (run.go): its
// turn and roots (admit), the confinement and tracing planned (plan),
// bash started (spawn), waited for within the timeout (wait), its output
// and what it left running collected (collect), and its working
// directory carried to the next call (adopt).
func (s *Session) RunTraced(ctx context.Context, roots []string, dirs []*os.File, command string, timeout time.Duration, rec Recorder) (Result, error) {
	if dirs != nil && len(dirs) != len(roots) {
		return Result{}, errors.New("shell: one open directory per root is needed")
	}
	timeout = ClampTimeout(timeout)
	release, res, err := s.admit(ctx, roots)
	if err != nil {
		return res, err
	}
	defer release()

	s.mu.Lock()
	cwd, roots, pol := s.cwd, s.roots, s.pol
	s.mu.Unlock()
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		res.addNotice(fmt.Sprintf("cwd %s no longer exists; the command ran in %s", cwd, roots[0]))
		cwd = roots[0]
		s.setCwd(cwd)
	}
	res.Cwd, res.Timeout = cwd, timeout

	l, err := s.plan(command, cwd, roots, dirs, pol, rec, &res)
	if err != nil {
		return res, err
	}
	defer l.close()
	r, err := s.spawn(l, cwd, rec, &res)
	if err != nil {
		return res, err
	}
	s.wait(ctx, r, timeout, &res)
	s.collect(r, rec, &res)
	if res.TimedOut || res.Cancelled {
		return res, nil
	}
	s.adopt(r.mk.buf, roots, &res)
	return res, nil
}

func (s *Session) setCwd(dir string) {
	s.mu.Lock()
	s.cwd = dir
	s.mu.Unlock()
}

var errOutside = errors.New("outside the roots")

// adoptCwd checks a directory reported by the shell: it must be absolute,
// exist, be a directory and (resolved) lie inside a root. It returns the
// resolved directory; with errOutside it returns the directory refused.
func adoptCwd(dir string, roots []string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", errors.New("not absolute")
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if !withinAny(real, roots) {
		return real, errOutside
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", errors.New("not a directory")
	}
	return real, nil
}

// lastRecord returns the last NUL-framed record in b: the text between
// the last two NUL bytes.
func lastRecord(b []byte) (string, bool) {
	end := bytes.LastIndexByte(b, 0)
	if end < 0 {
		return "", false
	}
	start := bytes.LastIndexByte(b[:end], 0)
	if start < 0 || end-start < 2 {
		return "", false
	}
	return string(b[start+1 : end]), true
}

// exitCode is the shell convention: the exit status, or 128+signal.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// drain copies r to w until EOF (nil) or a read error (the deadline).
func drain(w io.Writer, r *os.File) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// finishDrain ends the reading of r, which stopped with err. At EOF
// (nil) r is closed. At the deadline, what is in the pipe right now is
// still read (the reading goroutine may simply not have run in time),
// without waiting; if r is not at EOF then, a background process holds
// the pipe: r is read into nothing from now on, so that process never
// blocks on a full pipe or dies of SIGPIPE, and lingering is true.
func finishDrain(w io.Writer, r *os.File, err error) (lingering bool) {
	if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) || drainAvailable(w, r) {
		r.Close()
		return false
	}
	go func() {
		io.Copy(io.Discard, r)
		r.Close()
	}()
	return true
}

// drainAvailable reads what r holds without blocking, at most
// maxLateBytes (a background writer could otherwise keep it busy), and
// reports whether it reached EOF.
func drainAvailable(w io.Writer, r *os.File) (eof bool) {
	r.SetReadDeadline(time.Time{})
	rc, err := r.SyscallConn()
	if err != nil {
		return false
	}
	buf := make([]byte, 32<<10)
	rc.Read(func(fd uintptr) bool {
		for total := 0; total < maxLateBytes; {
			n, err := syscall.Read(int(fd), buf)
			if n > 0 {
				w.Write(buf[:n])
				total += n
				continue
			}
			eof = n == 0 && err == nil
			return true // EOF, EAGAIN or an error: done, never wait
		}
		return true
	})
	return eof
}

// lastBytes keeps the last limit bytes written to it.
type lastBytes struct {
	limit int
	buf   []byte
}

func (l *lastBytes) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if over := len(l.buf) - l.limit; over > 0 {
		l.buf = append(l.buf[:0], l.buf[over:]...)
	}
	return len(p), nil
}

// Close kills the command still running, if any, and every process the
// session's commands left behind, and removes the private temp dir.
// Later Runs return ErrClosed. Close is safe to call more than once.
func (s *Session) Close() error {
	var err error
	s.close.Do(func() {
		s.cancel()
		s.sem <- struct{}{} // wait for a running command to be killed; never released
		s.mu.Lock()
		keepers := s.keepers
		s.keepers = nil
		s.mu.Unlock()
		// Each keeper kills what its command left, setsid'd or not.
		var wg sync.WaitGroup
		for _, k := range keepers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k.stop(keeperLimit)
			}()
		}
		wg.Wait()
		s.mu.Lock()
		s.left.killAll()
		s.left = leftovers{}
		for _, t := range s.traces {
			t.close()
		}
		s.mu.Unlock()
		if s.ns != nil {
			s.ns.stop() // the pid namespace ends: what setsid took out of the tracking dies too
		}
		if s.nsRoot != "" {
			os.Remove(s.nsRoot) // empty: the private roots were built in the commands' own namespaces
		}
		if s.tmp != "" {
			err = os.RemoveAll(s.tmp)
		}
	})
	return err
}

func withoutEnv(env []string, keys ...string) []string {
	out := make([]string, 0, len(env))
next:
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		for _, key := range keys {
			if k == key {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// namespaced reports whether the session's commands run in a mount
// namespace of their own, where nothing outside the roots exists.
func (s *Session) namespaced() bool { return s.ns != nil || s.nsRoot != "" }
