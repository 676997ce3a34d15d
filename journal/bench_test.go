package journal_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fsmcp/fsmcp/files"
	"github.com/fsmcp/fsmcp/journal"
)

// BenchmarkSmallEdit is a one-line edit of a 4 KiB file through
// files.Modify, with the journal on and off (go test -bench SmallEdit
// ./journal): the journal's cost per small change, both fsyncs included.
func BenchmarkSmallEdit(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("journal=%v", on), func(b *testing.B) {
			root, sb, _ := setup(b, journal.Config{})
			if !on {
				journal.Use(nil)
			}
			defer journal.Use(nil)
			name := root + "/a.txt"
			os.WriteFile(name, []byte(strings.Repeat("some line of text\n", 220)+"END\n"), 0o644)
			p := resolve(b, sb, name)
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				err := files.Modify(ctx, p, 0, func(old []byte) ([]byte, error) {
					return []byte(strings.Replace(string(old), "END", fmt.Sprint("x", i, "\nEND"), 1)), nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
