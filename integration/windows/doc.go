// Package windows is fsmcp's Windows suite: a Windows test binary that
// starts the Windows build of fsmcp (fsmcp.exe) and drives it through the
// go-sdk's MCP client over stdio and Streamable HTTP, with the paths a
// Windows user and an attacker send: drive letters, forward slashes,
// other cases, relative paths, the \\?\ prefix, paths past 260
// characters, CRLF files, streams, device names, trailing dots and
// spaces. `make test-windows` runs it under Wine (integration/wine); on a
// Windows machine, `go test ./integration/windows/` after building
// bin\windows\fsmcp.exe (or with FSMCP_EXE naming one).
//
// Its tests build on Windows only; this file keeps the package a
// package everywhere.
package windows
