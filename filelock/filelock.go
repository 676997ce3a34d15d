// Package filelock is the one cross-process file lock fsmcp takes: flock
// on Unix, LockFileEx on Windows. The file writers (package files) lock
// the file they change, the change journal its own lock file; both
// through here, so the rule is the same on every system.
package filelock
