package shell

import (
	"errors"
	"fmt"
)

// Mode is fs_bash's confinement, as chosen with --shell.
type Mode string

const (
	// ModeOff removes fs_bash.
	ModeOff Mode = "off"
	// ModeOn runs bash unconfined: the command can do whatever the user
	// running fsmcp can. Only the working directory is kept inside the roots.
	ModeOn Mode = "on"
	// ModeSandboxed runs bash under Landlock (see the package comment for
	// exactly what it can reach).
	ModeSandboxed Mode = "sandboxed"
)

// errUnsupported: fs_bash needs bash, process sessions and signals, which
// only Unix systems have (see supported).
var errUnsupported = errors.New("fs_bash needs a Unix system with bash")

// ParseMode parses a --shell value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeOff, ModeOn, ModeSandboxed:
		return m, nil
	}
	return "", fmt.Errorf("invalid --shell %q: want on, sandboxed or off", s)
}

// DefaultMode is the mode used when --shell is not given: sandboxed where
// the kernel has Landlock, on elsewhere on Unix, and off where fs_bash
// cannot run at all (Windows), so it is not listed there: a listed tool
// that always fails teaches the model nothing.
func DefaultMode() Mode {
	if !supported {
		return ModeOff
	}
	if _, ok := Available(); ok {
		return ModeSandboxed
	}
	return ModeOn
}

// CheckMode reports whether m can run here. For ModeSandboxed without
// Landlock it returns an error wrapping ErrNoLandlock, which an explicit
// --shell sandboxed must turn into a start-up failure.
func CheckMode(m Mode) error {
	if !supported && m != ModeOff {
		return fmt.Errorf("--shell %s: %w; leave --shell out or give --shell off", m, errUnsupported)
	}
	switch m {
	case ModeOff, ModeOn:
		return nil
	case ModeSandboxed:
		if _, ok := Available(); !ok {
			return fmt.Errorf("--shell sandboxed: %w", ErrNoLandlock)
		}
		return nil
	}
	return fmt.Errorf("invalid shell mode %q", string(m))
}

// Confinement names the confinement fs_bash runs under in mode m, for
// the start-up line (shell_confinement=...): "bwrap+landlock" (its own
// user, pid and mount namespaces, Landlock inside), "userns+landlock"
// (no bwrap: user and mount namespaces fsmcp makes itself), "landlock"
// (where namespaces cannot be made), "none" (--shell on) or "off". The first
// call for ModeSandboxed probes the namespaces.
func Confinement(m Mode) string {
	switch m {
	case ModeSandboxed:
		if bw, _ := namespaces(); bw != nil {
			return "bwrap+landlock"
		}
		if goNamespaces() {
			return "userns+landlock"
		}
		return "landlock"
	case ModeOn:
		return "none"
	}
	return "off"
}

// Describe is the one line stated on stderr at start-up.
func Describe(m Mode) string {
	switch m {
	case ModeSandboxed:
		abi, _ := Available()
		if bw, why := namespaces(); bw == nil && goNamespaces() {
			return fmt.Sprintf("fs_bash: sandboxed: own user and mount namespaces, made by fsmcp (%s), holding only the roots (read+write), a private temp dir and the system's program directories (read+execute), and Landlock (ABI %d) inside; no pid namespace, so /proc is the host's (denied by Landlock)", why, abi)
		} else if bw == nil {
			return fmt.Sprintf("fs_bash: sandboxed by Landlock only (ABI %d), without namespaces: %s; so the shell can stat, chmod, chown, touch and set xattrs on files outside the roots that this user owns, though not read, write or list them", abi, why)
		}
		return fmt.Sprintf("fs_bash: sandboxed: own user, pid and mount namespaces (bwrap) holding only the roots (read+write), a private temp dir and the system's program directories (read+execute), and Landlock (ABI %d) inside", abi)
	case ModeOn:
		return "fs_bash: on, unconfined (the shell can read and write anything this user can)"
	default:
		if !supported {
			return "fs_bash: off (it needs a Unix system with bash)"
		}
		return "fs_bash: off"
	}
}
