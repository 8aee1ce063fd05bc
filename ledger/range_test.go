package ledger

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func rs(pairs ...int) []Range {
	out := []Range{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Range{pairs[i], pairs[i+1]})
	}
	return out
}

func eqRanges(t *testing.T, what string, got, want []Range) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestRangeBasics(t *testing.T) {
	if (Range{3, 2}).Len() != 0 || !(Range{3, 2}).Empty() || (Range{3, 5}).Len() != 3 {
		t.Error("Len/Empty")
	}
	if (Range{4, 4}).String() != "4" || (Range{11, 30}).String() != "11-30" {
		t.Error("String")
	}
	if got := (Range{0, 50}).Clamp(10); got != (Range{1, 10}) {
		t.Errorf("Clamp = %v", got)
	}
}

func TestRangeSetAddMerges(t *testing.T) {
	var s RangeSet
	s.Add(Range{1, 200})
	s.Add(Range{201, 400}) // adjacent: one range
	eqRanges(t, "adjacent", s.Ranges(), rs(1, 400))
	s.Add(Range{500, 600})
	s.Add(Range{402, 499}) // leaves 401 out
	eqRanges(t, "gap", s.Ranges(), rs(1, 400, 402, 600))
	s.Add(Range{401, 401})
	eqRanges(t, "fill", s.Ranges(), rs(1, 600))
	if s.Len() != 600 {
		t.Errorf("Len = %d", s.Len())
	}
	s.Add(Range{700, 650}) // empty: no-op
	if s.Len() != 600 || s.NumRanges() != 1 {
		t.Error("empty Add changed the set")
	}
	s.Add(Range{800, 900})
	s.Add(Range{1000, 1100})
	s.Add(Range{550, 1050}) // swallows two ranges
	eqRanges(t, "swallow", s.Ranges(), rs(1, 1100))
}

func TestRangeSetRemove(t *testing.T) {
	s := NewRangeSet(Range{1, 10}, Range{20, 30}, Range{40, 50})
	s.Remove(Range{5, 25})
	eqRanges(t, "split", s.Ranges(), rs(1, 4, 26, 30, 40, 50))
	s.Remove(Range{41, 49})
	eqRanges(t, "middle", s.Ranges(), rs(1, 4, 26, 30, 40, 40, 50, 50))
	s.Remove(Range{100, 200})
	s.Remove(Range{11, 19})
	if s.Len() != 4+5+2 {
		t.Errorf("Len = %d", s.Len())
	}
	s.Remove(Range{1, 1000})
	if !s.IsEmpty() || s.Len() != 0 {
		t.Errorf("not empty: %v", s.Ranges())
	}
}

func TestRangeSetQueries(t *testing.T) {
	s := NewRangeSet(Range{50, 100}, Range{200, 300})
	for _, c := range []struct {
		line int
		want bool
	}{{49, false}, {50, true}, {100, true}, {101, false}, {250, true}, {301, false}, {0, false}} {
		if s.Contains(c.line) != c.want {
			t.Errorf("Contains(%d) = %v", c.line, !c.want)
		}
	}
	if !s.Covers(Range{60, 90}) || s.Covers(Range{80, 120}) || s.Covers(Range{90, 210}) || !s.Covers(Range{5, 4}) {
		t.Error("Covers")
	}
	// The guard's example: read 50-100, want to write 80-120.
	eqRanges(t, "Missing", s.Missing(Range{80, 120}), rs(101, 120))
	eqRanges(t, "Missing across", s.Missing(Range{1, 400}), rs(1, 49, 101, 199, 301, 400))
	eqRanges(t, "Missing none", s.Missing(Range{210, 220}), nil)
	eqRanges(t, "Intersect", s.Intersect(Range{90, 250}), rs(90, 100, 200, 250))
	eqRanges(t, "Complement", s.Complement(350), rs(1, 49, 101, 199, 301, 350))
	eqRanges(t, "Complement short", s.Complement(60), rs(1, 49))
	o := NewRangeSet(Range{1, 60}, Range{99, 210})
	is := s.IntersectSet(&o)
	eqRanges(t, "IntersectSet", is.Ranges(), rs(50, 60, 99, 100, 200, 210))
	if is.Len() != 11+2+11 {
		t.Errorf("IntersectSet Len = %d", is.Len())
	}
}

