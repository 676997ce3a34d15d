// Package sandbox confines every path a client sends to the allowed roots.
//
// Guarantees: a path is first checked lexically (absolute, no NUL byte,
// cleaned, inside a root by whole path components), and then every I/O on it
// goes through the root's os.Root handle, so a symlink that points out of the
// root — present at check time or swapped in afterwards — makes the operation
// fail instead of leaving the root.
//
// Not guaranteed (as for os.Root): protection against bind mounts, /proc
// magic links, or another process that renames a root's ancestors. Paths
// handed to external programs (rg, find) are checked with their symlinks
// resolved just before the program starts; such a program does not follow
// symlinks while it walks.
package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fsmcp/fsmcp/fault"
)

// Errors a client can trigger. Each message is one clear sentence.
var (
	ErrNotAbsolute = fault.New(fault.NotAbsolute, "path must be absolute")
	ErrNotRelative = fault.New(fault.NotRelative, "path must be relative")
	ErrNUL         = fault.New(fault.NULInPath, "path contains a NUL byte")
	ErrEmpty       = fault.New(fault.NoPath, "path is required")
	ErrNoRoots     = errors.New("no allowed directory is usable")
)

// OutsideError says a path lies outside every allowed root. Link says the
// path itself lies inside, but a symlink on it leads out.
type OutsideError struct {
	Path string
	Link bool
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("path %s is outside allowed directories", e.Path)
}

func (e *OutsideError) Kind() fault.Kind { return fault.Outside }
func (e *OutsideError) Where() string    { return e.Path }

// IsOutside reports whether err is a refusal for leaving the roots,
// including os.Root's own "path escapes from parent".
func IsOutside(err error) bool {
	var oe *OutsideError
	return errors.As(err, &oe) || (err != nil && strings.Contains(err.Error(), "path escapes from parent"))
}

// Root is one allowed directory.
type Root struct {
	// Path is the root's real path (symlinks resolved).
	Path string
	// names are the spellings a client may use: the real path and, when the
	// root was given through a symlink, the name it was given as.
	names []string
	fs    *os.Root
	owned bool // closed by the Sandbox that opened it
	// base is the directory the user named (a DIR, or a root a client
	// gave) that this root lies in, and baseRel this root's slash path
	// below it: a root narrowed to a subdirectory still answers to the
	// DIR it came from, so what is kept per DIR (the change journal)
	// does not split by a client's narrowing.
	base, baseRel string

	handleOnce sync.Once
	handle     *os.File
	handleErr  error
}

// Handle is a handle on the root directory itself, opened on first use
// and kept with the root (its Sandbox's Close closes it): a reader of
// many names beneath it (the change journal's) opens none of its own.
// Its users must not close it.
func (r *Root) Handle() (*os.File, error) {
	r.handleOnce.Do(func() { r.handle, r.handleErr = r.fs.Open(".") })
	return r.handle, r.handleErr
}

// closeHandle closes the root's handle, if one was opened.
func (r *Root) closeHandle() {
	r.handleOnce.Do(func() {}) // none opened after this
	if r.handle != nil {
		r.handle.Close()
	}
}

// Base returns the directory the user named that this root lies in, and
// the slash path of this root below it ("." when the root is that
// directory).
func (r *Root) Base() (dir, rel string) { return r.base, r.baseRel }

// FS is the root's os.Root handle: all I/O below it is contained.
func (r *Root) FS() *os.Root { return r.fs }

// Sandbox is a set of allowed roots.
type Sandbox struct {
	roots []*Root
}

