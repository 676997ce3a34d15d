//go:build linux

package shell

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	x32Bit    = 0
)

// traps: arm64 has only the generic calls (trace_generic.go).
var traps = genericTraps

// setIDCalls: arm64 has only the generic calls.
var setIDCalls = genericSetID
