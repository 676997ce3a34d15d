package driver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/driver/confine"
	"github.com/fsmcp/fsmcp/backend/ignore"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// RG is the backend that drives ripgrep.
//
// Each search path runs one rg child with the path as its working
// directory and "./" as its only argument (a file is opened here and
// given on standard input, "-"), so
// --glob patterns with a slash are relative to the search path, exactly
// as the native walker reads them, and every output record starts with
// "./" (never mistaken for a flag or a context separator). Output is the
// NUL-separated text format, which is cheaper to produce and parse than
// --json and keeps any file name intact.
type RG struct {
	bin  string
	libs []string // what bin names for its loading (RGFound.Libs)
}

// NewRGFound returns the rg backend for the binary FindRG found.
func NewRGFound(f RGFound) (*RG, error) {
	if f.Err != nil {
		return nil, f.Err
	}
	return &RG{bin: f.Bin, libs: f.Libs}, nil
}

// NewRG returns the rg backend for the given binary, run as it is ("" looks
// up "rg" on PATH; FindRG and NewRGFound see through links and shims).
func NewRG(bin string) (*RG, error) {
	if bin == "" {
		p, err := lookPath("rg")
		if err != nil {
			return nil, ErrNoRG
		}
		bin = p
	}
	abs, err := filepath.Abs(bin) // the confining helper execs it by path
	if err != nil {
		return nil, err
	}
	return &RG{bin: abs}, nil
}

// Name implements Searcher.
func (r *RG) Name() string { return "rg" }

// Bin is the rg binary this backend runs.
func (r *RG) Bin() string { return r.bin }

// commonArgs are the flags that make rg follow fsmcp's rules. rg's own
// default, kept here, is that a .gitignore counts only inside a git
// repository (a .git at or above the file); .ignore and .rgignore always.
func commonArgs(noIgnore bool) []string {
	a := []string{
		"--no-config",         // ignore RIPGREP_CONFIG_PATH
		"--hidden",            // hidden files are searched
		"--no-ignore-global",  // only the tree's own ignore files
		"--no-ignore-exclude", // (.git/info/exclude is not one of them)
		// Messages are read, not silenced: rg's stderr counts the
		// paths it could not open as too long (rgStderr). Ignore files
		// it cannot read are skipped quietly, as the native walker does.
		"--no-ignore-messages",
		"--color", "never",
	}
	if noIgnore {
		a = append(a, "--no-ignore")
	}
	return a
}

// typeArgs selects the named file types with fsmcp's own definitions
// (fileTypes), replacing whatever the installed rg has built in, so rg 13,
// 14 and 15 select the same files as the native scanner. Only the named
// types are defined, which keeps the command line short. Unknown names are
// left out: NewFilter has refused them before rg runs.
func typeArgs(types []string) []string {
	var a []string
	seen := map[string]bool{}
	for _, t := range types {
		globs, ok := ignore.TypeGlobs(t)
		if !ok || seen[t] {
			continue
		}
		seen[t] = true
		a = append(a, "--type-clear", t)
		for _, g := range globs {
			a = append(a, "--type-add", t+":"+g)
		}
		a = append(a, "--type", t)
	}
	return a
}

// GrepArgs returns rg's arguments for q, up to and including "--"; the
// search argument follows. Exposed so the bench can time rg alone with
// exactly the flags the backend uses.
func GrepArgs(q backend.GrepQuery) []string {
	a := commonArgs(q.NoIgnore)
	a = append(a, "--encoding", "none", "--null", "--no-heading", "--with-filename")
	for _, g := range q.Globs {
		if g != "" {
			a = append(a, "--glob", g)
		}
	}
	a = append(a, "--glob", ignore.GitDirGlob)
	a = append(a, typeArgs(q.Types)...)
	if q.IgnoreCase {
		a = append(a, "--ignore-case")
	} else {
		a = append(a, "--case-sensitive")
	}
	if q.FixedStrings {
		a = append(a, "--fixed-strings")
	}
	if q.Multiline {
		a = append(a, "--multiline", "--multiline-dotall")
	}
	switch q.Mode {
	case backend.FilesWithMatches:
		a = append(a, "--files-with-matches")
	case backend.Count:
		a = append(a, "--count")
	case backend.Content:
		// rg cuts a line whose bytes with the terminator exceed 2001
		// to its first 2001 characters and appends a note; parseGrep
		// drops the note and AppendLine cuts at MaxLine characters, as
		// for the native backend. A line of up to MaxLine bytes is
		// never cut.
		a = append(a, "--line-number", "--max-columns", strconv.Itoa(backend.MaxLine+1), "--max-columns-preview")
		if q.Before > 0 {
			a = append(a, "--before-context", strconv.Itoa(q.Before))
		}
		if q.After > 0 {
			a = append(a, "--after-context", strconv.Itoa(q.After))
		}
	}
	if pat, ok := patternInput(q); ok {
		if q.FixedStrings && pat != q.Pattern {
			a = slices.DeleteFunc(a, func(s string) bool { return s == "--fixed-strings" })
		}
		return append(a, "--file", "/dev/fd/3", "--")
	}
	return append(a, "--regexp", rgText(q), "--")
}

