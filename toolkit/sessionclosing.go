package toolkit

import "errors"

// ErrSessionClosing refuses per-session state to a session (or server)
// that is ending.
var ErrSessionClosing = errors.New("the session is closing")
