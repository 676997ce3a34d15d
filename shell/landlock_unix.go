//go:build unix && !linux

package shell

import "os"

// Available reports that fs_bash cannot be sandboxed here: no Landlock.
func Available() (abi int, ok bool) { return 0, false }

// restrict always fails: there is no Landlock to confine with.
func restrict(policy) error { return ErrNoLandlock }

// PrepareHelper fails: there is no sandboxed shell to help here.
func PrepareHelper() error { return ErrNoLandlock }

func sealedHelper() (*os.File, error) { return nil, ErrNoLandlock }

func closeOnExecFrom(int) error { return nil }
