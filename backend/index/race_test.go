package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
)

// TestFreshnessRace: files are edited in place (to the same size, so
// only their times move), appended to, created, renamed, replaced by a
// rename over them, truncated and deleted from outside while indexed
// searches run; after each burst the indexed answer must be exactly
// what rg (or, without rg, the native scanner) finds on the real tree.
// The index is built once, before all of it, so every answer rests on
// the freshness check alone.
func TestFreshnessRace(t *testing.T) {
	root := gitRoot(t)
	r := rand.New(rand.NewPCG(7, 11))
	words := []string{"alpha", "beta", "gamma", "delta", "NEEDLE", "needle", "Needle", "haystack", "straw"}
	line := func() string {
		var sb strings.Builder
		for range 1 + r.IntN(6) {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
		return sb.String()
	}
	content := func() string {
		var sb strings.Builder
		for range 1 + r.IntN(8) {
			sb.WriteString(line())
		}
		return sb.String()
	}
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = content()
	}
	writeTree(t, root, files)
	settled()
	ref, s := indexedAgainstRef(t, root)

	list := func() []string {
		var out []string
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !strings.Contains(p, "/.git") {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	created := 0
	mutate := func() {
		all := list()
		if len(all) == 0 {
			return
		}
		p := all[r.IntN(len(all))]
		switch r.IntN(7) {
		case 0: // in place, same size: "straw" ↔ "NEEDL" keeps every length
			b, _ := os.ReadFile(p)
			nb := strings.Replace(string(b), "haystack", "NEEDLE!!", 1)
			if nb == string(b) {
				nb = strings.Replace(string(b), "NEEDLE", "beta!!", 1)
			}
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.WriteAt([]byte(nb), 0)
				f.Close()
			}
		case 1: // append
			if f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0); err == nil {
				f.WriteString("appended NEEDLE " + words[r.IntN(len(words))] + "\n")
				f.Close()
			}
		case 2: // create
			created++
			os.WriteFile(filepath.Join(root, fmt.Sprintf("d%d/new%04d.txt", r.IntN(7), created)), []byte(content()), 0o644)
		case 3: // rename to a new name
			created++
			os.Rename(p, filepath.Join(root, fmt.Sprintf("d%d/moved%04d.txt", r.IntN(7), created)))
		case 4: // replace by a rename over it (as editors and fsmcp write)
			tmp := p + ".tmp-new"
			os.WriteFile(tmp, []byte(content()), 0o644)
			os.Rename(tmp, p)
		case 5: // truncate
			os.Truncate(p, int64(r.IntN(10)))
		case 6: // delete
			os.Remove(p)
		}
	}
	queries := []backend.GrepQuery{
		{Pattern: "NEEDLE", Mode: backend.Count},
		{Pattern: "needle", IgnoreCase: true, Mode: backend.Content},
		{Pattern: `NEEDLE!!|haystack beta`},
	}
	if !s.Narrows(backend.GrepQuery{Pattern: "NEEDLE", Paths: []string{root}}) {
		t.Fatal("the race would not exercise the index: NEEDLE is not narrowed")
	}
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	ctx := context.Background()
	for round := range rounds {
		// A burst of changes with indexed searches running meanwhile.
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := queries[round%len(queries)]
			q.Paths = []string{root}
			backend.Run(ctx, s, q, 0, 0)
		}()
		for range 1 + r.IntN(6) {
			mutate()
		}
		wg.Wait()
		for _, q := range queries {
			q.Paths = []string{root}
			want, got := result(t, ref, q), result(t, s, q)
			if got != want {
				t.Fatalf("round %d, %+v: indexed answer differs from %s on the real tree:\nwant %s\ngot  %s", round, q, ref.Name(), want, got)
			}
		}
	}
}

// TestSearchesWhileBuilding: searches that run while the index is being
// built (before it is ready, and as it is put in use) answer as the
// unindexed native scanner does.
func TestSearchesWhileBuilding(t *testing.T) {
	root := gitRoot(t)
	files := map[string]string{}
	for i := range 600 {
		body := "plain text line\n"
		if i%37 == 0 {
			body += "BUILD_TOKEN here\n"
		}
		files[fmt.Sprintf("d%02d/f%04d.txt", i%20, i)] = body
	}
	writeTree(t, root, files)
	settled()
	native := native.New()
	s, err := New(native, native, Options{Mode: "on", Roots: []string{root}, CacheDir: t.TempDir(), Settle: testSettle, MaxShare: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := backend.GrepQuery{Pattern: "BUILD_TOKEN", Paths: []string{root}, Mode: backend.Count}
	want := result(t, native, q)
	s.Start(context.Background())
	for i := 0; i < 200 && !s.Ready(); i++ {
		if got := result(t, s, q); got != want {
			t.Fatalf("search %d during the build: %s, want %s", i, got, want)
		}
	}
	s.Wait()
	if !s.Ready() || !s.Narrows(q) {
		t.Fatal("the index was not put in use")
	}
	if got := result(t, s, q); got != want {
		t.Fatalf("after the build: %s, want %s", got, want)
	}
}
