// Package backend defines fsmcp's search engine contract — the Searcher
// interface, its query types and the Sink that results stream into — and
// the glue every backend shares: the Collector, the formatter, the stop,
// and the rules a search follows (binary files, glob bases, PATH_MAX).
// Its rooms, as ripgrep splits its crates: backend/ignore (which files a
// search sees), backend/driver (rg and find, and the choice among the
// backends), backend/queue (how many searches run, and the page cache in
// front of them), backend/native (the native scanner) and backend/index
// (the trigram stage in front of the drivers).
//
// The split follows ripgrep's Searcher/Sink design: every backend pushes
// per-file events into one Sink, and one Collector plus one formatter per
// output mode serve all backends, so the rg and native backends cannot
// disagree on ordering, paging or formatting — only on which lines match,
// which the parity tests pin down.
//
// The pure-Go scanner lives in backend/native; it implements Searcher and
// is handed to driver.Select by main, so no other backend room imports it.
//
// Search rules every backend follows (SPEC §3): .gitignore, .ignore and
// .rgignore are honoured in every directory (nested ones too, and those in
// the parent directories of a search path, as ripgrep does), whether or
// not a .git directory exists; .git is never searched; hidden files are
// searched; binary files (a NUL byte, detected as ripgrep does) are skipped
// for content search; symlinks met while walking are not followed; files
// and directories given explicitly in Paths are always searched.
//
// Where fsmcp deliberately differs from running rg by hand, so that both
// backends give the same answer:
//   - rg runs with --encoding none: UTF-16 files are not transcoded (their
//     NUL bytes make them binary), a UTF-8 BOM is text like any other;
//   - a binary file named explicitly in Paths is skipped (rg would search
//     it with NULs replaced);
//   - \b and \B are ASCII word boundaries (Go's), passed to rg as (?-u:\b);
//     \d, \w, \s stay Unicode-aware as in rg;
//   - in a file that is not valid UTF-8, "." and classes never match an
//     invalid byte (as in rg); in a valid UTF-8 file they match U+FFFD;
//   - patterns Go's regexp rejects are rejected by both backends with the
//     same error (look-around and backreferences are rejected by rg's
//     default engine too); (?<name>) and \Q...\E are handed to rg in forms
//     it accepts.
//
// Files ripgrep cuts off at a NUL byte after its first 64 KiB buffer are
// cut at the same place (SearchableLen); in multiline mode the cut is an
// approximation of rg's.
package backend

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// Mode selects what a grep reports.
type Mode int

const (
	// FilesWithMatches reports each matching file once (the default).
	FilesWithMatches Mode = iota
	// Content reports matching lines (and context lines) with line numbers.
	Content
	// Count reports the number of matching lines per file (the number of
	// matches in multiline mode, as rg --count does).
	Count
)

// String returns the fs_grep output_mode name of m.
func (m Mode) String() string {
	switch m {
	case Content:
		return "content"
	case Count:
		return "count"
	default:
		return "files_with_matches"
	}
}

// ParseMode maps an fs_grep output_mode ("" means files_with_matches).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "files_with_matches":
		return FilesWithMatches, nil
	case "content":
		return Content, nil
	case "count":
		return Count, nil
	}
	return 0, fmt.Errorf("unknown output_mode %q (want files_with_matches, content or count)", s)
}

