package integration

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
)

// fuzzSeeds are the seeds make test runs: a fixed list, so a failure there
// is a failure every time. FSMCP_FUZZ_SEEDS=N runs N random seeds instead
// (the hunt), FSMCP_FUZZ_SEED=S replays one.
var fuzzSeeds = []uint64{
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
}

// fuzzDirs, fuzzFiles and fuzzLinks are the small namespace the random
// commands work in, so that they collide: the same few names made,
// removed, renamed over each other and made again, the fixture's own
// files among them.
var (
	fuzzDirs  = []string{"a", "b", "a/c", "b/c", "d", "tree", "tree/deep", "tree/empty", "l", "a/l/c"}
	fuzzFiles = []string{
		"x", "y", "z", "a/x", "a/y", "b/x", "b/z", "a/c/x", "a/c/y", "b/c/z", "d/x",
		"f.txt", "suid.sh", "tree/a.txt", "tree/deep/b.bin", "tree/link", "sock",
		"l/x", "l/c/y", "a/l/x", // through links to directories
	}
	fuzzLinks = []string{"l", "a/l", "b/l", "tree/link", "y"}
	// FIFOs have names of their own, that nothing writes to: opening
	// one for writing (echo >, truncate, cp onto it) waits for a reader
	// that never comes. Directories moved, copied or swapped carry them
	// along, still under a name no write names.
	fuzzFifos   = []string{"p", "a/p", "b/c/p"}
	fuzzTargets = []string{"a", "b", "a/c", "../b", "c", "x", "../x", "nowhere", "tree", "."}
)

// fuzzOp is one operation of a random command: a line of bash that may
// fail (the script runs with set +e, each line ends with || true).
type fuzzOp func(r *rand.Rand) string

func pick(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

// fuzzAny is a name of any kind.
func fuzzAny(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return pick(r, fuzzDirs)
	}
	return pick(r, fuzzFiles)
}

func fuzzWord(r *rand.Rand) string {
	return pick(r, []string{"q", "w", "hello", "0123456789abcdef", "''"})
}

