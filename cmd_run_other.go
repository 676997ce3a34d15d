//go:build !unix

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// runCommand serves "fsmcp run" where commands cannot be traced: the
// command runs as it is, and says it is not journaled.
func runCommand(args []string, stderr io.Writer) int {
	o, err := parseRun(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, runUsage)
		return exitOK
	}
	if err != nil || o.bgFd > 0 {
		fmt.Fprintf(stderr, "fsmcp run: %v\n%s", err, runUsage)
		return exitUsage
	}
	fmt.Fprintln(stderr, "fsmcp run: not journaled: reporting a command's changes before they are made needs Linux")
	cmd := exec.Command(o.argv[0], o.argv[1:]...)
	cmd.Dir = o.dir
	if wd, err := os.Getwd(); err == nil {
		cmd.Dir = wd
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		fmt.Fprintf(stderr, "fsmcp run: %s: %v\n", o.argv[0], err)
		return 127
	}
	return cmd.ProcessState.ExitCode()
}

// execShell runs sh -c script, as it is.
func execShell(sh, script string, stderr io.Writer) int {
	cmd := exec.Command(sh, "-c", script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		fmt.Fprintf(stderr, "fsmcp: %s: %v\n", sh, err)
		return 127
	}
	return cmd.ProcessState.ExitCode()
}
