package driver

import "os/exec"

// ownProcessGroup: on Windows cancelling kills the process itself (rg
// starts no children).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return cmd.Process.Kill() }
}
