//go:build unix

package shell

// supported: fs_bash runs here (bash, process sessions, signals).
const supported = true
