package wire

import (
	"bufio"
	"bytes"
	"io"
)

// headSize is how much of an oversized line is kept, to find its id.
const headSize = 4096

// lineReader splits input into lines of at most max bytes, in bounded
// memory: the rest of a longer line is read and dropped.
type lineReader struct {
	br  *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its end. For a line over max bytes it
// returns only the line's first bytes and tooLong. A last line without a
// newline is returned too; then io.EOF. The line is valid only until the
// next call: a line that fits the reader's buffer is not copied out of it.
func (r *lineReader) next() (line []byte, tooLong bool, err error) {
	var buf []byte
	for first := true; ; first = false {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			if first && err != bufio.ErrBufferFull {
				buf = chunk // the whole line
			} else {
				buf = append(buf, chunk...)
			}
			if len(buf) > r.max+2 { // room for "\r\n"
				tooLong = true
				buf = bytes.Clone(buf[:min(len(buf), headSize)])
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && len(buf) == 0 && !tooLong {
			return nil, false, err
		}
		if err != nil && err != io.EOF {
			return nil, false, err
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if !tooLong && len(buf) > r.max {
			tooLong = true
			buf = buf[:min(len(buf), headSize)]
		}
		return buf, tooLong, nil
	}
}
