package index

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestMergeRuns: the runs spilled to disk and the pairs left in memory
// merge into one sorted sequence holding each pair once per run.
func TestMergeRuns(t *testing.T) {
	b := &builder{dir: t.TempDir()}
	r := rand.New(rand.NewPCG(3, 4))
	var all []uint64
	for run := range 5 {
		n := r.IntN(20000)
		if run == 2 {
			n = 0
		}
		for range n {
			v := uint64(r.Uint32())<<32 | uint64(r.Uint32())
			b.pairs = append(b.pairs, v)
			all = append(all, v)
		}
		if run < 4 {
			if err := b.spill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer b.cleanRuns()
	slices.Sort(b.pairs)
	src := &merger{}
	for _, name := range b.runs {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		src.add(&runReader{r: f})
	}
	src.add(&runReader{block: b.pairs})
	var got []uint64
	for {
		p, ok := src.next()
		if !ok {
			break
		}
		if p.err != nil {
			t.Fatal(p.err)
		}
		got = append(got, p.v)
	}
	slices.Sort(all)
	if !slices.Equal(got, all) {
		t.Fatalf("merged %d pairs, want %d (sorted equal: false)", len(got), len(all))
	}
}

// TestRadixSortSorts: radixSort agrees with slices.Sort, with repeated
// digits, an empty and a one-element input.
func TestRadixSortSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var tmp []uint64
	for _, n := range []int{0, 1, 2, 1000, 100000} {
		a := make([]uint64, n)
		for i := range a {
			switch i % 3 {
			case 0:
				a[i] = r.Uint64() >> 8
			case 1:
				a[i] = uint64(r.IntN(4))<<32 | uint64(r.IntN(3))
			default:
				a[i] = uint64(r.Uint32())
			}
		}
		want := slices.Clone(a)
		slices.Sort(want)
		tmp = radixSort(a, tmp)
		if !slices.Equal(a, want) {
			t.Fatalf("n=%d: not sorted", n)
		}
	}
}