// rgText is the pattern spelled for rg (pattern.Pattern.RG), from the
// value the query carries; a pattern that does not compile, which Grep
// refuses before any argv is made, is spelled from its text.
func rgText(q backend.GrepQuery) string {
	if p, err := pattern.Of(q); err == nil {
		return p.RG
	}
	return pattern.ForRG(q)
}

// patternArgMax is the longest pattern passed as an argument; a longer
// one goes to rg on a pipe (--file), since Linux refuses an argument over
// 128 KiB (MAX_ARG_STRLEN) with "argument list too long".
const patternArgMax = 32 << 10

// patternInput returns the text rg reads with --file when q's pattern is
// too long for an argument. rg reads one pattern per line there, so line
// breaks in the pattern are written as the escapes \n and \r, which
// match the same characters (a fixed string is quoted into a regex
// first).
func patternInput(q backend.GrepQuery) (string, bool) {
	p := rgText(q)
	if len(p) <= patternArgMax {
		return "", false
	}
	if strings.ContainsAny(p, "\r\n") {
		if q.FixedStrings {
			p = regexp.QuoteMeta(p)
		}
		p = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(p)
	}
	return p + "\n", true
}

// FilesArgs returns rg's arguments for listing files, up to "--".
func FilesArgs(noIgnore bool) []string {
	a := commonArgs(noIgnore)
	return append(a, "--files", "--null", "--glob", ignore.GitDirGlob, "--")
}

// searchTarget is how rg searches one path: a directory as "./" from
// inside it; a file as "-", on rg's standard input, opened here beneath
// its root without following a link at any step below it (a parent
// swapped for a link out is refused: rg's Landlock rules do not cover
// what fsmcp opens for it) and without blocking (a FIFO swapped in for
// it is refused instead of hanging rg). skip is true for an explicit binary
// file or a path that is not a regular file or directory.
type searchTarget struct {
	dir, arg string
	file     *os.File // the explicit file, or nil
	path     string
	skip     bool
}

func newSearchTarget(roots []string, dirs []*os.File, p string) (searchTarget, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return searchTarget{}, err
	}
	if fi.IsDir() {
		return searchTarget{dir: p, arg: "./", path: p}, nil
	}
	root := backend.RootOf(backend.RootsOr(roots, p), p)
	f, err := ignore.OpenRegularBeneath(root, backend.RootDir(roots, dirs, root), p)
	if err != nil || backend.ExplicitBinary(f) {
		if f != nil {
			f.Close()
		}
		return searchTarget{skip: true}, nil
	}
	return searchTarget{dir: filepath.Dir(p), arg: "-", file: f, path: p}, nil
}

// name maps an rg output path back to an absolute path.
func (t searchTarget) name(out []byte) string {
	if t.file != nil {
		return t.path // rg names standard input "<stdin>"
	}
	return joinOut(t.dir, t.arg, out)
}

// joinOut maps an rg output path ("./rel") back to an absolute path.
func joinOut(dir, arg string, out []byte) string {
	rel := bytes.TrimPrefix(out, []byte("./"))
	if arg != "./" {
		return dir + "/" + string(rel) // an explicit file: dir/name
	}
	if strings.HasSuffix(dir, "/") {
		return dir + string(rel)
	}
	return dir + "/" + string(rel)
}

// StartError says rg did not run, or ended before it could search: its
// binary refused, missing or replaced, a library missing, a wrong
// architecture, a crash. ForCall: only this call's roots kept it from
// running (the binary lies in one of them), not the binary itself.
type StartError struct {
	Bin     string
	Reason  string
	ForCall bool
}

func (e *StartError) Error() string {
	if e.ForCall {
		return e.Bin + " is not run: " + e.Reason
	}
	return e.Bin + " cannot run: " + e.Reason
}

