package shell

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Where bwrap is missing, fsmcp builds the shell's namespaces itself: the
// helper is started in a new user, mount, IPC and UTS namespace
// (CLONE_NEWUSER maps fsmcp's uid and gid to themselves) and, before
// Landlock, builds a private root as bwrap would (buildRoot). It has no
// pid namespace of its own (Go cannot join one per call), so /proc is the
// host's, bound in, and stays denied by Landlock; background processes
// are held by the command's keeper (keeper_linux.go), which the helper
// started in the namespaces is before it starts the command below it.

// probeGo runs the helper once in namespaces of its own, with a private
// root, and bash in it.
func probeGo() error {
	helper, err := sealedHelper()
	if err != nil {
		return err
	}
	bash, err := lookPath("bash", os.Getenv("PATH"))
	if err != nil {
		bash = "/bin/bash"
	}
	dir, err := os.MkdirTemp("", "fsmcp-shell-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return err
	}
	nr, tmp := filepath.Join(dir, "root"), filepath.Join(dir, "tmp")
	for _, d := range []string{nr, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	pol := policy{RW: []string{tmp}, RX: systemRX, RO: systemRO, Dev: systemDev,
		Mount: &mountPlan{Dir: nr, RO: append(append([]string{}, systemRX...), systemRO...), Tmp: tmp, Cwd: tmp}}
	argv, err := sandboxCommand(helperPath(3), pol, []string{bash, "--noprofile", "--norc", "-c", "cd " + tmp + " && test ! -e " + dir + "/root"})
	if err != nil {
		return err
	}
	out := &lastBytes{limit: 4096}
	cmd := &exec.Cmd{Path: argv[0], Args: argv, Stdout: out, Stderr: out, Dir: tmp, ExtraFiles: []*os.File{helper}, SysProcAttr: nsSysProcAttr()}
	if err := runBounded(cmd, time.Minute); err != nil {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out.buf))
	}
	return nil
}

// nsSysProcAttr is sysProcAttr with the helper's new namespaces.
func nsSysProcAttr() *syscall.SysProcAttr {
	a := sysProcAttr()
	a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
	// The new user namespace gives the child every capability in it, but
	// an exec as any uid but 0 clears them: the helper keeps the two it
	// needs to build the private root and then drop them all.
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	return a
}

