//go:build unix && !linux

package shell

// Available reports that fs_bash cannot be sandboxed here: no Landlock.
func Available() (abi int, ok bool) { return 0, false }

// restrict always fails: there is no Landlock to confine with.
func restrict(policy) error { return ErrNoLandlock }
