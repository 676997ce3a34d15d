package integration

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The rg a user has (issue 38): behind a version manager's script shim, a
// binary shim that hands over to another binary, or a chain of links,
// fsmcp finds the real ripgrep and searches with it; an rg that cannot
// run leaves every search to the native scanner, said once on stderr; and
// nothing of rg's chain that lies where the agent can write is ever run.

// realRG is the ripgrep binary installed here, by its real path.
func realRG(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("SKIPPED: rg is not installed")
	}
	if p, err = filepath.EvalSymlinks(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// shimQueries are searches whose answers do not depend on the backend.
var shimQueries = []map[string]any{
	{"pattern": needle},
	{"pattern": needle, "output_mode": "content", "-n": true, "-C": 1},
	{"pattern": "NEEDLE", "-i": true, "output_mode": "count"},
	{"pattern": "needle (one|deep)", "glob": "*.{txt,md}", "output_mode": "content"},
}

// nativeAnswers are shimQueries' answers on tr from the native scanner.
func nativeAnswers(t *testing.T, tr *tree) []string {
	t.Helper()
	norg, err := pathWithoutRg()
	if err != nil {
		t.Fatal(err)
	}
	cs := connectStdio(t, mode{"norg", norg}, "--search-backend", "native", tr.root)
	var out []string
	for _, q := range shimQueries {
		out = append(out, mustCall(t, cs, "fs_grep", q))
	}
	return out
}

// shimServer is fsmcp started with PATH = dir, then a PATH without rg.
type shimServer struct {
	cs     *mcp.ClientSession
	stderr *lockedBuffer
}

func startWithRGIn(t *testing.T, dir string, args ...string) *shimServer {
	t.Helper()
	norg, err := pathWithoutRg()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+norg)
	s := &shimServer{stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only bounds a hang
	defer cancel()
	if s.cs, err = newClient().Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil); err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, s.stderr)
	}
	t.Cleanup(func() {
		s.cs.Close()
		t.Logf("fsmcp's stderr:\n%s", s.stderr)
	})
	return s
}

func (s *shimServer) answers(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, q := range shimQueries {
		out = append(out, mustCall(t, s.cs, "fs_grep", q))
	}
	return out
}

// fellBack counts the lines saying searches left rg for the native scanner.
func (s *shimServer) fellBack() int {
	return strings.Count(s.stderr.String(), "searches use the native scanner")
}

// asdfShim is an asdf-style shim: a script run through env that hands
// over to rg.
func asdfShim(t *testing.T, dir, rg string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	write(t, filepath.Join(dir, "rg"), "#!/usr/bin/env sh\n# asdf-plugin: ripgrep 13.0.0\nexec "+rg+" \"$@\"\n")
	os.Chmod(filepath.Join(dir, "rg"), 0o755)
}

var (
	handoverOnce sync.Once
	handoverBin  string
	handoverErr  error
)

