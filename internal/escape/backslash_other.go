//go:build !windows

package escape

// backslashEscaped: on Unix a backslash is an ordinary name byte, so it is
// doubled and a name cannot forge an escape.
const backslashEscaped = true
