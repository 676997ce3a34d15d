package native

import (
	"bytes"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// lineSink records Line calls.
type lineSink struct {
	lines []string
	count int
	ended bool
}

func (s *lineSink) Line(num int, text []byte, context bool) bool {
	s.lines = append(s.lines, fmt.Sprintf("%d:%v:%s", num, context, text))
	return true
}
func (s *lineSink) End(count int) bool { s.count, s.ended = count, true; return true }

// naive is the reference: split into lines, run a per-line regexp.
func naive(re *regexp.Regexp, data []byte) (lines []string, count int) {
	text := strings.TrimSuffix(string(data), "\n")
	if len(data) == 0 {
		return nil, 0
	}
	for i, l := range strings.Split(text, "\n") {
		if re.MatchString(l) {
			lines = append(lines, fmt.Sprintf("%d:false:%s", i+1, l))
			count++
		}
	}
	return lines, count
}

// TestScanMatchesNaive compares the whole-buffer scanner (prefilters,
// rare-byte search, case-folding anchor) with a line-by-line reference on
// random text.
func TestScanMatchesNaive(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "c", "x", "y", "z", "K", "k", "S", "s", " ", "\t", "_", "(", ")",
		"A", "B", "C", ".", "\n", "\n", "ſ", "\u212a", "α", "é"}
	patterns := []struct {
		pat  string
		fold bool
	}{
		{"ab", false}, {"abc", false}, {"a.c", false}, {"x+y", false}, {"^ab", false}, {"c$", false},
		{"ab", true}, {"kS", true}, {"zzz", false}, {"(ab|yz)c", false}, {`\(a`, false}, {"a", false},
		{"b[^c]", false}, {"ss", true}, {"xyz", true}, {"", false},
		{"ab|yz", false}, {"ab|yz|c", true}, {"kS|xy", true}, {`\p{Greek}`, false}, {"ſ", true},
		{`\bab\b`, false}, {"a[bc]|z", false}, {"[a-c]+_x", false}, {"(ab|cA)(x|K)", true}, {"α|é", false},
	}
	for round := 0; round < 200; round++ {
		n := rnd.Intn(3000)
		if round%50 == 0 {
			n = 300 << 10 // beyond the initial buffer
		}
		var data []byte
		for len(data) < n {
			data = append(data, alphabet[rnd.Intn(len(alphabet))]...)
		}
		if round%3 == 0 {
			data = append(data, '\n')
		}
		for _, p := range patterns {
			q := backend.GrepQuery{Pattern: p.pat, IgnoreCase: p.fold, Mode: backend.Content}
			pat, err := pattern.Compile(q)
			if err != nil {
				t.Fatal(err)
			}
			flags := "(?m)"
			if p.fold {
				flags = "(?mi)"
			}
			ref := regexp.MustCompile(flags + p.pat)
			wantLines, wantCount := naive(ref, data)
			for _, mode := range []backend.Mode{backend.Content, backend.Count, backend.FilesWithMatches} {
				q.Mode = mode
				m := newMatcher(pat, q)
				var st scanState
				sink := &lineSink{}
				m.scan(&st, data, func() backend.FileSink { return sink })
				switch mode {
				case backend.Content:
					if strings.Join(sink.lines, "\n") != strings.Join(wantLines, "\n") {
						t.Fatalf("round %d %q fold=%v content:\n got %d lines %.300v\nwant %d lines %.300v", round, p.pat, p.fold, len(sink.lines), sink.lines, len(wantLines), wantLines)
					}
				case backend.Count:
					if sink.count != wantCount {
						t.Fatalf("round %d %q fold=%v: count %d, want %d", round, p.pat, p.fold, sink.count, wantCount)
					}
				default:
					if sink.ended != (wantCount > 0) {
						t.Fatalf("round %d %q fold=%v: files %v, want %v", round, p.pat, p.fold, sink.ended, wantCount > 0)
					}
				}
			}
		}
	}
}

func TestIndexLitFallback(t *testing.T) {
	// The rare byte 'q' appears far more often than the literal: the
	// search must hand over to bytes.Index and still find it.
	data := []byte(strings.Repeat("q-", 5000) + "aq" + strings.Repeat("q-", 10))
	pat, _ := pattern.Compile(backend.GrepQuery{Pattern: "aq"})
	m := newMatcher(pat, backend.GrepQuery{})
	if got, want := m.indexLit(data, 0), bytes.Index(data, []byte("aq")); got != want {
		t.Errorf("indexLit = %d, want %d", got, want)
	}
	if got := m.indexLit(data, 10001); got != -1 {
		t.Errorf("indexLit past the match = %d", got)
	}
}
