package ignore

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// This file holds the walk rules shared by the native scanner and the find
// backend: gitignore matching, rg --glob overrides and rg --type filters.
//
// The gitignore matcher is written here rather than taken from a library
// (go-git's plumbing/format/gitignore was the candidate) because fsmcp must
// agree with ripgrep, not git, and must be fast on 100k-file trees:
// go-git matches by splitting every path into components and has no
// notion of .ignore/.rgignore precedence, rg's override globs or rg's
// "last ancestor with a .git stops .gitignore" rule. The translation of a
// gitignore line into a glob follows ripgrep's ignore crate
// (GitignoreBuilder::add_line) line for line; the glob itself is matched
// by doublestar (the dependency SPEC §1 chose for glob semantics), with
// fast paths for the common shapes (name, *.ext, exact path).

// MatchKind is the verdict of an ignore or override rule set.
type MatchKind int8

const (
	MatchNone      MatchKind = iota // no rule matched
	MatchIgnore                     // skip the entry
	MatchWhitelist                  // keep the entry ("!pattern")
)

type globKind int8

const (
	kindGlob         globKind = iota // doublestar on the relative path
	kindName                         // base name equals lit
	kindSuffix                       // base name ends with lit
	kindExact                        // relative path equals lit
	kindPrefix                       // base name starts with lit (".*")
	kindPrefixSuffix                 // base name is lit, anything, lit2 ("cscope.*.out")
	kindNameGlob                     // doublestar on the base name ("*.o.*", "*.tab.[ch]")
)

// The kinds are ripgrep's globset strategies, in the same spirit: most
// lines of a big .gitignore (Linux's: ".*", "*.o.*", "*.asn1.[ch]") name a
// file by its base name alone, and a string test or a glob over the name
// is far cheaper than a "**/" glob over the whole path, which took half
// of a walk's CPU inside a git repository. A glob kind first checks a
// literal every match must contain (need), as globset's required literals
// do.
type ignoreGlob struct {
	kind      globKind
	lit       string // the literal, or the glob for kindGlob and kindNameGlob
	lit2      string // kindPrefixSuffix's suffix
	need      string // a substring every match holds ("": none known)
	dirOnly   bool
	whitelist bool
}

// classifyName sets ig to match base names against x, a glob without '/'.
func (ig *ignoreGlob) classifyName(x string) {
	star := strings.IndexByte(x, '*')
	switch {
	case !strings.ContainsAny(x, globMeta):
		ig.kind, ig.lit = kindName, x
	case star == 0 && len(x) > 1 && !strings.ContainsAny(x[1:], globMeta):
		ig.kind, ig.lit = kindSuffix, x[1:]
	case star > 0 && !strings.ContainsAny(x[:star], globMeta) && !strings.ContainsAny(x[star+1:], globMeta):
		if star == len(x)-1 {
			ig.kind, ig.lit = kindPrefix, x[:star]
		} else {
			ig.kind, ig.lit, ig.lit2 = kindPrefixSuffix, x[:star], x[star+1:]
		}
	default:
		ig.kind, ig.lit, ig.need = kindNameGlob, x, globLiteral(x)
	}
}

// globLiteral is the longest run of plain (or escaped) characters in
// glob, which every match contains; "" when braces make that unsure.
func globLiteral(glob string) string {
	if strings.ContainsAny(glob, "{}") {
		return ""
	}
	// "**/" and "/**" may match nothing, their slash included.
	glob = strings.ReplaceAll(strings.ReplaceAll(glob, "**/", "*"), "/**", "*")
	var best, cur []byte
	cut := func() {
		if len(cur) > len(best) {
			best = cur
		}
		cur = nil
	}
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '\\':
			if i+1 < len(glob) {
				i++
				cur = append(cur, glob[i])
			}
		case '*', '?':
			cut()
		case '[':
			cut()
			j := i + 1
			if j < len(glob) && (glob[j] == '!' || glob[j] == '^') {
				j++
			}
			if j < len(glob) && glob[j] == ']' {
				j++
			}
			for j < len(glob) && glob[j] != ']' {
				j++
			}
			i = j
		default:
			cur = append(cur, c)
		}
	}
	cut()
	return string(best)
}

