package ledger

import (
	"math/rand/v2"
	"testing"
)

// Differ and Within describe b as a change of a: a's lines outside the
// window, with b's lines inside it, are b's lines.
func TestDifferWithinRebuildB(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	random := func() RangeSet {
		var s RangeSet
		for range r.IntN(8) {
			start := 1 + r.IntN(40)
			s.Add(Range{start, start + r.IntN(4)})
		}
		return s
	}
	for range 5000 {
		a, b := random(), random()
		w, ok := Differ(a.Ranges(), b.Ranges())
		if !ok {
			if !a.Equal(&b) {
				t.Fatalf("Differ(%v, %v) says equal", a.Ranges(), b.Ranges())
			}
			continue
		}
		got := a.Clone()
		got.Remove(w)
		got.AddAll(Within(b.Ranges(), w))
		if !got.Equal(&b) {
			t.Fatalf("a %v, b %v: window %v rebuilds %v", a.Ranges(), b.Ranges(), w, got.Ranges())
		}
	}
}
