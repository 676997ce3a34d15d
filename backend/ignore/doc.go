// Package ignore is what decides which files a search sees, the way
// ripgrep's ignore crate does: .gitignore/.ignore/.rgignore rules with
// their precedence (IgnoreDir, Gitignore), rg's --glob overrides and
// --type filters (Filter, FileTypes), the glob pattern checks every
// profile applies (CheckGlob), and reading ignore files without following
// links or blocking. Both walks use it: the native scanner (package
// native) and the find backend; the rg backend passes the same types to
// rg. It knows no query or result: those are package backend's contract.
package ignore