// GrepQuery is one content search.
type GrepQuery struct {
	Pattern string
	// Paths are absolute files or directories; the caller has already
	// contained them in the sandbox roots.
	Paths []string
	// Roots are the sandbox roots (real paths) that hold Paths. Ignore
	// files above a search path are read only inside its root or its git
	// repository; with no Roots, each path is its own root.
	Roots []string
	// RootDirs are the Roots' directories, open (sandbox.OpenDirs), in
	// the order of Roots; nil where not known. A backend opens a root
	// from its RootDir, never by name again: a root narrowed by
	// _meta.allowed_dirs is a directory inside another root, whose name
	// the agent can swap for a link out.
	RootDirs []*os.File
	// Globs have rg --glob semantics (gitignore syntax, matched relative to
	// each search path; a "!" prefix excludes). Like rg, a glob match
	// overrides ignore files and types.
	Globs []string
	// Types are rg --type names (see FileTypes).
	Types []string

	IgnoreCase   bool
	FixedStrings bool
	// Multiline lets the pattern span lines, and "." match a newline
	// (rg -U --multiline-dotall).
	Multiline bool
	// NoIgnore searches files that ignore files would hide (rg --no-ignore).
	NoIgnore bool
	// Before and After are context line counts (Content mode only).
	Before, After int
	Mode          Mode

	// Progress, if set, is called now and then with the number of files
	// scanned so far (rg backend: files with matches so far). It may be
	// called from several goroutines, never concurrently.
	Progress func(files int64)

	// Candidates, if set, narrows the search: a file the walk keeps is
	// read only if Keep says it could match. It is a stage in front of
	// the backend (package index), never a filter of its own: ignore
	// rules, globs and types still decide as without it, so an answer
	// can only lose files that cannot match. The native scanner honours
	// it; rg, which cannot take a file list without changing how it
	// treats those files, ignores it and searches them all.
	Candidates Candidates

	// Compiled is Pattern compiled once, at the search stack's door
	// (backend/pattern's *Pattern; pattern.Of reads it): every stage
	// below (the index's plan, rg's argv, the native scanner) reads this
	// value instead of compiling Pattern again. nil: not compiled yet.
	// backend only carries it, so it names no type of pattern's.
	Compiled any

	// Skipped, if set, counts the entries skipped as TooLong.
	Skipped *Skipped
	// Kept, if set, is told when the result served was searched, if it is
	// one Pages kept from an earlier page rather than the tree now.
	Kept *Kept
}

// Candidates says which walked files could hold a match (see
// GrepQuery.Candidates). Keep is called from many goroutines at once;
// dirfd is the open directory holding name (on Windows, where the walk
// goes by path, only path counts).
type Candidates interface {
	Keep(dirfd int, name, path string) bool
}

// DirCandidates is a Candidates that can also rule out a whole
// directory: the walk does not read one KeepDir says holds no file that
// could match (path is absolute). Its contract is Keep's, for every file
// below the directory.
type DirCandidates interface {
	Candidates
	KeepDir(path string) bool
}

// ListCandidates is a DirCandidates that can also name the files to
// read below a search path, so that a narrowed search opens them from
// the index's list of names instead of walking toward them. List
// returns, for dir (a search path, absolute), the paths relative to dir
// of files that the walk of dir keeps under the ignore files as they
// stand now, sorted; the backend still applies the query's globs and
// types to each directory on the way and to the file (Filter.Skip with
// no ignore context) and opens each directory beneath its parent
// without following a link. When it answers, KeepDir and Keep speak for
// the rest of the walk only: a file is listed or kept by the walk, never
// both. ok false: walk dir as DirCandidates says.
type ListCandidates interface {
	DirCandidates
	List(dir string) (rels []string, ok bool)
}

// ChunkCandidates is a Candidates that can also say which chunks (see
// ChunkEnd) of a kept file could hold a match, for a search outside
// multiline mode. Chunks returns one flag per chunk, or nil when the whole
// file must be matched, and whether the file holds no NUL byte (so all of
// it is searchable under ripgrep's binary rule, and the chunks not hit
// need not be read at all); it answers only for a file it holds
// unchanged, so a backend asks again after reading and trusts the
// answers only if both agree.
type ChunkCandidates interface {
	Candidates
	Chunks(dirfd int, name, path string) (hits []bool, text bool)
}

// GlobQuery lists files whose path relative to a search path matches a
// doublestar pattern.
type GlobQuery struct {
	Pattern  string
	Paths    []string
	Roots    []string   // as in GrepQuery
	RootDirs []*os.File // as in GrepQuery
	NoIgnore bool
	Progress func(files int64)
	// Skipped, if set, counts the entries skipped as TooLong: directories
	// the walk would read and files the pattern matches.
	Skipped *Skipped
	// Order, if set, is the order the caller ranks files in, and Keep how
	// many of the first it keeps (0: all). A result Pages keeps that is
	// too big to keep whole keeps its first files in Order, and serves a
	// later call whose Keep lies within them; Beyond, if set, is then
	// told how many matches ranked after those and were not passed on.
	Order  func(a, b File) bool
	Keep   int
	Beyond *Skipped
	// Kept is as in GrepQuery.
	Kept *Kept
	// Known, if set, gives a listed file's time and size without a stat
	// when its caller (the index, whose watcher follows the tree) knows
	// the file unchanged since it recorded them; false means stat it. A
	// backend may ignore it.
	Known func(dirfd int, name, path string) (File, bool)
	// List, if set, names the files below a search path from an index's
	// list instead of a walk toward them (see GlobLister). A backend may
	// ignore it.
	List GlobLister
	// KeepAtime asks that the directories read keep their access times
	// (backend.ONoAtime where granted): set by the index, whose listing
	// of a tree is upkeep no one asked for. A backend may ignore it.
	KeepAtime bool
}

