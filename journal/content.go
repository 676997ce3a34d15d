package journal

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/fsmcp/fsmcp/internal/escape"
	"github.com/fsmcp/fsmcp/sandbox"
)

// inlineMax is the largest content kept in the log line itself: small
// versions cost no file (and no 4 KiB block) of their own.
const inlineMax = 8 << 10

// packRef says where in a step's pack a content lies.
type packRef struct {
	Seg  int    `json:"seg"`
	Name string `json:"name"` // the pack's file, in the segment
	Off  int64  `json:"off"`
	Len  int64  `json:"len"` // compressed bytes
}

// errTookName: another file took p's name between the lstat that gave
// its mode and owner and the open that read its content.
var errTookName = errors.New("another file took its name while it was being kept")

// keepContent copies p's content into the journal: inline when small,
// else compressed into the step's pack. im has p's stat. Where another
// file took the name meanwhile, nothing is kept, and said.
func (st *Step) keepContent(p *sandbox.Path, im *Image) error {
	err := st.readContent(p, im)
	if errors.Is(err, errTookName) {
		st.tookName(p, im)
		return nil
	}
	return err
}

// tookName records that nothing of p was kept: its content with the
// mode and owner of another file would be a file nobody made (a script
// as another user's set-uid program).
func (st *Step) tookName(p *sandbox.Path, im *Image) {
	im.Lost = errTookName.Error()
	st.lose(escape.Name(p.Abs) + ": " + im.Lost)
}

// readContent is keepContent, but where another file took the name it
// returns errTookName, keeping nothing and saying nothing: the caller
// may take its lstat again.
func (st *Step) readContent(p *sandbox.Path, im *Image) error {
	ok, err := st.room(p, im.Size, "changed")
	if err != nil {
		return err
	}
	if !ok {
		im.Lost = "its content was more than the journal keeps for one change"
		return nil
	}
	f, err := st.dirs.openRead(p)
	if err != nil {
		im.Lost = "its content could not be read: " + sandbox.Cause(err).Error()
		st.lose(escape.Name(p.Abs) + ": " + im.Lost)
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		im.Lost = "it is no longer a regular file"
		st.lose(escape.Name(p.Abs) + ": " + im.Lost)
		return nil
	} else if !im.isOf(fi) {
		return errTookName // nothing kept rather than a mix
	}
	sum := sha256.New()
	r := io.TeeReader(io.LimitReader(f, st.cap()-st.kept+1), sum)
	var head [inlineMax + 1]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	if n <= inlineMax {
		im.Data, im.Size = bytes.Clone(head[:n]), int64(n)
		if im.Data == nil {
			im.Data = []byte{}
		}
		im.Hash = hex.EncodeToString(sum.Sum(nil))
		im.Checked = true
		st.kept += int64(n)
		return nil
	}
	ref, size, err := st.packFrom(io.MultiReader(bytes.NewReader(head[:n]), r))
	if err != nil {
		return err
	}
	if st.kept+size > st.cap() {
		im.Lost = "it grew past what the journal keeps for one change while it was read"
		st.lose(escape.Name(p.Abs) + ": " + im.Lost)
		return nil
	}
	im.Pack, im.Size, im.Hash = ref, size, hex.EncodeToString(sum.Sum(nil))
	im.Usage, im.Checked = ref.Len, true
	st.kept += ref.Len
	return nil
}

// packFrom appends what r yields, compressed, to the step's pack, and
// (st.mu held).
func (st *Step) packFrom(r io.Reader) (*packRef, int64, error) {
	if st.pack == nil {
		f, err := st.home.fs.OpenFile(segPath(st.seg, st.id+".pack"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, 0, err
		}
		st.pack = f
	}
	cw := &countWriter{w: st.pack}
	zw, _ := flate.NewWriter(cw, flate.BestSpeed)
	n, err := io.Copy(zw, r)
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, 0, err
	}
	ref := &packRef{Seg: st.seg, Name: st.id + ".pack", Off: st.packSize, Len: cw.n}
	st.packSize += cw.n
	st.home.grew(st.seg, cw.n)
	return ref, n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// openContent returns a reader of the content im keeps, in store.
func (store *Store) openContent(im *Image) (io.ReadCloser, error) {
	switch {
	case im.Data != nil || im.Type == File && im.Size == 0 && im.Pack == nil && im.Held == "":
		return io.NopCloser(bytes.NewReader(im.Data)), nil
	case im.Pack != nil:
		f, err := store.fs.Open(segPath(im.Pack.Seg, im.Pack.Name))
		if err != nil {
			return nil, fmt.Errorf("its old content is no longer in the journal")
		}
		zr := flate.NewReader(io.NewSectionReader(f, im.Pack.Off, im.Pack.Len))
		return &readCloser{zr, func() error { zr.Close(); return f.Close() }}, nil
	case im.Held != "":
		f, err := store.fs.OpenFile(im.Held, os.O_RDONLY|oNoFollow|oNonblock, 0)
		if err != nil {
			return nil, fmt.Errorf("its old content is no longer in the journal")
		}
		return f, nil
	}
	return nil, fmt.Errorf("its old content was not kept")
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r *readCloser) Close() error { return r.close() }

// heldName is a fresh name for an object moved into the step's segment.
func (st *Step) heldName() string {
	st.heldN++
	return path.Join(st.heldDir(), fmt.Sprintf("%s-%d", st.id, st.heldN))
}

// heldDir is the step's segment's directory of held objects, made on
// first use.
func (st *Step) heldDir() string {
	dir := segPath(st.seg, heldDir)
	if !st.heldMade {
		st.home.fs.Mkdir(dir, 0o700)
		st.heldMade = true
	}
	return dir
}

// holdLink hard-links the file p names into the journal (it is about to
// leave the tree, so nothing there changes it any more). It reports false
// where it cannot (another file system, another owner's file under
// protected hard links, no hard links): the caller copies instead.
func (st *Step) holdLink(p *sandbox.Path, im *Image, use int64) bool {
	if st.kept+use > st.cap() {
		return false // the copy path decides and says so
	}
	name := st.heldName()
	if err := st.linkInto(p, name); err != nil {
		return false
	}
	if fi, err := st.home.fs.Lstat(name); err != nil || !im.isOf(fi) {
		// Linked by name: another file took it after the lstat. The
		// copy that follows opens and compares, and keeps nothing.
		st.home.fs.Remove(name)
		return false
	}
	im.Held, im.Usage, im.Checked = name, use, true
	st.kept += use
	st.held(use)
	return true
}

// held counts n bytes of objects moved or linked into the step's
// segment; the segment's usage file gets the sum when the step ends.
func (st *Step) held(n int64) {
	st.heldUse += n
	st.home.grew(st.seg, n)
}

// confirmed reports whether the same refusal (k) was given within the
// last ten minutes, and forgets it; otherwise it remembers k.
func (s *Set) confirmed(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for old, t := range s.confirm {
		if now.Sub(t) > 10*time.Minute {
			delete(s.confirm, old)
		}
	}
	if _, ok := s.confirm[k]; ok {
		delete(s.confirm, k)
		return true
	}
	s.confirm[k] = now
	return false
}
