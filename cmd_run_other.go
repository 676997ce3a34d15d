//go:build !unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

// runCommand serves "fsmcp run" where commands cannot be traced: the
// command runs as it is, and says it is not journaled.
func runCommand(args []string, stderr io.Writer) int {
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(stderr, "fsmcp run: name the command to run, after --")
		return exitUsage
	}
	fmt.Fprintln(stderr, "fsmcp run: not journaled: reporting a command's changes before they are made needs Linux")
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		fmt.Fprintf(stderr, "fsmcp run: %v\n", err)
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
