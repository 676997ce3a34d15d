package profiles_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fsmcp/fsmcp/internal/test/testenv"
	"github.com/fsmcp/fsmcp/profiles"
	"github.com/fsmcp/fsmcp/server"
)

// nextOffset is the offset a cut fs_read answer says to read on from.
var nextOffset = regexp.MustCompile(`use offset=(\d+) to read on\)$`)

// TestAnswersFitTheClientsOwnLimit: a client whose name tells a limit
// under --max-output (Copilot CLI's 10 KiB, counted in bytes here; Codex's
// 48,000 bytes) gets answers within it, cut between whole
// lines with the same exact notes as any cut answer, and paging on from
// the note's offset goes on at the next line; a drop-in's answer is cut by
// the server's last guard to the same limit. A client of no known limit
// gets --max-output.
func TestAnswersFitTheClientsOwnLimit(t *testing.T) {
	var ascii, greek strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&ascii, "line %04d: the quick brown fox jumps over it\n", i+1)
		fmt.Fprintf(&greek, "γραμμή %04d: η γρήγορη καφέ αλεπού πηδά\n", i+1)
	}
	for _, c := range []struct {
		client, version string
		file            string
		bytes           int // the client's limit, in bytes
	}{
		{"copilot-cli", "1.0.102", "ascii.txt", 10000},
		{"copilot-cli", "1.0.102", "greek.txt", 10000},
		{"codex-mcp-client", "0.171.0", "greek.txt", 47900},
	} {
		t.Run(c.client+"/"+c.file, func(t *testing.T) {
			e := testenv.New(t, testenv.WithClientInfo(c.client, c.version))
			e.Write("root/ascii.txt", ascii.String())
			e.Write("root/greek.txt", greek.String())
			file := e.Path("root/" + c.file)
			first := e.OK("fs_read", map[string]any{"file_path": file})
			if len(first) > c.bytes || len(first) < c.bytes/2 {
				t.Fatalf("fs_read gave %d bytes, want at most %d and most of it", len(first), c.bytes)
			}
			m := nextOffset.FindStringSubmatch(first)
			if m == nil || !strings.Contains(first, fmt.Sprintf("to stay within %d bytes;", c.bytes)) {
				t.Fatalf("no paging note naming the limit: %q", first[max(0, len(first)-200):])
			}
			next, _ := strconv.Atoi(m[1])
			body := first[:strings.LastIndex(first, "\n\n(")]
			lastShown := body[strings.LastIndexByte(body, '\n')+1:]
			if !strings.HasPrefix(strings.TrimLeft(lastShown, " "), strconv.Itoa(next-1)+"\t") {
				t.Errorf("the last line shown is %q, want line %d whole", lastShown, next-1)
			}
			second := e.OK("fs_read", map[string]any{"file_path": file, "offset": next})
			if !strings.HasPrefix(strings.TrimLeft(second, " "), strconv.Itoa(next)+"\t") || len(second) > c.bytes {
				t.Errorf("reading on from offset=%d: %d bytes starting %.40q", next, len(second), second)
			}

			grep := e.OK("fs_grep", map[string]any{"pattern": "0", "path": file, "output_mode": "content"})
			if len(grep) > c.bytes || !regexp.MustCompile(`pass offset=\d+ for more\)$`).MatchString(grep) {
				t.Errorf("fs_grep: %d bytes ending %q", len(grep), grep[max(0, len(grep)-120):])
			}
		})
	}

	t.Run("reference", func(t *testing.T) {
		tables, err := profiles.Lookup("reference")
		if err != nil {
			t.Fatal(err)
		}
		e := testenv.New(t, testenv.WithClientInfo("copilot-cli", "1.0.102"), testenv.WithServer(func(c *server.Config) { c.Profiles = tables }))
		e.Write("root/greek.txt", greek.String())
		got := e.OK("read_text_file", map[string]any{"path": e.Path("root/greek.txt")})
		if len(got) > 10000 || !strings.Contains(got, "left out to stay within 10000 bytes (Copilot CLI's own limit)") {
			t.Errorf("read_text_file: %d bytes ending %q", len(got), got[max(0, len(got)-200):])
		}
	})

	t.Run("initialize", func(t *testing.T) {
		// The client named in initialize (2025-11-25), not in each
		// request's _meta (2026-07-28, the other cases).
		e := testenv.New(t, testenv.WithClientInfo("copilot-cli", "1.0.102"), testenv.WithLegacyProtocol())
		e.Write("root/ascii.txt", ascii.String())
		got := e.OK("fs_read", map[string]any{"file_path": e.Path("root/ascii.txt")})
		if len(got) > 10000 || !nextOffset.MatchString(got) {
			t.Errorf("fs_read over the initialize handshake: %d bytes ending %q", len(got), got[max(0, len(got)-120):])
		}
	})

	t.Run("other clients", func(t *testing.T) {
		e := testenv.New(t, testenv.WithClientInfo("claude-code", "2.1.332"))
		e.Write("root/greek.txt", greek.String())
		got := e.OK("fs_read", map[string]any{"file_path": e.Path("root/greek.txt")})
		// 2000 lines of 45 characters fit --max-output (100000 here), though
		// not 10,000 bytes or 47,900.
		if n := utf8.RuneCountInString(got); n > 100000 || !strings.HasSuffix(got, "(showing lines 1-2000 of 3000; use offset=2001 to read on)") {
			t.Errorf("fs_read for a client of no known limit: %d characters ending %q", n, got[max(0, len(got)-200):])
		}
	})
}