// GlobLister is GlobQuery.List: an index whose watcher follows the tree
// names the files a glob's walk would list, as ListCandidates does for a
// narrowed grep. List calls fn with each file below dir (the glob's base
// directory, absolute) that the walk of dir keeps under the ignore files
// as they stand, by its path relative to dir, with its time and size
// when the index holds them unchanged (known; otherwise the backend
// stats it); ok false: walk dir. rel may share the index's memory: fn
// copies what it keeps past its call. When it answers, KeepDir and Keep speak
// for the rest of the walk only (what changed since the index looked):
// a file is listed or kept by the walk, never both.
type GlobLister interface {
	List(dir string, fn func(rel string, f File, known bool)) (ok bool)
	KeepDir(path string) bool
	Keep(dirfd int, name, path string) bool
}

// File is one fs_glob result.
type File struct {
	Path    string
	ModTime time.Time
	Size    int64
}

// Sink receives a grep's results. File is called (from any goroutine, at
// most once per path) only for a file with at least one match; the returned
// FileSink is used by that goroutine alone and then closed with End.
//
// A sink can say "stop", as ripgrep's sink does by returning false: Line
// returning false wants no more lines of that file, End returning false
// wants no more files. Grep (the function, which every caller uses rather
// than Searcher.Grep) enforces it for every backend: later lines and files
// are dropped, and the search itself is cancelled — rg is killed, the
// native walk ends — so a capped search costs what the cap needs.
type Sink interface {
	File(path string) FileSink
}

// FileSink receives one file's results.
type FileSink interface {
	// Line reports one output line in Content mode, in line order: a match
	// (context false) or a context line. text excludes the line terminator
	// and is only valid during the call. false: no more lines of this
	// file are wanted.
	Line(num int, text []byte, context bool) bool
	// End closes the file. count is the number of matching lines (the
	// number of matches in multiline mode), as the backend counted them,
	// lines dropped after a stop included. false: stop the search.
	End(count int) bool
}

// Searcher is a search backend.
type Searcher interface {
	// Name is "rg", "find" or "native".
	Name() string
	// Grep searches q.Paths and streams results into sink. A cancelled or
	// timed-out ctx stops it at once and returns ctx.Err(); what reached
	// the sink by then is valid (a partial result). Backends may ignore
	// what Line and End return: call the package's Grep, which honours it.
	Grep(ctx context.Context, q GrepQuery, sink Sink) error
	// Glob calls fn for each matching file, in no particular order, never
	// concurrently. An error from fn stops the walk and is returned.
	Glob(ctx context.Context, q GlobQuery, fn func(File) error) error
}

// RootOf returns the longest of roots that holds path (path itself when
// none does). Its containment test is a copy of sandbox.Within's rule,
// kept because backend, the search contract, imports no other fsmcp
// package but internal/escape (toolkit reaches it: see toolkit's
// deps_test); its paths are slash-separated, and the test by whole names
// (r+"/") is the same rule.
func RootOf(roots []string, path string) string {
	best := path
	found := false
	for _, r := range roots {
		r = strings.TrimSuffix(r, "/")
		if (r == "" || path == r || strings.HasPrefix(path, r+"/")) && (!found || len(r) > len(best)) {
			best, found = r, true
		}
	}
	if best == "" {
		return "/"
	}
	return best
}

// RootsOr returns roots, or path as the only root when there are none.
func RootsOr(roots []string, path string) []string {
	if len(roots) == 0 {
		return []string{path}
	}
	return roots
}

// RootDir returns the open directory of root, one of roots (dirs in the
// same order), or nil.
func RootDir(roots []string, dirs []*os.File, root string) *os.File {
	for i, r := range roots {
		if r == root && i < len(dirs) {
			return dirs[i]
		}
	}
	return nil
}