// miseShim lays out a mise-style install under base: bin/mise (a binary
// that hands over), installs/rg (a copy of rg) and shims/rg -> ../bin/mise.
// It returns the shims directory and the real binary.
func miseShim(t *testing.T, base, rg string) (shims, real string) {
	t.Helper()
	handoverOnce.Do(func() {
		handoverBin = filepath.Join(filepath.Dir(binary), "handover")
		out, err := exec.Command("go", "build", "-o", handoverBin, "./testdata/handover").CombinedOutput()
		if err != nil {
			handoverErr = errors.New(string(out))
		}
	})
	if handoverErr != nil {
		t.Fatalf("building the handover shim: %v", handoverErr)
	}
	for _, d := range []string{"bin", "installs", "shims"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	copyFile(t, handoverBin, filepath.Join(base, "bin", "mise"), 0o755)
	real = filepath.Join(base, "installs", "rg")
	copyFile(t, rg, real, 0o755)
	symlink(t, "../bin/mise", filepath.Join(base, "shims", "rg"))
	return filepath.Join(base, "shims"), real
}

// badELF is a file the kernel refuses to execute (ENOEXEC), as a binary
// of another architecture or a truncated download is.
func badELF(t *testing.T, path string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 57)...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestRGBehindShims: rg behind an asdf-style script shim, a mise-style
// binary shim and a chain of links answers fs_grep (the native scanner's
// answers, which rg's equal), the start-up line and --version name the
// real binary and how it was found, and an explicit --search-backend rg
// (which never falls back) answers the same.
func TestRGBehindShims(t *testing.T) {
	rg := realRG(t)
	tr := newTree(t)
	want := nativeAnswers(t, tr)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mise, miseReal := miseShim(t, filepath.Join(base, "mise"), rg)
	chain := filepath.Join(base, "chain")
	os.MkdirAll(filepath.Join(base, "chain2"), 0o755)
	os.MkdirAll(chain, 0o755)
	symlink(t, filepath.Join(base, "chain2", "rg-13"), filepath.Join(chain, "rg"))
	symlink(t, rg, filepath.Join(base, "chain2", "rg-13"))
	asdfShim(t, filepath.Join(base, "asdf", "shims"), rg)
	for _, c := range []struct {
		name, dir, bin, via string
	}{
		{"asdf script shim", filepath.Join(base, "asdf", "shims"), rg, "a script run by /usr/bin/env sh that hands over to " + rg},
		{"mise binary shim", mise, miseReal, "-> " + filepath.Join(base, "mise", "bin", "mise") + ", a program that hands over to " + miseReal},
		{"symlink chain", chain, rg, filepath.Join(base, "chain2", "rg-13") + " -> " + rg + " (symbolic links)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, backend := range []string{"auto", "rg"} {
				s := startWithRGIn(t, c.dir, "--search-backend", backend, tr.root)
				got := s.answers(t)
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s: fs_grep %v =\n%s\nwant\n%s", backend, shimQueries[i], got[i], want[i])
					}
				}
				log := s.stderr.String()
				if !strings.Contains(log, "search_backend=rg rg="+c.bin+" ") || !strings.Contains(log, c.via) || s.fellBack() != 0 {
					t.Errorf("%s: the start-up line does not name %s found %s, or rg fell back:\n%s", backend, c.bin, c.via, log)
				}
			}
			cmd := exec.Command(binary, "--version")
			norg, _ := pathWithoutRg()
			cmd.Env = append(os.Environ(), "PATH="+c.dir+":"+norg)
			out, err := cmd.Output()
			if err != nil || !strings.Contains(string(out), "\nrg: "+c.bin+" (ripgrep ") || !strings.Contains(string(out), c.via) {
				t.Errorf("--version = %q, %v; want it to name %s, %s", out, err, c.bin, c.via)
			}
		})
	}
	t.Run("over http", func(t *testing.T) {
		norg, _ := pathWithoutRg()
		cs := connectHTTP(t, mode{"asdf", filepath.Join(base, "asdf", "shims") + ":" + norg}, "--search-backend", "rg", tr.root)
		for i, q := range shimQueries {
			if got := mustCall(t, cs, "fs_grep", q); got != want[i] {
				t.Errorf("fs_grep %v =\n%s\nwant\n%s", q, got, want[i])
			}
		}
	})
}