// match applies ig to an entry (rel relative to the rule's directory).
func (ig *ignoreGlob) match(rel, name string) bool {
	switch ig.kind {
	case kindName:
		return name == ig.lit
	case kindSuffix:
		return strings.HasSuffix(name, ig.lit)
	case kindExact:
		return rel == ig.lit
	case kindPrefix:
		return strings.HasPrefix(name, ig.lit)
	case kindPrefixSuffix:
		return len(name) >= len(ig.lit)+len(ig.lit2) && strings.HasPrefix(name, ig.lit) && strings.HasSuffix(name, ig.lit2)
	case kindNameGlob:
		return (ig.need == "" || strings.Contains(name, ig.need)) && doublestar.MatchUnvalidated(ig.lit, name)
	default:
		return (ig.need == "" || strings.Contains(rel, ig.need)) && doublestar.MatchUnvalidated(ig.lit, rel)
	}
}

// Gitignore is the rule set of one ignore file (or of a list of globs).
type Gitignore struct {
	globs      []ignoreGlob
	numIgnores int

	once sync.Once // builds idx at the first Match, after the last line
	idx  gitIndex
}

// gitIndex finds the lines that can match a name without trying each, as
// globset's literal and extension maps do: a 90-line .gitignore is
// mostly "name" and "*.ext" lines.
type gitIndex struct {
	names map[string][]int32 // kindName lines by their name
	exts  map[string][]int32 // kindSuffix lines of a plain ".ext", by it
	rest  []int32            // every other line, in order
}

func (g *Gitignore) index() {
	g.idx = gitIndex{names: map[string][]int32{}, exts: map[string][]int32{}}
	for i, ig := range g.globs {
		switch {
		case ig.kind == kindName:
			g.idx.names[ig.lit] = append(g.idx.names[ig.lit], int32(i))
		case ig.kind == kindSuffix && len(ig.lit) > 1 && strings.LastIndexByte(ig.lit, '.') == 0:
			g.idx.exts[ig.lit] = append(g.idx.exts[ig.lit], int32(i))
		default:
			g.idx.rest = append(g.idx.rest, int32(i))
		}
	}
}

// ParseGitignore parses gitignore text the way ripgrep does. Lines that
// are not valid globs are skipped.
func ParseGitignore(data []byte) *Gitignore {
	g := &Gitignore{}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		g.addLine(string(bytes.TrimSuffix(line, []byte{'\r'})))
	}
	return g
}

