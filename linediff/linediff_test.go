package linediff

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func TestDiffCases(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new []uint32
		want     []Hunk
	}{
		{"equal", []uint32{1, 2, 3}, []uint32{1, 2, 3}, nil},
		{"empty to some", nil, []uint32{1, 2}, []Hunk{{0, 0, 0, 2}}},
		{"some to empty", []uint32{1, 2}, nil, []Hunk{{0, 2, 0, 0}}},
		{"replace one", []uint32{1, 2, 3}, []uint32{1, 9, 3}, []Hunk{{1, 1, 1, 1}}},
		{"insert and replace", []uint32{1, 2, 3, 4, 5}, []uint32{1, 7, 2, 3, 9, 5}, []Hunk{{1, 0, 1, 1}, {3, 1, 4, 1}}},
		{"delete middle", []uint32{1, 2, 3, 4}, []uint32{1, 4}, []Hunk{{1, 2, 1, 0}}},
		// Prefix/suffix trimming alone would call 2..4 changed.
		{"two apart", []uint32{1, 2, 3, 4, 5}, []uint32{1, 8, 3, 9, 5}, []Hunk{{1, 1, 1, 1}, {3, 1, 3, 1}}},
	} {
		if got := Diff(c.old, c.new); !slices.Equal(got, c.want) {
			t.Errorf("%s: Diff = %v, want %v", c.name, got, c.want)
		}
	}
}

// apply rebuilds new from old and the hunks, checking the hunks are ordered,
// disjoint and in range; it returns the edit cost.
func apply(t *rapid.T, old, new []uint32, hs []Hunk) int {
	var out []uint32
	ai, cost := 0, 0
	for _, h := range hs {
		if h.A < ai || h.A+h.Del > len(old) || h.B < 0 || h.B+h.Ins > len(new) || h.Del+h.Ins == 0 {
			t.Fatalf("bad hunk %+v after old line %d", h, ai)
		}
		out = append(out, old[ai:h.A]...)
		if len(out) != h.B {
			t.Fatalf("hunk %+v: new text at %d, want %d", h, len(out), h.B)
		}
		out = append(out, new[h.B:h.B+h.Ins]...)
		ai = h.A + h.Del
		cost += h.Del + h.Ins
	}
	out = append(out, old[ai:]...)
	if !slices.Equal(out, new) {
		t.Fatalf("hunks %v turn %v into %v, want %v", hs, old, out, new)
	}
	return cost
}

// lcsCost is the minimal number of deleted plus inserted lines, by dynamic
// programming.
func lcsCost(a, b []uint32) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return len(a) + len(b) - 2*prev[len(b)]
}

// TestDiffProperties: the hunks rebuild the new text from the old, and are
// minimal within the cost bound; past it they are one conservative hunk.
func TestDiffProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// A small alphabet makes repeated lines, where diffs go wrong.
		line := rapid.Uint32Range(0, 5)
		old := rapid.SliceOfN(line, 0, 40).Draw(t, "old")
		new := rapid.SliceOfN(line, 0, 40).Draw(t, "new")
		maxCost := rapid.IntRange(1, 100).Draw(t, "maxCost")
		hs := diff(old, new, maxCost)
		cost := apply(t, old, new, hs)
		best := lcsCost(old, new)
		if best <= maxCost && cost != best {
			t.Fatalf("cost %d, minimal is %d: %v", cost, best, hs)
		}
		if best > maxCost && len(hs) != 1 {
			t.Fatalf("over the bound (%d > %d) but %d hunks", best, maxCost, len(hs))
		}
	})
}

// TestDiffLargeFileSmallChange: the common case costs O(change) after the
// trim, and scattered changes in a large file are found exactly.
func TestDiffLargeFileSmallChange(t *testing.T) {
	old := make([]uint32, 200_000)
	for i := range old {
		old[i] = uint32(i) * 2654435761
	}
	new := slices.Clone(old)
	new[1000] = 1
	new = slices.Insert(new, 150_000, 2, 3)
	new = slices.Delete(new, 50_000, 50_010)
	want := []Hunk{{1000, 1, 1000, 1}, {50_000, 10, 50_000, 0}, {150_000, 0, 149_990, 2}}
	if got := Diff(old, new); !slices.Equal(got, want) {
		t.Fatalf("Diff = %v, want %v", got, want)
	}
}

func BenchmarkDiffScattered(b *testing.B) {
	old := make([]uint32, 100_000)
	for i := range old {
		old[i] = uint32(i) * 2654435761
	}
	new := slices.Clone(old)
	for i := 0; i < len(new); i += 1000 {
		new[i]++
	}
	for b.Loop() {
		Diff(old, new)
	}
}
