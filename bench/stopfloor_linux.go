package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/fsmcp/fsmcp/shell"
)

// The stop floor: what one seccomp stop costs on this machine apart from
// what fsmcp's supervisor does at it. The journal stops a command at
// every open for writing (see shell/trace_linux.go), so a command that
// creates many small files pays a stop per file; this row times bash
// writing stopFloorFiles files with echo three ways:
//   - bare: no filter;
//   - answered at once: a filter stopping each open for writing, and a
//     supervisor that answers each stop at once, reading nothing, its
//     receive a raw system call (the Go runtime not told, which a server
//     cannot afford: a receive that blocks so would hold up every
//     stop of the world). The least any supervisor can cost, in C or in
//     Go: the kernel's own price of a stop on this machine;
//   - fsmcp run: the journal itself.
//
// The supervisor that answers at once is a child of the bench (the
// bench's binary run again, FSMCP_BENCH_STOP set), so nothing else of
// the bench runs beside it.

// stopFloorFiles is how many files each run writes, and stopFloorLimit
// how long a run may take before it is killed.
const (
	stopFloorFiles = 20000
	stopFloorLimit = 5 * time.Minute
)

// The child's environment: set to run as the supervisor, the number of
// stops to answer with a raw receive, and bash's script.
const (
	stopEnvChild  = "FSMCP_BENCH_STOP"
	stopEnvN      = "FSMCP_BENCH_STOP_N"
	stopEnvScript = "FSMCP_BENCH_STOP_SCRIPT"
)

func stopFloorRows(bin string, runs int) {
	dir, err := os.MkdirTemp("", "fsmcp-bench-stop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: stop floor:", err)
		return
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: stop floor:", err)
		return
	}
	script := func(d string) string {
		return fmt.Sprintf("cd %s && for i in $(seq %d); do echo $i > f$i; done", d, stopFloorFiles)
	}
	type variant struct {
		name string
		cmd  func(d string) *exec.Cmd
	}
	variants := []variant{
		{"bare", func(d string) *exec.Cmd { return exec.Command("bash", "-c", script(d)) }},
		{"a stop answered at once", func(d string) *exec.Cmd {
			cmd := exec.Command(self)
			cmd.Env = append(os.Environ(), stopEnvChild+"=1", stopEnvN+"="+strconv.Itoa(stopFloorFiles), stopEnvScript+"="+script(d))
			return cmd
		}},
		{"fsmcp run (the journal)", func(d string) *exec.Cmd {
			cmd := exec.Command(bin, "run", "--dir", d, "--", "bash", "-c", script(d))
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
			return cmd
		}},
	}
	times := make([][]time.Duration, len(variants))
	for r := range runs + 1 { // the first round warms up
		for i, v := range variants {
			d := filepath.Join(dir, fmt.Sprintf("w%d-%d", r, i))
			if err := os.Mkdir(d, 0o755); err != nil {
				fmt.Fprintln(os.Stderr, "bench: stop floor:", err)
				return
			}
			cmd := v.cmd(d)
			cmd.Stderr = os.Stderr
			// A child whose bash ended early would wait in its raw
			// receive for good: each run is bounded.
			cmd.WaitDelay = time.Second
			t0 := time.Now()
			err := cmd.Start()
			if err == nil {
				timer := time.AfterFunc(stopFloorLimit, func() { cmd.Process.Kill() })
				err = cmd.Wait()
				timer.Stop()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: stop floor:", v.name, err)
				return
			}
			if r > 0 {
				times[i] = append(times[i], time.Since(t0))
			}
			os.RemoveAll(d)
		}
	}
	fsType := "?"
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) == nil {
		fsType = map[int64]string{unix.TMPFS_MAGIC: "tmpfs", unix.EXT4_SUPER_MAGIC: "ext4"}[int64(st.Type)]
	}
	bare := median(times[0])
	perFile := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 / stopFloorFiles }
	fmt.Printf("stop floor: bash writing %d files with echo, one stop each (%s, median of %d):\n", stopFloorFiles, fsType, runs)
	for i, v := range variants {
		m := median(times[i])
		fmt.Printf("  %-24s %8.1f ms  %5.1f µs a file  +%5.1f µs  %.2fx\n", v.name, ms(m), perFile(m), perFile(m)-perFile(bare), float64(m)/float64(bare))
	}
}

// maybeStopChild is the child of a stop-floor row: where the bench was
// run as one, it serves that row and exits.
func maybeStopChild() {
	if os.Getenv(stopEnvChild) == "" {
		return
	}
	n, _ := strconv.Atoi(os.Getenv(stopEnvN))
	if err := stopChild(n, os.Getenv(stopEnvScript)); err != nil {
		fmt.Fprintln(os.Stderr, "bench: stop floor child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// stopChild runs bash with the script under a filter stopping each open
// for writing, and answers the first n stops at once with a raw receive,
// the rest with an ordinary one until bash ends (a raw receive blocked
// after bash had ended would block the collector for good).
func stopChild(n int, script string) error {
	cmd := exec.Command("bash", "-c", script)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	type installed struct {
		fd  int
		err error
	}
	got := make(chan installed, 1)
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the filter ends with this thread
		fd, err := installOpenFilter()
		got <- installed{fd, err}
		if err == nil {
			started <- cmd.Start()
		}
	}()
	in := <-got
	if in.err != nil {
		return in.err
	}
	if err := <-started; err != nil {
		return err
	}
	l := uintptr(in.fd)
	unix.Syscall(unix.SYS_IOCTL, l, unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	answer := func(recv func(trap, a1, a2, a3 uintptr) (uintptr, uintptr, unix.Errno)) bool {
		var nt [80]byte // struct seccomp_notif
		if _, _, e := recv(unix.SYS_IOCTL, l, unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&nt[0]))); e != 0 {
			return e == unix.EINTR || e == unix.ENOENT
		}
		var resp [24]byte // struct seccomp_notif_resp: id, val, error, flags
		copy(resp[:8], nt[:8])
		*(*uint32)(unsafe.Pointer(&resp[20])) = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
		unix.RawSyscall(unix.SYS_IOCTL, l, unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp[0])))
		return true
	}
	for range n {
		if !answer(unix.RawSyscall) {
			break
		}
	}
	go func() { // any stop past n: answered the way a server can
		for answer(unix.Syscall) {
		}
	}()
	return cmd.Wait()
}

// installOpenFilter installs, on the calling thread, a filter stopping
// every openat with a write flag, and returns its listener.
func installOpenFilter() (int, error) {
	const writeFlags = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_OPENAT, Jf: 3},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 16 + 8*2}, // flags
		{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: writeFlags, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	return shell.InstallListener(prog)
}
