package shell

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// holderRole is how TestKilledServerLeavesNoHolder tells the copies of
// the test binary it runs what they are.
const holderRole = "FSMCP_TEST_HOLDER_ROLE"

// TestKilledServerLeavesNoHolder: a server killed (SIGKILL, nothing runs
// after it) at any moment while it starts session holders leaves no
// process behind. bwrap clones its child and holds it until the child's
// id maps are written; a bwrap that died in between, by a parent-death
// signal or a write to a dead reader, used to leave that child blocked
// for good, outside any namespace that would end it. A reaper (a child
// subreaper, so every orphan below it becomes its child) starts a victim
// that starts holders in a loop, kills it at a random moment, and waits
// for every descendant to exit.
func TestKilledServerLeavesNoHolder(t *testing.T) {
	switch os.Getenv(holderRole) {
	case "victim":
		startHoldersUntilKilled(t)
		return
	case "reaper":
		killVictimsAndReap(t, 60)
		return
	}
	requireNamespaces(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledServerLeavesNoHolder$", "-test.v")
	cmd.Env = append(os.Environ(), holderRole+"=reaper")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reaper: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "victims killed: 60") {
		t.Fatalf("reaper did not finish:\n%s", out)
	}
}

// startHoldersUntilKilled says "ready" once bwrap is probed, then starts
// holders (never stopping one) until it is killed.
func startHoldersUntilKilled(t *testing.T) {
	bw, why := namespaces()
	if bw == nil {
		t.Fatal(why)
	}
	helper, err := sealedHelper()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	for {
		// Each holder is left running: the kill finds several.
		if _, err := startHolder(bw, helper, policy{RX: systemRX, RO: systemRO}); err != nil {
			t.Fatal(err)
		}
	}
}

func killVictimsAndReap(t *testing.T, rounds int) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	for range rounds {
		v := exec.Command(os.Args[0], "-test.run=^TestKilledServerLeavesNoHolder$")
		v.Env = append(os.Environ(), holderRole+"=victim")
		out, err := v.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			t.Fatalf("victim: %q %v", line, err)
		}
		// Where the kill lands among the holders' starts; not a wait
		// for anything.
		time.Sleep(time.Duration(rand.IntN(30_000)) * time.Microsecond)
		unix.Kill(v.Process.Pid, unix.SIGKILL)
		// Every descendant that outlives the victim is now ours; each
		// must exit by itself. The minute only bounds a hang.
		timer := time.AfterFunc(time.Minute, func() {
			fmt.Printf("left behind after a minute:\n%s", childrenOf(os.Getpid()))
			os.Exit(3)
		})
		for {
			_, err := unix.Wait4(-1, nil, 0, nil)
			if errors.Is(err, unix.ECHILD) {
				break
			}
		}
		timer.Stop()
	}
	fmt.Printf("victims killed: %d\n", rounds)
}

// childrenOf lists the processes whose parent is pid, with their command
// lines and where they wait.
func childrenOf(pid int) string {
	var b strings.Builder
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		status, err := os.ReadFile(d + "/status")
		if err != nil || !strings.Contains(string(status), "\nPPid:\t"+strconv.Itoa(pid)+"\n") {
			continue
		}
		cmdline, _ := os.ReadFile(d + "/cmdline")
		wchan, _ := os.ReadFile(d + "/wchan")
		fmt.Fprintf(&b, "  %s %q (waiting in %s)\n", filepath.Base(d), strings.ReplaceAll(string(cmdline), "\x00", " "), wchan)
	}
	return b.String()
}