// TestRGThatCannotRun: an rg that cannot start (a shim that errors, a
// binary the kernel cannot execute, one replaced by such a file while
// fsmcp runs) leaves every search to the native scanner, with the same
// answers and one line on stderr saying why; --search-backend rg keeps
// the error instead.
func TestRGThatCannotRun(t *testing.T) {
	rg := realRG(t)
	tr := newTree(t)
	want := nativeAnswers(t, tr)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, s *shimServer, why string) {
		t.Helper()
		for range 2 { // the search that met the failure, and a later one
			got := s.answers(t)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("fs_grep %v =\n%s\nwant\n%s", shimQueries[i], got[i], want[i])
				}
			}
		}
		if log := s.stderr.String(); s.fellBack() != 1 || !strings.Contains(log, why) {
			t.Errorf("want exactly one line saying searches use the native scanner because %q; stderr:\n%s", why, log)
		}
	}

	erring := filepath.Join(base, "erring")
	os.MkdirAll(erring, 0o755)
	write(t, filepath.Join(erring, "rg"), "#!/bin/sh\necho 'No version is set for command rg' >&2\nexit 126\n")
	os.Chmod(filepath.Join(erring, "rg"), 0o755)
	t.Run("a shim that errors", func(t *testing.T) {
		check(t, startWithRGIn(t, erring, tr.root), "No version is set for command rg")
	})

	foreign := filepath.Join(base, "foreign")
	os.MkdirAll(foreign, 0o755)
	badELF(t, filepath.Join(foreign, "rg"))
	t.Run("a binary it cannot execute", func(t *testing.T) {
		check(t, startWithRGIn(t, foreign, tr.root), "exec format error")
	})

	t.Run("--search-backend rg refuses to start", func(t *testing.T) {
		norg, _ := pathWithoutRg()
		for _, dir := range []string{erring, foreign} {
			cmd := exec.Command(binary, "--search-backend", "rg", tr.root)
			cmd.Env = append(os.Environ(), "PATH="+dir+":"+norg)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "cannot be used") {
				t.Errorf("%s: %v, %s; want status 2 saying why", dir, err, out)
			}
		}
	})

	t.Run("replaced while serving", func(t *testing.T) {
		later := filepath.Join(base, "later")
		os.MkdirAll(later, 0o755)
		copyFile(t, rg, filepath.Join(later, "rg"), 0o755)
		s := startWithRGIn(t, later, tr.root)
		if got := mustCall(t, s.cs, "fs_grep", shimQueries[0]); got != want[0] || s.fellBack() != 0 {
			t.Fatalf("before the replacement: %s (stderr %s)", got, s.stderr)
		}
		badELF(t, filepath.Join(later, "rg"))
		check(t, s, "exec format error")
	})

	t.Run("replaced while serving, --search-backend rg", func(t *testing.T) {
		dir := filepath.Join(base, "later-rg")
		os.MkdirAll(dir, 0o755)
		copyFile(t, rg, filepath.Join(dir, "rg"), 0o755)
		s := startWithRGIn(t, dir, "--search-backend", "rg", tr.root)
		mustCall(t, s.cs, "fs_grep", shimQueries[0])
		badELF(t, filepath.Join(dir, "rg"))
		mustFail(t, s.cs, "fs_grep", shimQueries[0], "cannot run: ")
		if s.fellBack() != 0 {
			t.Errorf("an explicit rg fell back:\n%s", s.stderr)
		}
	})
}

// TestRGChainInARootNeverRuns: nothing of rg's chain that lies in an
// allowed directory runs, confined or not: a shim placed in a root (first
// on PATH), a shim outside that hands over to a program in a root, and a
// real binary in a root a client names; and the shim outside, run once
// to see what it hands over to, can write nothing. Each leaves the
// searches to the native scanner and says so.
func TestRGChainInARootNeverRuns(t *testing.T) {
	rg := realRG(t)
	tr := newTree(t)
	want := nativeAnswers(t, tr)
	canary := func(name string) string { return filepath.Join(tr.outside, name) }
	planted := func(path, canaryName string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		write(t, path, "#!/bin/sh\ntouch "+canary(canaryName)+"\nexec "+rg+" \"$@\"\n")
		os.Chmod(path, 0o755)
	}
	noCanaries := func(t *testing.T) {
		t.Helper()
		for _, n := range []string{"ran-in-root", "probe-wrote", "target-in-root"} {
			if _, err := os.Stat(canary(n)); err == nil {
				t.Errorf("%s exists: a program ran where it must not, or wrote", canary(n))
			}
		}
	}
	answersNative := func(t *testing.T, s *shimServer, why string) {
		t.Helper()
		got := s.answers(t)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("fs_grep %v =\n%s\nwant\n%s", shimQueries[i], got[i], want[i])
			}
		}
		if log := s.stderr.String(); s.fellBack() != 1 || !strings.Contains(log, why) {
			t.Errorf("want one line saying why (%q); stderr:\n%s", why, log)
		}
	}

	t.Run("a shim in a root", func(t *testing.T) {
		shims := filepath.Join(tr.root, "node_modules", ".bin")
		planted(filepath.Join(shims, "rg"), "ran-in-root")
		defer os.RemoveAll(filepath.Join(tr.root, "node_modules"))
		answersNative(t, startWithRGIn(t, shims, tr.root), "lies in the allowed directory "+tr.root)
		norg, _ := pathWithoutRg()
		cmd := exec.Command(binary, "--search-backend", "rg", tr.root)
		cmd.Env = append(os.Environ(), "PATH="+shims+":"+norg)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "lies in the allowed directory") {
			t.Errorf("--search-backend rg with rg in a root: %v, %s; want status 2", err, out)
		}
		noCanaries(t)
	})

	t.Run("a shim that hands over into a root", func(t *testing.T) {
		shims := filepath.Join(tr.base, "shims")
		os.MkdirAll(shims, 0o755)
		target := filepath.Join(tr.root, "tools", "rg")
		planted(target, "target-in-root")
		defer os.RemoveAll(filepath.Join(tr.root, "tools"))
		write(t, filepath.Join(shims, "rg"), "#!/bin/sh\ntouch "+canary("probe-wrote")+"\nexec "+target+" \"$@\"\n")
		os.Chmod(filepath.Join(shims, "rg"), 0o755)
		answersNative(t, startWithRGIn(t, shims, tr.root), "cannot be used")
		noCanaries(t)
	})

	t.Run("a binary in a root a client names", func(t *testing.T) {
		tools := filepath.Join(tr.base, "tools")
		os.MkdirAll(tools, 0o755)
		copyFile(t, rg, filepath.Join(tools, "rg"), 0o755)
		write(t, filepath.Join(tools, "notes.txt"), needle+" in tools\n")
		s := startWithRGIn(t, tools) // no DIR: the roots come with each call
		meta := map[string]any{"allowed_dirs": []string{tools}}
		// The agent, now able to write the directory, replaces the binary:
		// were it run, that would fail as an exec, not as a refusal.
		badELF(t, filepath.Join(tools, "rg"))
		for range 2 {
			res, err := callRaw(s.cs, "fs_grep", map[string]any{"pattern": needle, "path": tools}, meta)
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != filepath.Join(tools, "notes.txt") {
				t.Fatalf("fs_grep in the client's root: %+v, %v", res, err)
			}
		}
		log := s.stderr.String()
		if strings.Count(log, "rg is not run for a search whose allowed directories hold it") != 1 || strings.Contains(log, "exec format error") {
			t.Errorf("want one line saying rg is not run there, and no attempt to run it; stderr:\n%s", log)
		}
	})
}

