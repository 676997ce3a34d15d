package files

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/fsmcp/fsmcp/fault"
	"github.com/fsmcp/fsmcp/sandbox"
)

// Replacement replaces every match of Pattern.
type Replacement struct {
	Pattern *regexp.Regexp
	// With is the text that takes the place of one match; m holds the
	// submatch byte offsets into content (as FindAllStringSubmatchIndex
	// gives them). nil replaces with nothing.
	With func(content string, m []int) string
}

// ReplaceFile applies replacements in order to a text file of at most
// maxSize bytes, each to every match in the content the previous ones
// left, and writes the file back atomically when it changed. It returns
// the number of matches replaced and whether the content changed. Errors:
// NotFound, Outside, IsDir, TooLarge, Binary.
func ReplaceFile(p *sandbox.Path, reps []Replacement, maxSize int64) (n int, changed bool, err error) {
	unlock := lock(p.Abs)
	defer unlock()
	data, err := p.ReadFile(maxSize)
	if err != nil {
		return 0, false, err
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return 0, false, fault.Errorf(fault.Binary, p.Abs, "cannot replace in %s: it is a binary file", p.Abs)
	}
	content := string(data)
	for _, r := range reps {
		var count int
		content, count = replaceAll(content, r)
		n += count
	}
	if content == string(data) {
		return n, false, nil
	}
	if err := p.WriteFile([]byte(content), 0o644); err != nil {
		return 0, false, err
	}
	return n, true, nil
}

func replaceAll(content string, r Replacement) (string, int) {
	ms := r.Pattern.FindAllStringSubmatchIndex(content, -1)
	if len(ms) == 0 {
		return content, 0
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(content[last:m[0]])
		if r.With != nil {
			b.WriteString(r.With(content, m))
		}
		last = m[1]
	}
	b.WriteString(content[last:])
	return b.String(), len(ms)
}