func TestRangeSetShift(t *testing.T) {
	base := func() RangeSet { return NewRangeSet(Range{10, 20}, Range{30, 40}) }
	cases := []struct {
		name string
		ch   Change
		want []Range
	}{
		{"below", Change{50, 3, 1}, rs(10, 20, 30, 40)},
		{"above insert", Change{1, 0, 5}, rs(15, 25, 35, 45)},
		{"above delete", Change{1, 5, 0}, rs(5, 15, 25, 35)},
		{"insert inside", Change{15, 0, 2}, rs(10, 14, 17, 22, 32, 42)},
		{"insert at start", Change{10, 0, 2}, rs(12, 22, 32, 42)},
		{"insert after end", Change{21, 0, 2}, rs(10, 20, 32, 42)},
		{"replace inside", Change{12, 2, 3}, rs(10, 11, 15, 21, 31, 41)},
		{"delete inside joins", Change{12, 2, 0}, rs(10, 18, 28, 38)},
		{"delete gap joins ranges", Change{21, 9, 0}, rs(10, 31)},
		{"replace across", Change{18, 15, 1}, rs(10, 17, 19, 26)},
		{"delete all", Change{1, 40, 0}, nil},
		{"replace same size", Change{15, 2, 2}, rs(10, 14, 17, 20, 30, 40)},
	}
	for _, c := range cases {
		s := base()
		s.Shift(c.ch)
		eqRanges(t, c.name, s.Ranges(), c.want)
		n := 0
		for _, r := range c.want {
			n += r.Len()
		}
		if s.Len() != n {
			t.Errorf("%s: Len = %d, want %d", c.name, s.Len(), n)
		}
	}
}

func TestGaps(t *testing.T) {
	a := NewRangeSet(Range{1, 3}, Range{10, 12})
	b := NewRangeSet(Range{4, 5}, Range{20, 30})
	c := NewRangeSet(Range{8, 9})
	eqRanges(t, "gaps", gaps(25, &a, &b, &c), rs(6, 7, 13, 19))
	eqRanges(t, "gaps none", gaps(0, &a, &b, &c), nil)
	eqRanges(t, "gaps short", gaps(9, &a, &b, &c), rs(6, 7))
	var e RangeSet
	eqRanges(t, "gaps empty", gaps(5, &e, &e, &e), rs(1, 5))
	eqRanges(t, "gaps one", gaps(15, &e, &a, &e), rs(4, 9, 13, 15))
}

// lineSet is the reference model of a RangeSet: one entry per line.
type lineSet map[int]bool

func (m lineSet) ranges() []Range {
	var keys []int
	for k, v := range m {
		if v {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return toRanges(keys)
}

// toRanges merges sorted distinct lines into ranges.
func toRanges(lines []int) []Range {
	out := []Range{}
	for _, l := range lines {
		if n := len(out); n > 0 && out[n-1].End+1 == l {
			out[n-1].End = l
		} else {
			out = append(out, Range{l, l})
		}
	}
	return out
}

func genRange(maxLine int) *rapid.Generator[Range] {
	return rapid.Custom(func(t *rapid.T) Range {
		a := rapid.IntRange(1, maxLine).Draw(t, "a")
		n := rapid.IntRange(-1, 12).Draw(t, "n") // -1: an empty range
		return Range{a, a + n}
	})
}

// checkInvariants verifies a set's representation: sorted, disjoint,
// non-adjacent, valid, with the cached length right.
func checkInvariants(t *rapid.T, s *RangeSet) {
	n := 0
	for i, r := range s.rs {
		if r.Empty() {
			t.Fatalf("empty range %v in %v", r, s.rs)
		}
		if i > 0 && s.rs[i-1].End+1 >= r.Start {
			t.Fatalf("unmerged or unsorted %v", s.rs)
		}
		n += r.Len()
	}
	if n != s.n {
		t.Fatalf("cached Len %d, actual %d", s.n, n)
	}
}

func TestRangeSetProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const maxLine = 60
		var s RangeSet
		m := lineSet{}
		t.Repeat(map[string]func(*rapid.T){
			"add": func(t *rapid.T) {
				r := genRange(maxLine).Draw(t, "r")
				s.Add(r)
				for l := r.Start; l <= r.End; l++ {
					m[l] = true
				}
			},
			"remove": func(t *rapid.T) {
				r := genRange(maxLine).Draw(t, "r")
				s.Remove(r)
				for l := r.Start; l <= r.End; l++ {
					delete(m, l)
				}
			},
			"shift": func(t *rapid.T) {
				start := rapid.IntRange(1, maxLine).Draw(t, "start")
				ch := Change{start, rapid.IntRange(0, 6).Draw(t, "old"), rapid.IntRange(0, 6).Draw(t, "new")}
				s.Shift(ch)
				next := lineSet{}
				for l, v := range m {
					if nl, ok := ch.MapLine(l); ok && v {
						next[nl] = true
					}
				}
				m = next
			},
			"query": func(t *rapid.T) {
				r := genRange(maxLine+10).Draw(t, "q")
				var in, out []int
				all, any := true, false
				for l := r.Start; l <= r.End; l++ {
					if m[l] {
						in = append(in, l)
						any = true
					} else {
						out = append(out, l)
						all = false
					}
				}
				if got := s.Covers(r); got != all {
					t.Fatalf("Covers(%v) = %v, model %v; set %v", r, got, all, s.rs)
				}
				if got := s.Overlaps(r); got != any {
					t.Fatalf("Overlaps(%v) = %v, model %v", r, got, any)
				}
				if got, want := s.Missing(r), toRanges(out); !(len(got) == 0 && len(want) == 0) && !slices.Equal(got, want) {
					t.Fatalf("Missing(%v) = %v, model %v", r, got, want)
				}
				if got, want := s.Intersect(r), toRanges(in); !(len(got) == 0 && len(want) == 0) && !slices.Equal(got, want) {
					t.Fatalf("Intersect(%v) = %v, model %v", r, got, want)
				}
				l := rapid.IntRange(0, maxLine+10).Draw(t, "line")
				if s.Contains(l) != m[l] {
					t.Fatalf("Contains(%d) = %v", l, !m[l])
				}
				total := rapid.IntRange(0, maxLine+10).Draw(t, "total")
				var comp []int
				for l := 1; l <= total; l++ {
					if !m[l] {
						comp = append(comp, l)
					}
				}
				if got, want := s.Complement(total), toRanges(comp); !(len(got) == 0 && len(want) == 0) && !slices.Equal(got, want) {
					t.Fatalf("Complement(%d) = %v, model %v", total, got, want)
				}
			},
			"intersectSet": func(t *rapid.T) {
				var o RangeSet
				om := lineSet{}
				for range rapid.IntRange(0, 5).Draw(t, "n") {
					r := genRange(maxLine).Draw(t, "r")
					o.Add(r)
					for l := r.Start; l <= r.End; l++ {
						om[l] = true
					}
				}
				got := s.IntersectSet(&o)
				checkInvariants(t, &got)
				both := lineSet{}
				for l := range m {
					if om[l] {
						both[l] = true
					}
				}
				if want := both.ranges(); !(got.Len() == 0 && len(want) == 0) && !slices.Equal(got.Ranges(), want) {
					t.Fatalf("IntersectSet = %v, model %v", got.Ranges(), want)
				}
				// Intersection is commutative.
				back := o.IntersectSet(&s)
				if !back.Equal(&got) {
					t.Fatalf("IntersectSet not commutative: %v vs %v", got.Ranges(), back.Ranges())
				}
			},
			"": func(t *rapid.T) {
				checkInvariants(t, &s)
				want := m.ranges()
				if got := s.Ranges(); !(len(got) == 0 && len(want) == 0) && !slices.Equal(got, want) {
					t.Fatalf("set %v, model %v", got, want)
				}
				if s.Len() != countLines(want) {
					t.Fatalf("Len %d, model %d", s.Len(), countLines(want))
				}
			},
		})
	})
}