// buildRoot makes the private root of m and moves the helper into it: a
// tmpfs holding the system paths read-only, a fresh /dev of harmless
// devices, the host's /proc, an empty /tmp with the session's temp dir,
// and the roots read-write (from the inherited descriptors where given).
// The helper then drops every capability the new user namespace gave
// (dropCapabilities), so that nothing the shell runs, even as uid 0
// there, has any.
func buildRoot(m mountPlan) error {
	must := func(what string, err error) error {
		if err != nil {
			return fmt.Errorf("private root: %s: %w", what, err)
		}
		return nil
	}
	if err := must("make mounts private", unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")); err != nil {
		return err
	}
	nr := m.Dir
	if err := must("tmpfs", unix.Mount("tmpfs", nr, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755")); err != nil {
		return err
	}
	bind := func(src, dst string, ro bool) error {
		fi, err := os.Stat(src)
		if err != nil {
			return err
		}
		target := filepath.Join(nr, dst)
		if fi.IsDir() {
			err = os.MkdirAll(target, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
			var f *os.File
			if f, err = os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
		if err != nil {
			return err
		}
		if err := unix.Mount(src, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return err
		}
		if !ro {
			return nil
		}
		return remountReadOnly(target)
	}
	for _, p := range m.RO {
		fi, err := os.Lstat(p)
		if err != nil || !filepath.IsAbs(p) {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if target, err := os.Readlink(p); err == nil {
				if real, err := filepath.EvalSymlinks(p); err == nil && within(real, "/usr") && real != "/usr" {
					if err := os.MkdirAll(filepath.Dir(filepath.Join(nr, p)), 0o755); err != nil {
						return must(p, err)
					}
					if err := os.Symlink(target, filepath.Join(nr, p)); err != nil && !os.IsExist(err) {
						return must(p, err)
					}
					continue
				}
			}
		}
		if err := bind(p, p, true); err != nil && !os.IsNotExist(err) {
			return must(p, err)
		}
	}
	// The host's own device nodes, bound read-only: writing and reading
	// them is device I/O, which a read-only mount allows, while their
	// mode, owner and times cannot change (fsmcp as root owns them).
	for _, d := range systemDev {
		if err := bind(d, d, true); err != nil {
			return must(d, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(nr, "dev", name)); err != nil {
			return must("/dev/"+name, err)
		}
	}
	if err := bind("/proc", "/proc", false); err != nil {
		return must("/proc", err)
	}
	if err := os.MkdirAll(filepath.Join(nr, "tmp"), 0o1777); err != nil {
		return must("/tmp", err)
	}
	if err := must("/tmp", os.Chmod(filepath.Join(nr, "tmp"), 0o1777)); err != nil {
		return err
	}
	if err := bind(m.Tmp, m.Tmp, false); err != nil {
		return must(m.Tmp, err)
	}
	roots := append([]fdDir{}, m.Roots...)
	sort.SliceStable(roots, func(a, b int) bool { return len(roots[a].Name) < len(roots[b].Name) })
	for _, r := range roots {
		if r.FD < 0 {
			if err := bind(r.Name, r.Name, false); err != nil && !os.IsNotExist(err) {
				return must(r.Name, err)
			}
			continue
		}
		// A descriptor from fsmcp's mount namespace cannot be a bind
		// source here (EINVAL); its path can, and what got mounted must
		// then be that very directory, or the call fails.
		src, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.FD))
		if err != nil {
			return must(r.Name, err)
		}
		if err := bind(src, r.Name, false); err != nil {
			return must(r.Name, err)
		}
		var want, got unix.Stat_t
		if err := unix.Fstat(r.FD, &want); err != nil {
			return must(r.Name, err)
		}
		if err := unix.Stat(filepath.Join(nr, r.Name), &got); err != nil || got.Dev != want.Dev || got.Ino != want.Ino {
			return fmt.Errorf("allowed directory %s changed while the command was starting", r.Name)
		}
	}
	// pivot_root(".", "."): the old root ends up under the new one and is
	// detached at once.
	if err := must("chdir", unix.Chdir(nr)); err != nil {
		return err
	}
	if err := must("pivot_root", unix.PivotRoot(".", ".")); err != nil {
		return err
	}
	if err := must("detach the old root", unix.Unmount(".", unix.MNT_DETACH)); err != nil {
		return err
	}
	return must("chdir "+m.Cwd, unix.Chdir(m.Cwd))
}

// remountReadOnly makes the bind mount at target read-only (and nosuid),
// keeping the flags a user namespace cannot clear.
func remountReadOnly(target string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(target, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NOSUID)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if int64(st.Flags)&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return unix.Mount("", target, "", flags, "")
}

// dropCapabilities empties every capability set of the calling thread,
// which then execs the command: the ambient set, the bounding set (so
// that uid 0 regains nothing at exec) and the effective, permitted and
// inheritable sets. As root, bwrap keeps root's capabilities for the
// command (in its user namespace) unless told otherwise, and fsmcp's own
// namespaces give the helper all of them there.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("drop capabilities: ambient: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var held [2]unix.CapUserData
	if err := unix.Capget(&hdr, &held[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if held[0].Permitted|held[1].Permitted == 0 {
		// Nothing held (a user other than root, without namespaces or in
		// bwrap's): the bounding set cannot be changed without
		// CAP_SETPCAP, and need not be, since no_new_privs (set with
		// Landlock, before the exec) keeps an exec from granting more
		// than is held.
		return nil
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err != nil || in == 0 {
			continue // not in it, or unknown to this kernel
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("drop capabilities: bounding set: %w", err)
		}
	}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
