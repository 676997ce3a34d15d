package index

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/fsmcp/fsmcp/backend/native"
)

// TestCloseWaitsForTheCensus: Close unmaps the index only once the
// census has ended the chunk it was stat'ing. A census is busy a quarter
// of its time, so of thirty Closes at times spread over its cycle some
// fall inside a chunk; before Close waited for it, the census read the
// unmapped index there and the test binary died of SIGSEGV (seen in CI).
func TestCloseWaitsForTheCensus(t *testing.T) {
	defer func(n int) { censusChunk = n }(censusChunk)
	censusChunk = 256
	root := gitRoot(t)
	files := map[string]string{}
	for i := range 4000 {
		files[fmt.Sprintf("d%d/f%d.txt", i%16, i)] = "nothing here\n"
	}
	writeTree(t, root, files)
	settled()
	cache := t.TempDir()
	for i := range 30 {
		s, err := New(native.New(), native.New(), Options{Mode: "on", Roots: []string{root}, CacheDir: cache, Settle: testSettle, MaxShare: 1, CensusBound: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		s.Start(context.Background())
		s.Wait()
		ps := s.roots[0].prune.Load()
		if ps == nil || len(ps.externalIDs) < 2*censusChunk {
			s.Close()
			t.Fatal("no census of several chunks runs: the test proves nothing")
		}
		deadline := time.Now().Add(time.Minute)
		for ps.census.passes.Load() < 2 {
			if time.Now().After(deadline) {
				s.Close()
				t.Fatal("the census made no pass in a minute")
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(i) * 37 * time.Microsecond) // spread over a chunk and its rest
		s.Close()
	}
}
