package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUndoNeverMixesASetuidOwnerWithOtherContent (issue 47, item 1):
// fsmcp as root; R holds programs t_i of another user (uid 1234, mode
// 4755) beside scripts s_i the agent wrote. A swapper exchanges each
// pair of names without pause while the agent's commands open every
// name for writing, so each capture races an exchange between the lstat
// that reads a mode and owner and the read of the content. No kept
// before-image may hold one file's mode or owner with another's
// content, and an undo of everything (forced, so it goes as far as it
// can) never leaves a set-uid file, or a file of uid 1234, with the
// script's content. Every other command chmods each name instead, so
// an undo puts modes back on whatever file holds the name by then.
func TestUndoNeverMixesASetuidOwnerWithOtherContent(t *testing.T) {
	k := attack(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: the owner and set-uid bit of another user's file")
	}
	m := mode{"path", os.Getenv("PATH")}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "R")
	state := filepath.Join(base, "state")
	os.MkdirAll(root, 0o755)
	const real, script = "REAL PROGRAM\n", "#!/bin/sh\necho agent\n"
	const pairs = 4
	for i := range pairs {
		tp, sp := filepath.Join(root, fmt.Sprintf("t%d", i)), filepath.Join(root, fmt.Sprintf("s%d", i))
		write(t, tp, real)
		os.Chown(tp, 1234, 1234)
		os.Chmod(tp, 0o4755)
		write(t, sp, script)
		os.Chmod(sp, 0o755)
	}
	cs := connectStdioEnv(t, m, []string{"XDG_STATE_HOME=" + state}, root)

	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := os.Open(root)
			if err != nil {
				return
			}
			defer d.Close()
			a, b := fmt.Sprintf("t%d", i), fmt.Sprintf("s%d", i)
			for !stop.Load() {
				unix.Renameat2(int(d.Fd()), a, int(d.Fd()), b, unix.RENAME_EXCHANGE)
			}
		}()
	}
	// Each command is a step of its own, so each opens every name anew:
	// a capture per name per command.
	var names []string
	for i := range pairs {
		names = append(names, fmt.Sprintf("t%d s%d", i, i))
	}
	list := strings.Join(names, " ")
	write := "for f in " + list + "; do exec 3>>\"$f\" && exec 3>&-; done; true"
	chmod := "for f in " + list + "; do chmod 755 \"$f\"; done; true"
	for range 30 * k {
		call(t, cs, "fs_bash", map[string]any{"command": write})
		call(t, cs, "fs_bash", map[string]any{"command": chmod})
	}
	stop.Store(true)
	wg.Wait()
	cs.Close()

	// The journal's own record: every kept content beside a set-uid mode
	// or uid 1234 is the program's.
	mixed := 0
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".log") {
			return nil
		}
		mixed += mixedImages(t, p, script)
		return nil
	})
	if mixed > 0 {
		t.Errorf("%d kept before-images hold uid 1234 or a set-uid mode with the script's content", mixed)
	}

	undo := exec.Command(binary, "undo", root, "--since", "1h", "--force")
	undo.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	out, err := undo.CombinedOutput()
	t.Logf("fsmcp undo --force: %v\n%s", err, tail(string(out), 2000))
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			continue
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte("agent")) && (st.Mode&0o6000 != 0 || st.Uid == 1234) {
			t.Errorf("after the undo %s holds the script as uid %d, mode %o", e.Name(), st.Uid, st.Mode&0o7777)
		}
	}
}

// mixedImages counts the images in the log at p that hold uid 1234 or
// a set-uid mode beside the script's content (inline).
func mixedImages(t *testing.T, p, script string) int {
	f, err := os.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			Op *struct {
				B struct {
					Mode  uint32  `json:"mode"`
					Owner *[2]int `json:"owner"`
					Data  []byte  `json:"data"`
				} `json:"b"`
			} `json:"op"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Op == nil {
			continue
		}
		im := line.Op.B
		if string(im.Data) == script && (im.Mode&0o6000 != 0 || im.Owner != nil && im.Owner[0] == 1234) {
			n++
		}
	}
	return n
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