var fuzzOps = []fuzzOp{
	func(r *rand.Rand) string { return "mkdir -p " + pick(r, fuzzDirs) },
	func(r *rand.Rand) string { return "mkdir " + pick(r, fuzzDirs) },
	func(r *rand.Rand) string { return "rm -rf " + fuzzAny(r) },
	func(r *rand.Rand) string { return "rm -f " + pick(r, fuzzFiles) },
	func(r *rand.Rand) string { return "rmdir " + pick(r, fuzzDirs) },
	func(r *rand.Rand) string { return "mv " + fuzzAny(r) + " " + fuzzAny(r) },
	func(r *rand.Rand) string { return "mv -T " + fuzzAny(r) + " " + fuzzAny(r) },
	func(r *rand.Rand) string { return "cp -r " + fuzzAny(r) + " " + fuzzAny(r) },
	func(r *rand.Rand) string { return "cp -a " + fuzzAny(r) + " " + fuzzAny(r) },
	func(r *rand.Rand) string { return "ln -sfn " + pick(r, fuzzTargets) + " " + pick(r, fuzzLinks) },
	func(r *rand.Rand) string { return "echo " + fuzzWord(r) + " > " + pick(r, fuzzFiles) },
	func(r *rand.Rand) string { return "echo " + fuzzWord(r) + " >> " + pick(r, fuzzFiles) },
	func(r *rand.Rand) string {
		return "truncate -s " + pick(r, []string{"0", "1", "3", "100", "70000"}) + " " + pick(r, fuzzFiles)
	},
	func(r *rand.Rand) string {
		return "chmod " + pick(r, []string{"700", "755", "600", "644", "4755", "g+s", "u-s", "o-r", "555", "0"}) + " " + fuzzAny(r)
	},
	func(r *rand.Rand) string { return "touch -d 2001-01-01 " + fuzzAny(r) },
	func(r *rand.Rand) string { return "touch " + pick(r, fuzzFiles) },
	func(r *rand.Rand) string { return ": > " + pick(r, fuzzFiles) },
	func(r *rand.Rand) string { return "mkfifo " + pick(r, fuzzFifos) },
	func(r *rand.Rand) string {
		return pick(r, []string{"mv", "rm -f", "chmod 600", "touch -d 2001-01-01", "ln"}) + " " + pick(r, fuzzFifos) + " " + pick(r, fuzzFifos)
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf(`python3 -c "import os; os.%s('%s', '%s')"`, pick(r, []string{"replace", "rename"}), fuzzAny(r), fuzzAny(r))
	},
	func(r *rand.Rand) string {
		// renameat2 RENAME_EXCHANGE: two names swap, of any kinds.
		return fmt.Sprintf(`python3 -c "import ctypes; ctypes.CDLL(None).renameat2(-100, b'%s', -100, b'%s', 2)"`, fuzzAny(r), fuzzAny(r))
	},
	// The working directory changes: relative names resolve from it.
	func(r *rand.Rand) string {
		return "cd " + pick(r, fuzzDirs) + " && echo " + fuzzWord(r) + " > " + pick(r, []string{"x", "y", "c/x"}) + `; cd "$R"`
	},
	func(r *rand.Rand) string {
		return "cd " + pick(r, fuzzDirs) + " && " + pick(r, []string{"rm -rf c", "mkdir -p c", "mv x c", "ln -sfn .. l"}) + `; cd "$R"`
	},
	// The working directory renamed or removed under the shell, then
	// written relative to it.
	func(r *rand.Rand) string {
		d, e := pick(r, fuzzDirs), pick(r, fuzzDirs)
		return "cd " + d + ` && mv "$R/` + d + `" "$R/` + e + `"; echo m > x; cd "$R"`
	},
	func(r *rand.Rand) string {
		d := pick(r, fuzzDirs)
		return "cd " + d + ` && rm -rf "$R/` + d + `" && mkdir -p "$R/` + d + `"; echo m > x; cd "$R"`
	},
	// Writes through a link to a directory.
	func(r *rand.Rand) string {
		return "ln -sfn " + pick(r, []string{"a", "b", "a/c", "tree"}) + " l && echo " + fuzzWord(r) + " > l/" + pick(r, []string{"x", "y", "c/x"})
	},
	// Names with ".." after a link: the kernel takes the link first.
	func(r *rand.Rand) string {
		return pick(r, []string{"echo w >", "mkdir -p", "rm -rf", "touch", "chmod 700"}) + " " + pick(r, []string{"l", "a/l", "b/l", "tree/link"}) + "/../" + pick(r, []string{"x", "c", "c/x", "../x", "a.txt"})
	},
	// A directory made, removed and made again, written inside.
	func(r *rand.Rand) string {
		d := pick(r, fuzzDirs)
		return "mkdir -p " + d + " && rm -rf " + d + " && mkdir -p " + d + " && echo n > " + d + "/" + pick(r, []string{"x", "y"})
	},
	// A directory renamed away, another made at its name and written.
	func(r *rand.Rand) string {
		d := pick(r, fuzzDirs)
		return "mv " + d + " " + pick(r, fuzzDirs) + " && mkdir " + d + " && echo n > " + d + "/x"
	},
	// A descriptor kept open across a rename or a removal, written after.
	func(r *rand.Rand) string {
		f := pick(r, fuzzFiles)
		return "exec 3>>" + f + " && " + pick(r, []string{"mv " + f + " " + pick(r, fuzzFiles), "rm -f " + f, "rm -rf " + pick(r, fuzzDirs)}) + "; echo fd >&3; exec 3>&-"
	},
	// A tree made deep at once.
	func(r *rand.Rand) string {
		d := pick(r, fuzzDirs)
		return "mkdir -p " + d + "/c && echo t > " + d + "/c/x && echo u > " + d + "/y"
	},
}

// fuzzLastOps make hard links, and only the last call has them. A file
// given a second name in one entry and written through either name in a
// later one cannot be put back by the later entry's undo: it restores the
// name written through as a new file and leaves the other name holding
// the write (by design, journal/linked.go: an undo never writes a file in
// place, since another name of it may lie outside the roots), so the
// earlier entry then finds that name changed since and is refused.
// Within one entry the journal follows the link (Linked) and the undo is
// whole.
var fuzzLastOps = []fuzzOp{
	func(r *rand.Rand) string { return "ln " + pick(r, fuzzFiles) + " " + pick(r, fuzzFiles) },
	// A hard link made, then the directory holding the original removed.
	func(r *rand.Rand) string {
		d := pick(r, fuzzDirs)
		return "mkdir -p " + d + " && echo o > " + d + "/x && ln " + d + "/x " + pick(r, fuzzFiles) + " && rm -rf " + d
	},
}

