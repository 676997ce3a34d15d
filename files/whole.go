package files

import (
	"strings"
	"unicode/utf8"

	"github.com/fsmcp/fsmcp/sandbox"
)

// Whole is a file read whole into memory.
type Whole struct {
	Data []byte
	Info Info // sniffed from the first block
	// MIME is the type a client is told: by extension first, else sniffed
	// (as MIMEOf); a file that is not text never claims a text/ type.
	MIME string
	// IsText: the content is text and valid UTF-8, so it can be sent as a
	// string; otherwise it is bytes (base64 on the wire).
	IsText bool
}

// ReadWhole reads a regular file of at most max bytes (max <= 0: no
// limit). Errors: NotFound, Outside, IsDir, TooLarge (fault kinds).
func ReadWhole(p *sandbox.Path, max int64) (*Whole, error) {
	data, err := p.ReadFile(max)
	if err != nil {
		return nil, err
	}
	w := &Whole{Data: data, Info: Classify(data[:min(len(data), sniffLen)], int64(len(data))), MIME: MIMEOf(p, TypeFile)}
	w.IsText = w.Info.Kind == Text && utf8.Valid(data)
	if !w.IsText && strings.HasPrefix(w.MIME, "text/") {
		w.MIME = w.Info.MIME
	}
	return w, nil
}