// New opens the given directories as roots. A directory that cannot be used
// is reported in the returned errors and skipped; ErrNoRoots is among them
// when none is usable.
func New(dirs []string) (*Sandbox, []error) {
	s := &Sandbox{}
	var errs []error
	for _, d := range dirs {
		r, err := openRoot(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if old := s.find(r.Path); old != nil {
			old.addName(r.names...)
			r.fs.Close()
			continue
		}
		s.roots = append(s.roots, r)
	}
	if len(s.roots) == 0 {
		errs = append(errs, ErrNoRoots)
	}
	return s, errs
}

func openRoot(dir string) (*Root, error) {
	if strings.ContainsRune(dir, 0) {
		return nil, fmt.Errorf("allowed directory %q: %w", dir, ErrNUL)
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = sysPath(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("allowed directory %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("allowed directory %s does not exist or cannot be resolved: %w", dir, Cause(err))
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("allowed directory %s: %w", dir, Cause(err))
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("allowed directory %s is not a directory", dir)
	}
	h, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("allowed directory %s: %w", dir, Cause(err))
	}
	r := &Root{Path: real, fs: h, owned: true, base: real, baseRel: "."}
	r.addName(real, abs)
	return r, nil
}

func (r *Root) addName(names ...string) {
	for _, n := range names {
		if !slices.Contains(r.names, n) {
			r.names = append(r.names, n)
		}
	}
}

func (s *Sandbox) find(real string) *Root {
	for _, r := range s.roots {
		if samePath(r.Path, real) {
			return r
		}
	}
	return nil
}

// Roots returns the real paths of the roots, in the order given.
func (s *Sandbox) Roots() []string {
	out := make([]string, len(s.roots))
	for i, r := range s.roots {
		out[i] = r.Path
	}
	return out
}

// Close releases the roots this Sandbox opened.
func (s *Sandbox) Close() error {
	var errs []error
	for _, r := range s.roots {
		r.closeHandle()
		if r.owned {
			errs = append(errs, r.fs.Close())
		}
	}
	return errors.Join(errs...)
}

// Clone returns a sandbox of the same roots with handles of its own,
// each opened through the root's handle (never by name again): what
// outlives the call whose sandbox it was (the journaling of what a
// command left running) holds its own. Close it after use.
func (s *Sandbox) Clone() (*Sandbox, error) {
	out := &Sandbox{}
	for _, r := range s.roots {
		fs, err := r.fs.OpenRoot(".")
		if err != nil {
			out.Close()
			return nil, err
		}
		out.roots = append(out.roots, &Root{Path: r.Path, names: slices.Clone(r.names), fs: fs, owned: true, base: r.base, baseRel: r.baseRel})
	}
	return out, nil
}

// Narrow returns a sandbox limited to dirs, each of which must lie inside
// this one (the `_meta.allowed_dirs` rule). Close it after use.
//
// Each narrowed root is opened from its parent root's handle, never by
// name a second time: a directory swapped for a link out between the check
// and the open cannot become the root.
func (s *Sandbox) Narrow(dirs []string) (*Sandbox, error) {
	out := &Sandbox{}
	for _, d := range dirs {
		r, err := s.openBelow(d)
		if err != nil {
			out.Close()
			return nil, err
		}
		out.roots = append(out.roots, r)
	}
	if len(out.roots) == 0 {
		return nil, errors.New("allowed_dirs is empty: no directory would be allowed")
	}
	return out, nil
}

// openBelow opens the directory d, which must lie inside a root, through
// that root's handle (os.Root.OpenRoot refuses to leave it). The real path
// is kept as the root's name for messages and external programs, and must
// name the very directory the handle holds.
func (s *Sandbox) openBelow(d string) (*Root, error) {
	p, err := s.Resolve(d)
	if err != nil {
		return nil, err
	}
	h, err := p.Root.fs.OpenRoot(p.Rel)
	if IsOutside(err) {
		// A link to another root: open it from that root's handle.
		h, err = s.openVia(p.Abs)
	}
	if err != nil {
		return nil, describe(p.Abs, err)
	}
	real, err := s.RealPath(p.Abs)
	if err == nil {
		err = sameDir(h, real, p.Abs)
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	r := &Root{Path: real, fs: h, owned: true}
	r.base, r.baseRel = s.baseOf(real)
	r.addName(real, p.Abs)
	return r, nil
}

// baseOf returns the named directory and relative path of real, a real
// path inside one of s's roots.
func (s *Sandbox) baseOf(real string) (dir, rel string) {
	rp, err := s.Resolve(real)
	if err != nil {
		return real, "."
	}
	return rp.Root.base, path.Join(rp.Root.baseRel, rp.Rel)
}

// openVia opens the directory abs names, through the root that holds its
// real path.
func (s *Sandbox) openVia(abs string) (*os.Root, error) {
	real, err := s.RealPath(abs)
	if err != nil {
		return nil, err
	}
	rp, err := s.Resolve(real)
	if err != nil {
		return nil, err
	}
	return rp.Root.fs.OpenRoot(rp.Rel)
}

// sameDir checks that the name real still names the directory h holds.
func sameDir(h *os.Root, real, client string) error {
	hi, err := h.Stat(".")
	if err != nil {
		return describe(client, err)
	}
	ni, err := os.Stat(real)
	if err != nil || !os.SameFile(hi, ni) {
		return fmt.Errorf("allowed directory %s changed while it was being opened; try again", client)
	}
	return nil
}

// Extend returns a sandbox with this one's roots plus dirs (the
// `--trust-meta` rule). Close it after use. A dir outside every root is an
// addition, opened by name as the command line's are: --trust-meta says
// whoever sends _meta is trusted with any directory it names. A dir under
// an existing root is a path the agent can change (swap it for a link
// out), so it stays within that root: it is opened beneath the root's
// handle as Narrow opens it, never following a link out.
func (s *Sandbox) Extend(dirs []string) (*Sandbox, error) {
	out := &Sandbox{}
	for _, r := range s.roots {
		out.roots = append(out.roots, &Root{Path: r.Path, names: r.names, fs: r.fs, base: r.base, baseRel: r.baseRel})
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			out.Close()
			return nil, fmt.Errorf("allowed_dirs entry %q: %w", d, ErrNotAbsolute)
		}
		var r *Root
		var err error
		if s.Contains(d) {
			r, err = s.openBelow(d)
		} else {
			r, err = openRoot(d)
		}
		if err != nil {
			out.Close()
			return nil, err
		}
		if old := out.find(r.Path); old != nil {
			r.fs.Close()
			continue
		}
		out.roots = append(out.roots, r)
	}
	return out, nil
}

// Path is a client path that lies lexically inside a root.
type Path struct {
	Root *Root
	// Rel is the slash-separated path below the root ("." for the root).
	Rel string
	// Abs is the cleaned absolute path as the client spelled it (as the
	// system will open it: sysPath).
	Abs string
}

// Resolve checks a client path and finds the root that holds it. It does no
// I/O; the operations on Path do theirs through the root. The path is
// compared as the system will open it (sysPath: on Windows without a
// \\?\ prefix, with the trailing dots and spaces Win32 strips gone).
func (s *Sandbox) Resolve(p string) (*Path, error) {
	if p == "" {
		return nil, ErrEmpty
	}
	if strings.ContainsRune(p, 0) {
		return nil, ErrNUL
	}
	clean, err := sysPath(p)
	if err != nil {
		return nil, err
	}
	var best *Path
	bestLen := -1
	for _, r := range s.roots {
		for _, name := range r.names {
			rel, ok := Within(name, clean)
			if ok && len(name) > bestLen {
				best, bestLen = &Path{Root: r, Rel: rel, Abs: clean}, len(name)
			}
		}
	}
	if best == nil {
		return nil, &OutsideError{Path: p}
	}
	return best, nil
}

// Contains reports whether an absolute path lies lexically inside a root.
func (s *Sandbox) Contains(p string) bool {
	_, err := s.Resolve(p)
	return err == nil
}

// RealPath resolves every symlink in an absolute client path and checks that
// the result is still inside a root. Use it before handing a path to an
// external program.
func (s *Sandbox) RealPath(p string) (string, error) {
	rp, err := s.Resolve(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(rp.Abs)
	if err != nil {
		// A link out of the root is refused as such, even when its target
		// is missing: "not found" would tell what exists outside.
		if _, serr := rp.Root.fs.Stat(rp.Rel); IsOutside(serr) {
			return "", &OutsideError{Path: p}
		}
		return "", describe(p, err)
	}
	if !s.Contains(real) {
		return "", &OutsideError{Path: p}
	}
	return real, nil
}

// describe turns an error from an operation on p into one clear sentence.
func describe(p string, err error) error {
	switch {
	case err == nil:
		return nil
	case IsOutside(err):
		return &OutsideError{Path: p}
	case errors.Is(err, fs.ErrNotExist):
		return &NotFoundError{Path: p}
	case errors.Is(err, fs.ErrPermission):
		return fault.Errorf(fault.Permission, p, "permission denied: %s", p)
	}
	return fmt.Errorf("%s: %w", p, Cause(err))
}

// NotFoundError says a path does not exist.
type NotFoundError struct{ Path string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("file not found: %s", e.Path) }

func (e *NotFoundError) Kind() fault.Kind { return fault.NotFound }
func (e *NotFoundError) Where() string    { return e.Path }

// Is lets errors.Is(err, fs.ErrNotExist) see through a NotFoundError.
func (e *NotFoundError) Is(target error) bool { return target == fs.ErrNotExist }

// Cause drops the *PathError or *LinkError wrapper of an I/O error, whose
// text repeats an internal (root-relative, real or temporary) name the
// client never sent, keeping the reason ("no space left on device").
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Dirs are the roots' directories, open (see OpenDirs).
type Dirs struct{ files []*os.File }

// Files returns the open directories, in the order of Roots.
func (d *Dirs) Files() []*os.File { return d.files }

// Close closes them.
func (d *Dirs) Close() error {
	var errs []error
	for _, f := range d.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// OpenDirs opens each root's directory through its handle, in the order of
// Roots, for another process to use by descriptor: the sandboxed shell's
// Landlock rules are built on them, so a root's name swapped meanwhile
// cannot widen what the shell may touch. Close them after use.
func (s *Sandbox) OpenDirs() (*Dirs, error) {
	d := &Dirs{}
	for _, r := range s.roots {
		f, err := r.fs.Open(".")
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("allowed directory %s: %w", r.Path, Cause(err))
		}
		d.files = append(d.files, f)
	}
	return d, nil
}
