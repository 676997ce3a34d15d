// Package fault is the core's error contract: every file operation's error
// has a Kind (not found, outside the roots, exists, too large, ...), the
// path it concerns and one sentence for the user, so that each profile maps
// kinds to its own texts and JSON-RPC codes without parsing messages. It
// imports nothing of fsmcp: sandbox, files, catalog and backend all use it.
package fault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Kind says what went wrong with a file operation, so that each profile can
// map it to its own text and code without parsing messages.
type Kind int

const (
	Other      Kind = iota // none of the below (an I/O error, say)
	NotFound               // the path, or the text to replace, does not exist
	Outside                // the path is outside the allowed directories
	Exists                 // a path that had to be new exists
	TooLarge               // over --max-file-size
	Binary                 // a text operation on a binary file
	NotUnique              // the text to replace occurs more than once
	Invalid                // the request cannot be served as asked (a bad pattern, a root deleted, ...)
	Timeout                // the time limit ran out (or the call was cancelled)
	IsDir                  // a file was wanted, a directory was given
	NotDir                 // a directory was wanted, something else was given
	NotEmpty               // a directory that is not empty
	Permission             // the operating system refused access
	// A path refused by the table's path rule before any I/O (sandbox's
	// ErrEmpty, ErrNUL, ErrNotAbsolute, ErrNotRelative): kinds of their own,
	// so a profile words each in its own terms without deciding it again.
	NoPath      // an empty path
	NULInPath   // a path with a NUL byte in it
	NotAbsolute // a relative path where the rule wants an absolute one
	NotRelative // an absolute path where the rule wants a relative one
)

var kindNames = [...]string{"other", "not found", "outside", "exists", "too large", "binary", "not unique", "invalid", "timeout", "is a directory", "not a directory", "not empty", "permission denied", "no path", "NUL in path", "not absolute", "not relative"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", int(k))
}

// Error is a core error: its Kind, the path it concerns (absolute, as the
// client can read it; may be empty) and one sentence for the user. Profiles
// that keep fsmcp's wording show Error(); others map Kind and Path.
type Error struct {
	Kind Kind
	Path string
	Msg  string
	Err  error // the cause, if any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is(err, fs.ErrNotExist) and fs.ErrExist see through.
func (e *Error) Is(target error) bool {
	return target == fs.ErrNotExist && e.Kind == NotFound || target == fs.ErrExist && e.Kind == Exists
}

// Errorf makes a core error of kind about path.
func Errorf(kind Kind, path, format string, args ...any) error {
	e := &Error{Kind: kind, Path: path, Msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Err = err
			break
		}
	}
	return e
}

// Kinded is an error type that knows its Kind (the sandbox's and the
// catalog's own error types).
type Kinded interface {
	error
	Kind() Kind
}

// Pathed is an error type that knows the path it concerns.
type Pathed interface {
	error
	Where() string
}

// KindOf classifies any error a core operation returns: a *Error, a Kinded
// error, fs and context errors.
func KindOf(err error) Kind {
	if err == nil {
		return Other
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var k Kinded
	if errors.As(err, &k) {
		return k.Kind()
	}
	switch {
	case strings.Contains(err.Error(), "path escapes from parent"): // os.Root's own refusal
		return Outside
	case errors.Is(err, fs.ErrNotExist):
		return NotFound
	case errors.Is(err, fs.ErrExist):
		return Exists
	case errors.Is(err, fs.ErrPermission), strings.HasPrefix(err.Error(), "permission denied: "):
		return Permission
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Timeout
	}
	return Other
}

// PathOf is the path a core error concerns, where it says ("" otherwise).
func PathOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Path
	}
	var p Pathed
	if errors.As(err, &p) {
		return p.Where()
	}
	return ""
}

// New makes a core error of kind with a fixed sentence and no path, for
// sentinel errors compared with errors.Is.
func New(kind Kind, msg string) error { return &Error{Kind: kind, Msg: msg} }
