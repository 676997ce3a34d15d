package shell

import "fmt"

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

// ParseMode parses a --shell value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeOff, ModeOn, ModeSandboxed:
		return m, nil
	}
	return "", fmt.Errorf("invalid --shell %q: want on, sandboxed or off", s)
}

// DefaultMode is the mode used when --shell is not given: sandboxed where
// the kernel has Landlock, otherwise on.
func DefaultMode() Mode {
	if _, ok := Available(); ok {
		return ModeSandboxed
	}
	return ModeOn
}

// CheckMode reports whether m can run here. For ModeSandboxed without
// Landlock it returns an error wrapping ErrNoLandlock, which an explicit
// --shell sandboxed must turn into a start-up failure.
func CheckMode(m Mode) error {
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

// Describe is the one line stated on stderr at start-up.
func Describe(m Mode) string {
	switch m {
	case ModeSandboxed:
		abi, _ := Available()
		return fmt.Sprintf("fs_bash: sandboxed (Landlock ABI %d): read+write in the roots and a private temp dir, read+execute in system directories", abi)
	case ModeOn:
		return "fs_bash: on, unconfined (the shell can read and write anything this user can)"
	default:
		return "fs_bash: off"
	}
}