// fuzzScript is a random command of 10 to 40 operations split into 1 to 3
// fs_bash calls: each call is one journal entry, so the undo walks several.
func fuzzScript(seed uint64) [][]string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	n := 10 + r.IntN(31)
	k := 1 + r.IntN(3)
	cuts := map[int]bool{}
	for len(cuts) < k-1 {
		cuts[1+r.IntN(n-1)] = true
	}
	calls := [][]string{nil}
	for i := range n {
		if cuts[i] {
			calls = append(calls, nil)
		}
		ops := fuzzOps
		if len(calls) == k {
			ops = append(ops[:len(ops):len(ops)], fuzzLastOps...)
		}
		calls[len(calls)-1] = append(calls[len(calls)-1], ops[r.IntN(len(ops))](r))
	}
	return calls
}

// fuzzCommand is one call's bash command, run from root.
func fuzzCommand(root string, ops []string) string {
	var b strings.Builder
	b.WriteString("cd " + root + " && set +e\nR=$PWD\n")
	for _, op := range ops {
		b.WriteString("{ " + op + "; } 2>/dev/null || true\n")
	}
	return b.String()
}

// fuzzListing is the script as it can be replayed: the calls, one after
// the other, the ops of each one a line.
func fuzzListing(calls [][]string) string {
	var b strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&b, "--- call %d\n", i+1)
		for _, op := range c {
			b.WriteString(op + "\n")
		}
	}
	return b.String()
}

// fuzzParse reads a listing back (FSMCP_FUZZ_SCRIPT=FILE replays one,
// edited by hand).
func fuzzParse(s string) [][]string {
	var calls [][]string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "--- call"):
			calls = append(calls, nil)
		case line != "" && len(calls) > 0:
			calls[len(calls)-1] = append(calls[len(calls)-1], line)
		}
	}
	return calls
}

// fuzzRun runs the calls through the built binary with the shell mode
// (each call under a server of its own when restarts, else all under
// one), restarts, undoes every entry history lists and returns what is
// wrong ("" when the tree is as before).
func fuzzRun(t *testing.T, shellMode string, calls [][]string, restarts bool) string {
	root := undoFixture(t)
	// A random chmod 0 may leave a directory that t.TempDir cannot
	// remove when the undo failed: open everything up first.
	t.Cleanup(func() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o700)
			}
			return nil
		})
	})
	before := treeState(t, root)
	cs := connectStdioEnv(t, mode{"path", os.Getenv("PATH")}, nil, "--shell", shellMode, root)
	for i, c := range calls {
		if restarts && i > 0 {
			cs.Close()
			cs = connectStdioEnv(t, mode{"path", os.Getenv("PATH")}, nil, "--shell", shellMode, root)
		}
		// A command that hangs (a write that waits on a FIFO) is cut off
		// soon, and fails the run.
		res, err := callRaw(cs, "fs_bash", args("command", fuzzCommand(root, c), "timeout", 20000), nil)
		if err != nil {
			return fmt.Sprintf("call %d: %v", i+1, err)
		}
		if res.IsError || strings.Contains(testenv.Text(res), "Command timed out") {
			return fmt.Sprintf("call %d: %s", i+1, testenv.Text(res))
		}
	}
	cs.Close()
	hist, err := exec.Command(binary, "history", root).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("fsmcp history: %v\n%s", err, hist)
	}
	h := strings.TrimSpace(string(hist))
	if h == "" || strings.Contains(h, "no changes") {
		// A step whose changes all came back (cp -a tree d; rm -rf d) is
		// no entry, by design (journal/step.go, noop): only directories'
		// times may differ then.
		if d := testenv.StateDiff(dirTimesOut(before), dirTimesOut(treeState(t, root))); d != "" {
			return fmt.Sprintf("history lists nothing but the tree changed:\n%s\nhistory:\n%s", d, hist)
		}
		return ""
	}
	n := len(strings.Split(h, "\n"))
	if os.Getenv("FSMCP_FUZZ_VERBOSE") != "" {
		v, _ := exec.Command(binary, "history", root, "-v").CombinedOutput()
		t.Logf("history -v:\n%s", v)
	}
	out, err := exec.Command(binary, "undo", root, "--last", fmt.Sprint(n)).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("fsmcp undo --last %d: %v\n%s\nhistory:\n%s", n, err, out, hist)
	}
	now := treeState(t, root)
	if n < len(calls) {
		// A call whose changes all came back is no entry (noop, as
		// above): the directories' times it changed stay as it left them.
		before, now = dirTimesOut(before), dirTimesOut(now)
	}
	if d := testenv.StateDiff(before, now); d != "" {
		return fmt.Sprintf("after fsmcp undo --last %d:\n%s\nundo said:\n%s\nhistory:\n%s", n, d, out, hist)
	}
	return ""
}

