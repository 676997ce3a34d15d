package index

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fsmcp/fsmcp/backend"
	"github.com/fsmcp/fsmcp/backend/native"
	"github.com/fsmcp/fsmcp/backend/pattern"
)

// TestChainsNeverDropAMatch: for random patterns built from literals,
// classes, alternations and repeats over random texts, every text the
// pattern matches stays a candidate once the pair masks have
// narrowed its trigram query; -i (with ſ, é and the Kelvin sign),
// multiline and zero-width assertions included.
func TestChainsNeverDropAMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "A", "B", "_", "k", "K", "\u212a", "s", "ſ", "\n", "é", "É", " "}
	ix, texts := randomCorpus(t, r, alphabet, 400, 8, 50)
	atoms := []string{"ab", "ba", "a", "b", "_", "AB", "k", "s", "é", "[ab]", "[a_]", "(ab|ba)", "(?:a_b|b_a|kk)", "b+", "(ab){2}", "a?", `\b`, "$", "^", ".", " ", `\n`}
	var checked, dropped int
	for range 6000 {
		q := randomQuery(r, atoms, 3, 5, 3)
		pq := plan(q)
		if pq == nil || len(pq.chains) == 0 {
			continue
		}
		pat, err := pattern.Compile(q)
		if err != nil {
			continue
		}
		before, all := ix.eval(pq.cq, ix.posting)
		if all {
			continue
		}
		ids, _ := ix.match(pq, q.Multiline)
		dropped += len(before) - len(ids)
		n, lost := matchesOutside(t, ix, pat, texts, ids)
		if lost != "" {
			t.Fatalf("pattern %q (-i %v, multiline %v) matches %q but its runs %q drop the file", q.Pattern, q.IgnoreCase, q.Multiline, lost, pq.chains)
		}
		checked += n
	}
	t.Logf("%d matches checked, %d candidates dropped by the masks", checked, dropped)
	if checked < 200 || dropped < 200 {
		t.Fatalf("only %d matches checked and %d candidates dropped by the masks", checked, dropped)
	}
}

// TestChainsNarrow: a file holding every trigram of a literal, but not
// one after another, is no candidate; one holding the literal is, and so
// is each spelling -i allows. tegra.c is the Linux tree's commonest
// false -i candidate for pm_resume under one-byte masks: each of the
// literal's four-byte windows is there (pm_r, m_re, _res ...), not one
// of its five-byte ones.
func TestChainsNarrow(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"apart.c":   "pm_runtime_resume(dev);\n",
		"tegra.c":   "#include <linux/pm_runtime.h>\nstream_reg = 0;\ni2s_runtime_resume(dev);\n",
		"match.c":   "case PM_RESUME:\n",
		"lower.c":   "pm_resume(dev);\n",
		"alt.c":     "ERR_SYSTEM\n",
		"altno.c":   "ERR_ SYS _SYS R_S\n",
		"probe.c":   "static int foo_probe(struct device *d)\n",
		"probeno.c": "static int; foo_prob; obe(; _probe_done(\n",
	})
	settled()
	s := newIndexed(t, native.New(), root)
	ix := s.roots[0].ix.Load()
	for _, c := range []struct {
		q    backend.GrepQuery
		want []string
	}{
		{backend.GrepQuery{Pattern: "PM_RESUME"}, []string{"match.c"}},
		{backend.GrepQuery{Pattern: "pm_resume", IgnoreCase: true}, []string{"lower.c", "match.c"}},
		{backend.GrepQuery{Pattern: `\bpm_resume\b`}, []string{"lower.c"}},
		{backend.GrepQuery{Pattern: "LINK_REQ_RST|ERR_SYS"}, []string{"alt.c"}},
		{backend.GrepQuery{Pattern: `static int \w+_probe\(`}, []string{"probe.c"}},
	} {
		ids, all := ix.match(plan(c.q), false)
		if all {
			t.Fatalf("%q: not narrowed", c.q.Pattern)
		}
		in := map[uint32]bool{}
		for _, id := range ids {
			in[id] = true
		}
		var got []string
		for i := range ix.Files() {
			if in[uint32(ix.content(i))] {
				got = append(got, string(ix.nameBytes(i)))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q (-i %v): candidates %v, want %v", c.q.Pattern, c.q.IgnoreCase, got, c.want)
		}
	}
}
