package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// libDirs hold the dynamic loader and the shared libraries a dynamically
// linked program needs (rg links libc, libgcc_s and libpcre2). They are
// readable by the program: a race can at most show it system libraries.
var libDirs = []string{"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32"}

// libFiles are read by the dynamic loader at start.
var libFiles = []string{"/etc/ld.so.cache"}

// abis are the file system rights each Landlock ABI handles, up to V5
// (ioctl on devices); later ABIs add no file system right a reading
// program needs refused.
var abis = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5}

func available() bool {
	v, err := llsys.LandlockGetABIVersion()
	return err == nil && v >= 1
}

// restrictThread restricts the calling thread, which must be locked to
// its goroutine and never unlocked, to p plus what exec of bin needs,
// and checks that the restriction took effect.
func restrictThread(p Policy, bin string) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return fmt.Errorf("no Landlock: %v", err)
	}
	handled := uint64(abis[min(abi, len(abis))-1].HandledAccessFS)
	ruleset, err := llsys.LandlockCreateRuleset(&llsys.RulesetAttr{HandledAccessFS: handled}, 0)
	if err != nil {
		return fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(ruleset)
	const read = llsys.AccessFSReadFile | llsys.AccessFSReadDir
	for _, r := range []struct {
		access uint64
		paths  []string
	}{
		{read, existing(p.Dirs, true)},
		{llsys.AccessFSReadFile, existing(p.Dirs, false)}, // a root that is one file
		{llsys.AccessFSReadFile, existing(p.Files, false)},
		{read | llsys.AccessFSExecute, existing(libDirs, true)},
		{llsys.AccessFSReadFile, existing(libFiles, false)},
		{llsys.AccessFSReadFile | llsys.AccessFSExecute, []string{bin}},
		{read | llsys.AccessFSExecute, existing(p.Exec, true)},
		{llsys.AccessFSReadFile | llsys.AccessFSExecute, existing(p.Exec, false)},
	} {
		for _, path := range r.paths {
			if err := addRule(ruleset, r.access&handled, path); err != nil {
				return err
			}
		}
	}
	if p.All {
		dirs, files := allBut(p.AllBut)
		for _, path := range dirs {
			// A directory that vanished since it was listed (another
			// program's temp directory in /tmp) stays out, as a file
			// does: less is allowed, never more.
			if err := addRule(ruleset, (read|llsys.AccessFSExecute)&handled, path); err != nil && !errors.Is(err, unix.ENOENT) {
				return err
			}
		}
		for _, path := range files {
			// A file that vanished or cannot be opened meanwhile stays
			// out: less is allowed, never more.
			_ = addRule(ruleset, (llsys.AccessFSReadFile|llsys.AccessFSExecute)&handled, path)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := llsys.LandlockRestrictSelf(ruleset, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	// Fail closed: "/" is in no rule, so listing it must now be denied
	// (under All, when nothing is excepted, "/" is the rule itself).
	if p.All && len(p.AllBut) == 0 {
		return nil
	}
	fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
		return errors.New("landlock did not take effect (/ is still readable)")
	}
	if !errors.Is(err, unix.EACCES) {
		return fmt.Errorf("landlock self-check: %w", err)
	}
	return nil
}

// addRule allows access beneath path (or to the file path).
func addRule(ruleset int, access uint64, path string) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	defer unix.Close(fd)
	if err := llsys.LandlockAddPathBeneathRule(ruleset, &llsys.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	return nil
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

// allBut returns the directories and files beneath which lies everything
// but what lies beneath the paths in except: on the way from / to each
// excepted path, every other entry of each directory passed. Symbolic
// links are left out (a path through one is allowed or not by where it
// leads), and so is what cannot be listed: less is allowed, never more.
func allBut(except []string) (dirs, files []string) {
	if len(except) == 0 {
		return []string{"/"}, nil
	}
	// toward[d] holds the names in directory d that lead to an excepted
	// path; excepted[p] marks the excepted paths themselves.
	toward := map[string]map[string]bool{}
	excepted := map[string]bool{}
	for _, e := range except {
		e = filepath.Clean(e)
		if !filepath.IsAbs(e) {
			continue
		}
		if e == "/" {
			return nil, nil
		}
		excepted[e] = true
		for d := e; d != "/"; d = filepath.Dir(d) {
			parent := filepath.Dir(d)
			if toward[parent] == nil {
				toward[parent] = map[string]bool{}
			}
			toward[parent][filepath.Base(d)] = true
		}
	}
	var walk func(dir string)
	walk = func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			switch {
			case excepted[path]:
			case toward[dir][e.Name()]:
				if e.Type()&fs.ModeSymlink == 0 && e.IsDir() {
					walk(path)
				}
			case e.Type()&fs.ModeSymlink != 0:
			case e.IsDir():
				dirs = append(dirs, path)
			default:
				files = append(files, path)
			}
		}
	}
	walk("/")
	return dirs, files
}