func countLines(rs []Range) int {
	n := 0
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

// Algebraic laws: Add is idempotent and order-insensitive; Remove undoes Add
// on fresh lines; Missing and Intersect partition a range; Complement twice
// is the identity within the document.
func TestRangeSetLaws(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SliceOfN(genRange(80), 0, 12)
		a := gen.Draw(t, "a")
		s1 := NewRangeSet(a...)
		rev := slices.Clone(a)
		slices.Reverse(rev)
		s2 := NewRangeSet(rev...)
		if !s1.Equal(&s2) {
			t.Fatalf("order matters: %v vs %v", s1.Ranges(), s2.Ranges())
		}
		s2.AddAll(a)
		if !s1.Equal(&s2) {
			t.Fatalf("Add not idempotent")
		}

		r := genRange(90).Draw(t, "r")
		miss, in := s1.Missing(r), s1.Intersect(r)
		if countLines(miss)+countLines(in) != r.Len() {
			t.Fatalf("Missing %v + Intersect %v do not partition %v", miss, in, r)
		}
		part := NewRangeSet(append(slices.Clone(miss), in...)...)
		if !r.Empty() && (part.NumRanges() != 1 || part.rs[0] != r) {
			t.Fatalf("Missing ∪ Intersect = %v, want %v", part.Ranges(), r)
		}

		total := rapid.IntRange(0, 100).Draw(t, "total")
		c := NewRangeSet(s1.Complement(total)...)
		cc := NewRangeSet(c.Complement(total)...)
		trunc := s1.Clone()
		trunc.Truncate(total)
		if !cc.Equal(&trunc) {
			t.Fatalf("complement twice = %v, want %v", cc.Ranges(), trunc.Ranges())
		}

		if !s1.Overlaps(r) {
			with := s1.Clone()
			with.Add(r)
			with.Remove(r)
			if !with.Equal(&s1) {
				t.Fatalf("Remove does not undo Add of fresh lines")
			}
		}
	})
}

func TestRangeWords(t *testing.T) {
	if got := (Range{7, 7}).Word(); got != "Line 7" {
		t.Errorf("Word = %q", got)
	}
	if got := (Range{101, 120}).Word(); got != "Lines 101-120" {
		t.Errorf("Word = %q", got)
	}
	if got := List([]Range{{1, 3}, {7, 7}, {10, 12}}); got != "1-3,7,10-12" {
		t.Errorf("List = %q", got)
	}
	if got := List(nil); got != "" {
		t.Errorf("List(nil) = %q", got)
	}
}