// TestRGProbeCannotHangTheStart: an rg on PATH that is a shim starting a
// helper in a session of its own (setsid, as a version manager's
// background helper does) cannot hang the start. The probe used to wait
// on the shim's process group alone: the helper sat stopped at its exec,
// never continued nor killed, holding the probe's output open, and
// fsmcp never answered initialize. Now every process the probe follows
// is waited on, and its timeout ends them all: the start goes on with
// the native scanner (the same answers) and one line on stderr, and
// nothing the shim started is left running.
func TestRGProbeCannotHangTheStart(t *testing.T) {
	attack(t)
	tr := newTree(t)
	want := nativeAnswers(t, tr)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	helper := "fsmcp-shim-helper-" + filepath.Base(base)
	for _, c := range []struct{ name, body, why string }{
		// Both sleeps exit at once on the bad argument.
		{"a helper that exits at once", "(setsid sleep 300 X &); sleep 300 X", "rg --version failed"},
		{"a helper that runs on", "(setsid /bin/bash -c 'exec -a " + helper + " sleep 300' &); exec rg \"$@\"", "rg --version did not end within"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(base, strings.ReplaceAll(c.name, " ", "-"))
			os.MkdirAll(dir, 0o755)
			norg, err := pathWithoutRg()
			if err != nil {
				t.Fatal(err)
			}
			rg := realRG(t)
			write(t, filepath.Join(dir, "rg"), "#!/bin/bash\nPATH="+filepath.Dir(rg)+":"+norg+"\n"+c.body+"\n")
			os.Chmod(filepath.Join(dir, "rg"), 0o755)
			s := startWithRGIn(t, dir, tr.root) // fails the test if initialize is not answered within a minute
			got := s.answers(t)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("fs_grep %v =\n%s\nwant\n%s", shimQueries[i], got[i], want[i])
				}
			}
			if log := s.stderr.String(); s.fellBack() != 1 || !strings.Contains(log, c.why) {
				t.Errorf("want one line saying searches use the native scanner because %q; stderr:\n%s", c.why, log)
			}
			if pids := procsNamed(helper); len(pids) > 0 {
				t.Errorf("the shim's helper %s is still running (pids %v)", helper, pids)
			}
		})
	}
}

// procsNamed lists the processes whose command line starts with name.
func procsNamed(name string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(b), name) {
			out = append(out, e.Name())
		}
	}
	return out
}