const globMeta = `*?[{\`

func (g *Gitignore) addLine(line string) bool {
	if strings.HasPrefix(line, "#") {
		return true
	}
	if !strings.HasSuffix(line, `\ `) {
		line = strings.TrimRight(line, " \t\r\n\v\f")
	}
	if line == "" {
		return true
	}
	var ig ignoreGlob
	absolute := false
	if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
		absolute = strings.HasPrefix(line, "/")
	} else {
		if strings.HasPrefix(line, "!") {
			ig.whitelist = true
			line = line[1:]
		}
		if strings.HasPrefix(line, "/") {
			line = line[1:]
			absolute = true
		}
	}
	if strings.HasSuffix(line, "/") {
		ig.dirOnly = true
		line = strings.TrimSuffix(line[:len(line)-1], `\`) // "a\/" is "a" too
	}
	actual := line
	if !absolute && !strings.Contains(line, "/") {
		if !strings.HasPrefix(actual, "**/") && actual != "**" {
			actual = "**/" + actual
		}
	}
	if strings.HasSuffix(actual, "/**") {
		actual += "/*"
	}
	if !doublestar.ValidatePattern(actual) || GlobAlternatives(actual) > MaxGlobAlternatives {
		return false
	}
	rest, isBase := strings.CutPrefix(actual, "**/")
	switch {
	case isBase && rest != "" && !strings.Contains(rest, "/") && !strings.Contains(rest, "**"):
		// "**/" then one element: the base name decides.
		ig.classifyName(rest)
	case !strings.ContainsAny(actual, globMeta):
		ig.kind, ig.lit = kindExact, actual
	default:
		ig.kind, ig.lit, ig.need = kindGlob, actual, globLiteral(actual)
	}
	g.globs = append(g.globs, ig)
	if !ig.whitelist {
		g.numIgnores++
	}
	return true
}

// Match matches rel (the path relative to the ignore file's directory,
// '/'-separated, whose last element is name): the last matching line
// wins, and a directory-only line matches only directories.
func (g *Gitignore) Match(rel, name string, isDir bool) MatchKind {
	if g == nil {
		return MatchNone
	}
	g.once.Do(g.index)
	best := int32(-1) // the last line that matches
	last := func(lines []int32) {
		for i := len(lines) - 1; i >= 0 && lines[i] > best; i-- {
			if !g.globs[lines[i]].dirOnly || isDir {
				best = lines[i]
				return
			}
		}
	}
	last(g.idx.names[name])
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		last(g.idx.exts[name[dot:]])
	}
	for i := len(g.idx.rest) - 1; i >= 0 && g.idx.rest[i] > best; i-- {
		ig := &g.globs[g.idx.rest[i]]
		if (!ig.dirOnly || isDir) && ig.match(rel, name) {
			best = g.idx.rest[i]
			break
		}
	}
	switch {
	case best < 0:
		return MatchNone
	case g.globs[best].whitelist:
		return MatchWhitelist
	}
	return MatchIgnore
}

// GitDir is the one directory every walk of fsmcp leaves out, whatever
// the ignore files and globs say: searches (rg's and the native scanner's
// Filter), listings (files), watches (watch) and a glob's base (backend's
// GlobBase). Decided here, once (AlwaysLeftOut, GitDirGlob); it is also
// what marks a repository.
const GitDir = ".git"

// GitDirGlob is the rg --glob (and Filter override) that leaves GitDir
// out; last, so no glob given brings it back.
const GitDirGlob = "!" + GitDir

// AlwaysLeftOut reports whether a walk leaves out the entry name whatever
// the rules say (GitDir).
func AlwaysLeftOut(name string) bool { return name == GitDir }

// Names of the ignore files, in increasing precedence.
const (
	GitignoreFile = ".gitignore"
	IgnoreFile    = ".ignore"
	RgignoreFile  = ".rgignore"
)

// IgnoreDir is one directory's ignore files, linked to its parent's.
type IgnoreDir struct {
	parent      *IgnoreDir
	dir         string // absolute, no trailing slash ("" for "/")
	git, ig, rg *Gitignore
	hasGit      bool // dir holds .git
	inRepo      bool // dir or an ancestor holds .git
}

// Child returns the ignore context of directory dir (absolute), a child
// of d's directory, reading the ignore files that the flags say exist.
// Without any, it returns d itself.
func (d *IgnoreDir) Child(dir string, hasGitignore, hasIgnore, hasRgignore, hasGit bool) *IgnoreDir {
	return d.ChildAt(-1, dir, hasGitignore, hasIgnore, hasRgignore, hasGit)
}

// ChildAt is Child with the ignore files opened relative to dirfd, an
// open descriptor of dir (-1: by path). An ignore file is read only if it
// is a regular file of at most MaxIgnoreFile bytes (readIgnore).
func (d *IgnoreDir) ChildAt(dirfd int, dir string, hasGitignore, hasIgnore, hasRgignore, hasGit bool) *IgnoreDir {
	if !hasGitignore && !hasIgnore && !hasRgignore && !hasGit {
		return d
	}
	c := &IgnoreDir{parent: d, dir: strings.TrimSuffix(dir, "/"), hasGit: hasGit, inRepo: hasGit || (d != nil && d.inRepo)}
	read := func(name string) *Gitignore {
		data := readIgnore(dirfd, strings.TrimSuffix(dir, "/"), name)
		if data == nil {
			return nil
		}
		g := ParseGitignore(data)
		if len(g.globs) == 0 {
			return nil
		}
		return g
	}
	if hasGitignore {
		c.git = read(GitignoreFile)
	}
	if hasIgnore {
		c.ig = read(IgnoreFile)
	}
	if hasRgignore {
		c.rg = read(RgignoreFile)
	}
	if c.git == nil && c.ig == nil && c.rg == nil && !hasGit {
		return d
	}
	return c
}

// ParentIgnores returns the ignore context of the directories above dir
// (an absolute directory), from "/" down to dir's parent, as ripgrep reads
// them for a search path — but only those inside root (the sandbox root
// holding dir; "" means dir itself) or inside the git repository holding
// dir: an ignore file in /tmp or a home directory above the repository is
// never opened, whatever it is. Every ancestor is still probed for .git,
// so a root inside a repository honours its .gitignore files.
func ParentIgnores(dir, root string) *IgnoreDir {
	dir = strings.TrimSuffix(dir, "/")
	if root = strings.TrimSuffix(root, "/"); root == "" {
		root = dir
	}
	var ancestors []string
	for d := dir; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			break
		}
		d = d[:i]
		ancestors = append(ancestors, d)
		if d == "" {
			break
		}
	}
	repo, inRepo := "", false
	for _, a := range append([]string{dir}, ancestors...) {
		if entryExists(a, GitDir) {
			repo, inRepo = a, true
			break
		}
	}
	var cur *IgnoreDir
	for i := len(ancestors) - 1; i >= 0; i-- {
		a := ancestors[i]
		p := a
		if p == "" {
			p = "/"
		}
		if within(a, root) || (inRepo && within(a, repo)) {
			cur = cur.ChildProbe(p)
		} else if entryExists(a, GitDir) {
			cur = cur.sentinel().Child(p, false, false, false, true)
		}
	}
	return cur
}

// AncestorIgnoreFiles lists the ignore files above root that
// ParentIgnores(dir, root) reads (those inside dir's repository) and that
// are regular files of at most MaxIgnoreFile bytes: what a confined rg is
// allowed to read besides root.
func AncestorIgnoreFiles(dir, root string) []string {
	dir, root = strings.TrimSuffix(dir, "/"), strings.TrimSuffix(root, "/")
	var repo string
	for d := dir; ; {
		if entryExists(d, GitDir) {
			repo = d
			break
		}
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return nil
		}
		d = d[:i]
	}
	if within(repo, root) {
		return nil // the repository starts at or below the root
	}
	var out []string
	for d := root; d != repo; {
		d = d[:strings.LastIndexByte(d, '/')]
		for _, name := range []string{GitignoreFile, IgnoreFile, RgignoreFile} {
			p := d + "/" + name
			if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() <= MaxIgnoreFile {
				out = append(out, p)
			}
		}
	}
	return out
}

// within reports whether directory a ("" for "/") is dir or below it
// (sandbox.Within, the one containment rule).
func within(a, dir string) bool {
	if dir == "" {
		return true
	}
	_, ok := sandbox.Within(dir, a)
	return ok
}

// entryExists reports whether dir ("" for "/") has an entry name, without
// following it.
func entryExists(dir, name string) bool {
	_, err := os.Lstat(dir + "/" + name)
	return err == nil
}

// sentinel returns d, or an empty context to hang children on.
func (d *IgnoreDir) sentinel() *IgnoreDir {
	if d == nil {
		return &IgnoreDir{dir: "\x00root"} // sentinel with no rules
	}
	return d
}

// ChildProbe is Child for a directory whose entries were not listed: it
// probes for the ignore files.
func (d *IgnoreDir) ChildProbe(dir string) *IgnoreDir {
	dir = strings.TrimSuffix(dir, "/")
	exists := func(name string) bool { return entryExists(dir, name) }
	return d.sentinel().Child(dir, exists(GitignoreFile), exists(IgnoreFile), exists(RgignoreFile), exists(GitDir))
}

// Match applies the ignore files of d and its ancestors to path (absolute,
// no trailing slash; name is its last element), with ripgrep's defaults:
// .rgignore over .ignore over .gitignore, the deepest directory first for
// each; .gitignore files count only inside a git repository (a directory
// at or above d holds .git), and not above the nearest one, so an
// unpacked tarball's .gitignore hides nothing.
func (d *IgnoreDir) Match(path, name string, isDir bool) MatchKind {
	mRg, mIg, mGit := MatchNone, MatchNone, MatchNone
	sawGit := d == nil || !d.inRepo
	for l := d; l != nil; l = l.parent {
		if l.git == nil && l.ig == nil && l.rg == nil {
			sawGit = sawGit || l.hasGit
			continue
		}
		if len(path) <= len(l.dir)+1 || path[len(l.dir)] != '/' || path[:len(l.dir)] != l.dir {
			continue
		}
		rel := path[len(l.dir)+1:]
		if mRg == MatchNone {
			mRg = l.rg.Match(rel, name, isDir)
		}
		if mIg == MatchNone {
			mIg = l.ig.Match(rel, name, isDir)
		}
		if !sawGit && mGit == MatchNone {
			mGit = l.git.Match(rel, name, isDir)
		}
		sawGit = sawGit || l.hasGit
	}
	switch {
	case mRg != MatchNone:
		return mRg
	case mIg != MatchNone:
		return mIg
	}
	return mGit
}

// FileTypes returns the names of the known file types, sorted.
func FileTypes() []string {
	names := make([]string, 0, len(fileTypes))
	for n := range fileTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TypeGlobs returns the base-name globs of file type name.
func TypeGlobs(name string) ([]string, bool) {
	g, ok := fileTypes[name]
	return g, ok
}

// Filter decides which walked entries are searched: rg --glob overrides
// first (a match decides at once), then ignore files (unless NoIgnore),
// then rg --type selections. .git is always excluded.
type Filter struct {
	overrides *Gitignore
	types     []ignoreGlob // kindName/kindSuffix/kindGlob on the base name
	noIgnore  bool
}

// NewFilter builds the filter of a query's globs, types and no_ignore.
func NewFilter(globs, types []string, noIgnore bool) (*Filter, error) {
	f := &Filter{noIgnore: noIgnore, overrides: &Gitignore{}}
	for _, g := range globs {
		if g == "" {
			continue
		}
		if err := CheckGlob(g); err != nil {
			return nil, err
		}
		if !f.overrides.addLine(g) {
			return nil, fault.Errorf(fault.Invalid, "", "invalid glob %q", g)
		}
	}
	f.overrides.addLine(GitDirGlob) // always last: nothing re-includes .git
	for _, t := range types {
		globs, ok := TypeGlobs(t)
		if !ok {
			return nil, fault.Errorf(fault.Invalid, "", "unrecognized file type: %s (known types: %s)", t, strings.Join(FileTypes(), ", "))
		}
		for _, g := range globs {
			ig := ignoreGlob{kind: kindGlob, lit: g}
			switch {
			case !strings.ContainsAny(g, globMeta):
				ig.kind = kindName
			case g[0] == '*' && !strings.ContainsAny(g[1:], globMeta):
				ig.kind, ig.lit = kindSuffix, g[1:]
			}
			f.types = append(f.types, ig)
		}
	}
	return f, nil
}

// Skip reports whether the entry path (absolute; name its last element)
// found while walking search path root is left out. ig is the ignore
// context of the entry's directory.
func (f *Filter) Skip(ig *IgnoreDir, root, path, name string, isDir bool) bool {
	rel := name
	if len(path) > len(root)+1 && strings.HasPrefix(path, root) {
		rel = path[len(root)+1:]
		if root == "/" {
			rel = path[1:]
		}
	}
	// Override globs are gitignore lines read inverted: "*.go" keeps,
	// "!*.go" skips.
	switch f.overrides.Match(rel, name, isDir) {
	case MatchIgnore:
		return false
	case MatchWhitelist:
		return true
	}
	// Override semantics: whitelist globs exist and none matched a file.
	if !isDir && f.overrides.numIgnores > 0 {
		return true
	}
	if !f.noIgnore && ig != nil && ig.Match(path, name, isDir) == MatchIgnore {
		return true
	}
	if !isDir && len(f.types) > 0 {
		if strings.HasSuffix(name, ".") {
			return true // ripgrep finds no file name in "x." and so no type
		}
		for i := range f.types {
			t := &f.types[i]
			var ok bool
			switch t.kind {
			case kindName:
				ok = name == t.lit
			case kindSuffix:
				ok = strings.HasSuffix(name, t.lit)
			default:
				ok, _ = doublestar.Match(t.lit, name)
			}
			if ok {
				return false
			}
		}
		return true
	}
	return false
}