// dirTimesOut is a tree state without directories' modification times.
func dirTimesOut(state map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range state {
		if strings.HasPrefix(v, "d") {
			v = dirMtime.ReplaceAllString(v, "")
		}
		out[k] = v
	}
	return out
}

var dirMtime = regexp.MustCompile(`mtime=[0-9]+`)

// fuzzShrink drops one operation at a time for as long as the run still
// fails, and returns the smallest calls it found failing
// (FSMCP_FUZZ_SHRINK=1; each try is a subtest, so only failing tries log).
func fuzzShrink(t *testing.T, shellMode string, calls [][]string, restarts bool) [][]string {
	fails := func(c [][]string) bool {
		var prob string
		t.Run("shrink", func(t *testing.T) { prob = fuzzRun(t, shellMode, c, restarts) })
		return prob != ""
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(calls); i++ {
			for j := 0; j < len(calls[i]); j++ {
				try := make([][]string, 0, len(calls))
				for k, c := range calls {
					if k == i {
						c = append(append([]string{}, c[:j]...), c[j+1:]...)
					}
					if len(c) > 0 {
						try = append(try, c)
					}
				}
				if fails(try) {
					calls, changed = try, true
					j--
					if i >= len(calls) {
						break
					}
				}
			}
		}
		// Then the calls merged, fewer entries for the undo to walk.
		if len(calls) > 1 {
			merged := [][]string{nil}
			for _, c := range calls {
				merged[0] = append(merged[0], c...)
			}
			if fails(merged) {
				calls, changed = merged, true
			}
		}
	}
	return calls
}

// TestRandomCommandsUndone runs random fs_bash commands over a small
// namespace of colliding names (made, removed, renamed over each other,
// made again, linked, written through links and kept descriptors, from
// other working directories), split into up to three entries, then
// restarts, undoes every entry and wants the tree exactly as before: a
// property test of the journal's caches and memos, with the namespace
// shell and the unconfined one.
//
// make test runs the seeds of fuzzSeeds. FSMCP_FUZZ_SEEDS=N runs N random
// seeds, FSMCP_FUZZ_SEED=S[,S...] replays some, FSMCP_FUZZ_SCRIPT=FILE replays a
// listing (as a failure prints it), FSMCP_FUZZ_SHELL=on runs one shell
// mode, FSMCP_FUZZ_SHRINK=1 shrinks a failing script before reporting it,
// FSMCP_FUZZ_RESTART=1 runs each call under a server of its own (odd
// seeds always do).
func TestRandomCommandsUndone(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIPPED: python3 is not installed")
	}
	seeds := fuzzSeeds
	if s := os.Getenv("FSMCP_FUZZ_SEED"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatalf("FSMCP_FUZZ_SEED=%q: %v", s, err)
			}
			seeds = append(seeds, v)
		}
	} else if s := os.Getenv("FSMCP_FUZZ_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("FSMCP_FUZZ_SEEDS=%q: %v", s, err)
		}
		seeds = nil
		base := uint64(time.Now().UnixNano())
		for i := range n {
			seeds = append(seeds, (base+uint64(i)*0x9e3779b97f4a7c15)%1e12)
		}
	}
	var script [][]string
	if f := os.Getenv("FSMCP_FUZZ_SCRIPT"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		script = fuzzParse(string(b))
		seeds = []uint64{0}
	}
	shells := []string{"sandboxed", "on"}
	if s := os.Getenv("FSMCP_FUZZ_SHELL"); s != "" {
		shells = strings.Split(s, ",")
	}
	for _, shellMode := range shells {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/%d", shellMode, seed), func(t *testing.T) {
				calls := fuzzScript(seed)
				if script != nil {
					calls = script
				}
				// Odd seeds run each call under a server of its own: what
				// one fsmcp knew (links, directories) comes from the
				// history for the next.
				restarts := seed%2 == 1 || os.Getenv("FSMCP_FUZZ_RESTART") != ""
				prob := fuzzRun(t, shellMode, calls, restarts)
				if prob == "" {
					return
				}
				msg := fmt.Sprintf("seed %d (FSMCP_FUZZ_SEED=%d FSMCP_FUZZ_SHELL=%s), --shell %s, a server per call %v (FSMCP_FUZZ_RESTART=1 for a script):\n%s\nscript:\n%s", seed, seed, shellMode, shellMode, restarts, prob, fuzzListing(calls))
				if os.Getenv("FSMCP_FUZZ_SHRINK") != "" {
					small := fuzzShrink(t, shellMode, calls, restarts)
					msg += "\nshrunk to:\n" + fuzzListing(small)
				}
				t.Fatal(msg)
			})
		}
	}
}