// refused returns a StartError when what rg runs from lies in one of the
// call's roots, which the agent can write: it is not run, even confined.
func (r *RG) refused(roots []string) error {
	for _, p := range append([]string{r.bin}, r.libs...) {
		if d := within(p, roots); d != "" {
			what := "it"
			if p != r.bin {
				what = p + ", which it loads,"
			}
			return &StartError{Bin: r.bin, Reason: what + " lies in the allowed directory " + d + ", which the agent can write", ForCall: true}
		}
	}
	return nil
}

// Grep implements Searcher.
func (r *RG) Grep(ctx context.Context, q backend.GrepQuery, sink backend.Sink) error {
	pat, err := pattern.Of(q) // compiled once, at the stack's door
	if err != nil {
		return err
	}
	q.Compiled = pat // argv and the pipe read it (rgText), driven alone too
	if err := r.refused(q.Roots); err != nil {
		return err
	}
	if _, err := ignore.NewFilter(q.Globs, q.Types, q.NoIgnore); err != nil {
		return err
	}
	args := GrepArgs(q)
	patterns, _ := patternInput(q)
	seen := backend.NewProgress(q.Progress)
	for _, p := range q.Paths {
		t, err := newSearchTarget(q.Roots, q.RootDirs, p)
		if err != nil {
			return err
		}
		if t.skip {
			continue
		}
		err = r.run(ctx, runSpec{dir: t.dir, pol: readPolicy(q.Roots, q.RootDirs, p), args: append(args[:len(args):len(args)], t.arg), stdin: t.file, patterns: patterns, skipped: q.Skipped},
			func(out *bufio.Reader) error { return parseGrep(out, q, t.name, sink, seen) })
		if t.file != nil {
			t.file.Close()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Glob implements Searcher.
func (r *RG) Glob(ctx context.Context, q backend.GlobQuery, fn func(backend.File) error) error {
	if err := ignore.CheckGlob(q.Pattern); err != nil {
		return err
	}
	if err := r.refused(q.Roots); err != nil {
		return err
	}
	progress := backend.NewProgress(q.Progress)
	for _, p := range q.Paths {
		base, pat, ok := backend.GlobBase(p, q.Pattern)
		if !ok {
			continue
		}
		match := backend.GlobMatcher(pat)
		args := FilesArgs(q.NoIgnore) // ends with "--"
		args = append(append(args[:len(args)-1], globNarrowArgs(pat)...), "--threads", globThreads(), "--", "./")
		st, err := newStatter(base, progress, fn)
		if err != nil {
			continue // the base went away since globBase looked
		}
		// rg counts the directories it cannot read (--max-depth keeps it
		// from those a match cannot lie in); a listed file it need not
		// open, so one too long is skipped and counted here.
		err = r.run(ctx, runSpec{dir: base, pol: readPolicy(q.Roots, q.RootDirs, p), args: args, skipped: q.Skipped, maxDepth: backend.GlobDepth(pat)}, func(out *bufio.Reader) error {
			rd := lineReader{r: out}
			for {
				name, err := rd.until(0)
				if err == io.EOF {
					return nil
				} else if err != nil {
					return err
				}
				rel := bytes.TrimPrefix(name, []byte("./"))
				if !match(string(rel)) {
					continue
				}
				if backend.TooLong(len(rel)) {
					q.Skipped.Add(1)
					continue
				}
				if err := st.add(joinOut(base, "./", name)); err != nil {
					return err
				}
			}
		})
		if cerr := st.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readPolicy is what rg may read while it searches path: the root
// holding it and the ignore files above that root inside its repository
// (vetted regular and small; nothing else of the ancestors). The root's
// rule is built on its open directory (/proc/self/fd/N, which Landlock
// opens as that very directory) when there is one, so a root's name
// swapped for a link out before rg starts cannot widen it.
func readPolicy(roots []string, dirs []*os.File, path string) confine.Policy {
	root := backend.RootOf(backend.RootsOr(roots, path), path)
	rule := root
	if d := backend.RootDir(roots, dirs, root); d != nil {
		if p := fdPath(d); p != "" {
			rule = p
		}
	}
	return confine.Policy{Dirs: []string{rule}, Files: ignore.AncestorIgnoreFiles(path, root)}
}

// fdPath is /proc/self/fd/N for f, or "" where there is no such path.
func fdPath(f *os.File) string {
	p := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// runSpec is one rg run.
type runSpec struct {
	dir      string         // working directory
	pol      confine.Policy // what rg may read
	args     []string
	stdin    *os.File         // rg's standard input (nil: /dev/null)
	patterns string           // if set, fed to rg on descriptor 3 (--file /dev/fd/3)
	skipped  *backend.Skipped // counts the paths rg reports too long to open
	maxDepth int              // rg's --max-depth, or 0: what it reports at or below that depth is not counted
}

// run starts rg as sp says, confined to reading what sp.pol allows
// (confine.Start), and hands its stdout to parse. Cancelling ctx kills
// rg's whole process group and returns ctx.Err().
func (r *RG) run(ctx context.Context, sp runSpec, parse func(*bufio.Reader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, r.bin, sp.args...)
	cmd.Dir = sp.dir
	if sp.stdin != nil {
		cmd.Stdin = sp.stdin
	}
	if sp.patterns != "" {
		pr, pw, err := os.Pipe()
		if err != nil {
			return err
		}
		defer pr.Close()
		cmd.ExtraFiles = []*os.File{pr}
		go func() { // rg reads its patterns before it searches
			io.WriteString(pw, sp.patterns)
			pw.Close()
		}()
	}
	cmd.Env = rgEnv()
	ownProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	stderr := &rgStderr{maxDepth: sp.maxDepth}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	pol := sp.pol
	pol.Exec = r.libs
	if err := confine.Start(cmd, pol); err != nil {
		if ctx.Err() != nil {
			// The call's time ran out while rg started (a tight
			// timeout on a busy machine): a cut search, not an rg
			// that cannot run, which would send every later search
			// to the native scanner.
			return ctx.Err()
		}
		return &StartError{Bin: r.bin, Reason: err.Error()}
	}
	perr := parse(bufio.NewReaderSize(stdout, 256<<10))
	if perr != nil {
		_ = cmd.Cancel()
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr := cmd.Wait()
	stderr.endLine()
	sp.skipped.Add(stderr.tooLong)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if perr != nil {
		return perr
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) && (exit.ExitCode() < 0 || exit.ExitCode() > 2) {
		// rg ends 0, 1 or 2; anything else is a program that did not
		// get to search: the loader's 127 for a missing library, a
		// crash, a signal not of fsmcp's.
		return &StartError{Bin: r.bin, Reason: exit.String() + stderrNote(stderr.head.Bytes())}
	}
	if errors.As(werr, &exit) {
		// 1: no match. 2: an error, but rg goes on past files it
		// cannot open or read, so only a run that said nothing else
		// (a bad pattern, say) is a failure.
		if exit.ExitCode() == 1 || (exit.ExitCode() == 2 && (stderr.head.Len() == 0 || stderr.fileErrs > 0)) {
			return nil
		}
		msg := strings.TrimSpace(stderr.head.String())
		return fmt.Errorf("rg failed: %s", firstLine(msg))
	}
	return werr
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// rgStderr reads rg's (or find's) messages in bounded memory: the first
// 4 KiB for a failure's message, and per line only its end, enough to
// tell a file error ("PATH: ... (os error N)", as rg words them) and
// count those for ENAMETOOLONG. A name holding a newline splits its
// message in two lines, only the last of which ends so.
type rgStderr struct {
	head     bytes.Buffer
	tail     []byte // the end of the current line
	depth    int    // the slashes of the current line: its path's depth below "./"
	maxDepth int    // rg's --max-depth, or 0
	fileErrs int    // lines that are file errors
	tooLong  int64  // of them, ENAMETOOLONG, above maxDepth
}

const stderrHead, stderrTail = 4096, 32

func (e *rgStderr) Write(p []byte) (int, error) {
	n := len(p)
	if k := min(len(p), stderrHead-e.head.Len()); k > 0 {
		e.head.Write(p[:k])
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			e.depth += bytes.Count(p, slash)
			e.keep(p)
			break
		}
		e.depth += bytes.Count(p[:i], slash)
		e.keep(p[:i])
		e.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// keep appends b to the line's kept end.
func (e *rgStderr) keep(b []byte) {
	if len(b) >= stderrTail {
		e.tail = append(e.tail[:0], b[len(b)-stderrTail:]...)
		return
	}
	e.tail = append(e.tail, b...)
	if over := len(e.tail) - stderrTail; over > 0 {
		e.tail = append(e.tail[:0], e.tail[over:]...)
	}
}

var osErrorEnd = regexp.MustCompile(`\(os error (\d+)\)$`)

var slash = []byte{'/'}

// endLine classifies the line ended (a last one without a newline too).
// A path too long at rg's --max-depth is a directory (rg --files opens
// no file) whose entries lie deeper than the listing goes: rg's parallel
// walker (--threads above 1) tries to read such a directory and says so,
// its single-threaded one does not, and the native walker never reads
// it; none of them could hold an answer, so it is not counted skipped.
func (e *rgStderr) endLine() {
	depth := e.depth
	e.depth = 0
	if len(e.tail) == 0 {
		return
	}
	if m := osErrorEnd.FindSubmatch(e.tail); m != nil {
		e.fileErrs++
		if n, _ := strconv.Atoi(string(m[1])); n == backend.ErrnoTooLong && (e.maxDepth == 0 || depth < e.maxDepth) {
			e.tooLong++
		}
	}
	e.tail = e.tail[:0]
}

// lineReader reads delimited records of any length.
type lineReader struct {
	r       *bufio.Reader
	scratch []byte
}

// until returns the bytes up to (not including) delim, valid until the
// next call. io.EOF only at a clean record boundary.
func (l *lineReader) until(delim byte) ([]byte, error) {
	b, err := l.r.ReadSlice(delim)
	if err == nil {
		return b[:len(b)-1], nil
	}
	if err != bufio.ErrBufferFull {
		if err == io.EOF && len(b) > 0 {
			return b, nil // last record without delimiter
		}
		return nil, err
	}
	l.scratch = append(l.scratch[:0], b...)
	for {
		b, err = l.r.ReadSlice(delim)
		l.scratch = append(l.scratch, b...)
		if err == nil {
			return l.scratch[:len(l.scratch)-1], nil
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				return l.scratch, nil
			}
			return nil, err
		}
	}
}

// rgCutNote is what rg --max-columns-preview appends to a cut line.
var rgCutNote = regexp.MustCompile(` \[\.\.\. (?:omitted end of long line|\d+ more match(?:es)?)\]$`)

var binaryWarning = []byte(": WARNING: stopped searching binary file")

// parseGrep reads rg's --null output for q.Mode into sink.
func parseGrep(out *bufio.Reader, q backend.GrepQuery, pathOf func([]byte) string, sink backend.Sink, seen *backend.Progress) error {
	rd := lineReader{r: out}
	progress := seen.Add
	switch q.Mode {
	case backend.FilesWithMatches:
		for {
			name, err := rd.until(0)
			if err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			sink.File(pathOf(name)).End(1)
			progress()
		}
	case backend.Count:
		for {
			name, err := rd.until(0)
			if err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			path := pathOf(name)
			num, err := rd.until('\n')
			if err != nil && err != io.EOF {
				return err
			}
			n, err := strconv.Atoi(string(num))
			if err != nil {
				return fmt.Errorf("rg: unexpected count output %q", num)
			}
			sink.File(path).End(n)
			progress()
		}
	}
	// Content: "./path\0N:text\n", "./path\0N-text\n" or "--\n".
	var cur []byte
	var fs backend.FileSink
	count := 0
	for {
		if p, _ := out.Peek(3); len(p) == 3 && p[0] == '-' && p[1] == '-' && p[2] == '\n' {
			out.Discard(3)
			continue
		}
		name, err := rd.until(0)
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		// rg prints "PATH: WARNING: stopped searching binary file after
		// match (...)" (no NUL) when a file turns binary past a match;
		// drop it and any "--" separator after it.
		for {
			i := bytes.IndexByte(name, '\n')
			if i < 0 || !(bytes.Contains(name[:i], binaryWarning) || string(name[:i]) == "--") {
				break
			}
			name = name[i+1:]
		}
		if len(name) == 0 || bytes.Contains(name, binaryWarning) {
			continue // a trailing warning
		}
		if fs == nil || !bytes.Equal(name, cur) {
			if fs != nil {
				fs.End(count)
			}
			cur = append(cur[:0], name...)
			fs, count = sink.File(pathOf(name)), 0
			progress()
		}
		rest, err := rd.until('\n')
		if err != nil && err != io.EOF {
			return err
		}
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || (rest[i] != ':' && rest[i] != '-') {
			return fmt.Errorf("rg: unexpected output line %q", rest)
		}
		num, _ := strconv.Atoi(string(rest[:i]))
		ctxLine := rest[i] == '-'
		if !ctxLine {
			count++
		}
		text := rest[i+1:]
		if len(text) > backend.MaxLine+1 {
			// Only a line rg cut is this long: drop its note.
			if loc := rgCutNote.FindIndex(text); loc != nil {
				text = text[:loc[0]]
			}
		}
		fs.Line(num, text, ctxLine)
	}
	if fs != nil {
		fs.End(count)
	}
	return nil
}
