package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver"
)

// errNoFloor marks a row the floor column does not apply to (a glob).
var errNoFloor = errors.New("no floor for this row")

// floorRunner is the "rg on answer" column: rg given exactly the files
// that hold a match, found once per row by rg -l. No exact index can do
// better with rg reading what it chose: every answer file must be opened
// and read. A selective row far above its floor is the index's fault; a
// row whose floor is itself slow is bounded by its answer.
func floorRunner(bin string) runner {
	answers := map[string][]string{}
	return runner{"rg on answer", func(ctx context.Context, tree string, q query) error {
		if q.glob != "" {
			return errNoFloor
		}
		key := tree + "\x00" + q.name
		files, ok := answers[key]
		if !ok {
			l := q.grep
			l.Mode = backend.FilesWithMatches
			c := exec.CommandContext(ctx, bin, append(driver.GrepArgs(l), "./")...)
			c.Dir = tree
			out, err := c.Output()
			if ee, isExit := err.(*exec.ExitError); err != nil && !(isExit && ee.ExitCode() == 1) {
				return err
			}
			for _, name := range bytes.Split(out, []byte{0}) { // GrepArgs asks for --null
				if len(name) > 0 {
					files = append(files, filepath.Join(tree, string(name)))
				}
			}
			answers[key] = files
		}
		// As xargs does: batches well under ARG_MAX, one after another.
		args := driver.GrepArgs(q.grep)
		for len(files) > 0 {
			n, size := 0, 0
			for n < len(files) && size < 100<<10 {
				size += len(files[n]) + 1
				n++
			}
			if err := runRG(ctx, bin, tree, append(append([]string{}, args...), files[:n]...)); err != nil {
				return err
			}
			files = files[n:]
		}
		return nil
	}}
}
