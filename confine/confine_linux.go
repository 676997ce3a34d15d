package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// libDirs hold the dynamic loader and the shared libraries a dynamically
// linked program needs (rg links libc, libgcc_s and libpcre2). They are
// readable by the program: a race can at most show it system libraries.
var libDirs = []string{"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32"}

// libFiles are read by the dynamic loader at start.
var libFiles = []string{"/etc/ld.so.cache"}

func available() bool {
	v, err := llsys.LandlockGetABIVersion()
	return err == nil && v >= 1
}

// restrictAndExec applies p plus what exec needs, checks that the
// confinement took effect and execs argv.
func restrictAndExec(p Policy, argv []string) error {
	bin := argv[0]
	if !filepath.IsAbs(bin) {
		return fmt.Errorf("program %q is not an absolute path", bin)
	}
	const read = llsys.AccessFSReadFile | llsys.AccessFSReadDir
	rules := []landlock.Rule{
		landlock.PathAccess(read, existing(p.Dirs, true)...),
		landlock.PathAccess(llsys.AccessFSReadFile, existing(p.Dirs, false)...), // a root that is one file
		landlock.PathAccess(llsys.AccessFSReadFile, existing(p.Files, false)...),
		landlock.PathAccess(read|llsys.AccessFSExecute, existing(libDirs, true)...),
		landlock.PathAccess(llsys.AccessFSReadFile, existing(libFiles, false)...),
		landlock.PathAccess(llsys.AccessFSReadFile|llsys.AccessFSExecute, bin),
	}
	cfg := landlock.V5.BestEffort()
	if err := cfg.RestrictPaths(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	// Fail closed: "/" is in no rule, so listing it must now be denied.
	if f, err := os.Open("/"); err == nil {
		f.Close()
		return errors.New("landlock did not take effect (/ is still readable)")
	} else if !errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("landlock self-check: %w", err)
	}
	return syscall.Exec(bin, argv, os.Environ())
}

// existing keeps the paths that exist and are directories (dirs) or not.
func existing(paths []string, dirs bool) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() == dirs {
			out = append(out, p)
		}
	}
	return out
}
