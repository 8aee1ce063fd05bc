package ledger

import (
	"slices"
	"strconv"
)

// Range is a run of lines, 1-based and inclusive at both ends, as agents see
// them ("Lines 101-120"). A range with End < Start is empty.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// NextHint is how a truncated read names the lines it cut, to read next:
// in sightline/read's params (the CLI says it as a command line).
func (r Range) NextHint() string {
	return `read them with range {"start": ` + strconv.Itoa(r.Start) + `, "end": ` + strconv.Itoa(r.End) + `}`
}

// Word renders r as answers do: "Line 7" or "Lines 101-120".
func (r Range) Word() string {
	if r.Start == r.End {
		return "Line " + strconv.Itoa(r.Start)
	}
	return "Lines " + strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End)
}

// Was is the verb after Word: "was" for one line, "were" for several.
func (r Range) Was() string {
	if r.Start == r.End {
		return "was"
	}
	return "were"
}

// It is the pronoun for the range: "it" for one line, "them" for several.
func (r Range) It() string {
	if r.Start == r.End {
		return "it"
	}
	return "them"
}

// List renders ranges compactly, as listings do: "1-3,7,10-12".
func List(rs []Range) string {
	var b []byte
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(r.Start), 10)
		if r.End != r.Start {
			b = strconv.AppendInt(append(b, '-'), int64(r.End), 10)
		}
	}
	return string(b)
}

// Len is the number of lines in r.
func (r Range) Len() int {
	if r.End < r.Start {
		return 0
	}
	return r.End - r.Start + 1
}

// Empty reports whether r holds no line.
func (r Range) Empty() bool { return r.End < r.Start }

// Contains reports whether line lies in r.
func (r Range) Contains(line int) bool { return line >= r.Start && line <= r.End }

// Clamp cuts r to [1, total]; the result may be empty.
func (r Range) Clamp(total int) Range {
	return Range{Start: max(r.Start, 1), End: min(r.End, total)}
}

// String renders r the way messages name lines: "12" or "11-30".
func (r Range) String() string {
	if r.Start == r.End {
		return strconv.Itoa(r.Start)
	}
	return strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End)
}

// Change is one replacement of lines: lines [Start, Start+Old) of the old text
// became lines [Start, Start+New) of the new text (1-based Start). Old == 0 is
// a pure insertion before line Start, New == 0 a pure deletion.
type Change struct {
	Start int `json:"start"`
	Old   int `json:"old"`
	New   int `json:"new"`
}

// MapLine maps a line of the old text to the new text; ok is false for a
// replaced line.
func (c Change) MapLine(line int) (int, bool) {
	switch {
	case line < c.Start:
		return line, true
	case line >= c.Start+c.Old:
		return line + c.New - c.Old, true
	}
	return 0, false
}

// RangeSet is a set of lines kept as sorted, disjoint, non-adjacent ranges, so
// that membership is a binary search and the ranges reported to agents are
// already merged. The zero value is an empty set. It is not safe for
// concurrent use; the Ledger guards its sets with its own lock.
type RangeSet struct {
	rs []Range
	n  int // total number of lines, kept so Len is O(1)
}

// NewRangeSet returns the set holding the lines of rs (in any order, possibly
// overlapping).
func NewRangeSet(rs ...Range) RangeSet {
	var s RangeSet
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

// Len is the number of lines in the set.
func (s *RangeSet) Len() int { return s.n }

// NumRanges is the number of maximal ranges in the set.
func (s *RangeSet) NumRanges() int { return len(s.rs) }

// IsEmpty reports whether the set holds no line.
func (s *RangeSet) IsEmpty() bool { return len(s.rs) == 0 }

// Ranges returns the set's ranges, sorted and merged, as a fresh slice.
func (s *RangeSet) Ranges() []Range { return slices.Clone(s.rs) }

// Clone returns an independent copy of s.
func (s *RangeSet) Clone() RangeSet { return RangeSet{rs: slices.Clone(s.rs), n: s.n} }

// Equal reports whether s and o hold the same lines.
func (s *RangeSet) Equal(o *RangeSet) bool { return s.n == o.n && slices.Equal(s.rs, o.rs) }

// Min is the first line of a non-empty set.
func (s *RangeSet) Min() int { return s.rs[0].Start }

// Max is the last line of a non-empty set.
func (s *RangeSet) Max() int { return s.rs[len(s.rs)-1].End }

// firstEndAtLeast is the index of the first range whose End >= x, or len.
func (s *RangeSet) firstEndAtLeast(x int) int {
	lo, hi := 0, len(s.rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.rs[m].End < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// firstStartAbove is the index of the first range at or after from whose
// Start > x, or len.
func (s *RangeSet) firstStartAbove(from, x int) int {
	lo, hi := from, len(s.rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.rs[m].Start <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Add puts the lines of r into the set.
func (s *RangeSet) Add(r Range) {
	if r.Empty() {
		return
	}
	// Ranges touching r (overlapping or adjacent) fold into it.
	i := s.firstEndAtLeast(r.Start - 1)
	j := s.firstStartAbove(i, r.End+1)
	if i < j {
		r.Start = min(r.Start, s.rs[i].Start)
		r.End = max(r.End, s.rs[j-1].End)
		for _, x := range s.rs[i:j] {
			s.n -= x.Len()
		}
	}
	s.n += r.Len()
	s.rs = slices.Replace(s.rs, i, j, r)
}

// AddAll puts every range of rs into the set.
func (s *RangeSet) AddAll(rs []Range) {
	for _, r := range rs {
		s.Add(r)
	}
}

// Remove takes the lines of r out of the set.
func (s *RangeSet) Remove(r Range) {
	if r.Empty() {
		return
	}
	i := s.firstEndAtLeast(r.Start)
	j := s.firstStartAbove(i, r.End)
	if i == j {
		return
	}
	var keep [2]Range
	k := 0
	if first := s.rs[i]; first.Start < r.Start {
		keep[k] = Range{first.Start, r.Start - 1}
		k++
	}
	if last := s.rs[j-1]; last.End > r.End {
		keep[k] = Range{r.End + 1, last.End}
		k++
	}
	for _, x := range s.rs[i:j] {
		s.n -= x.Len()
	}
	for _, x := range keep[:k] {
		s.n += x.Len()
	}
	s.rs = slices.Replace(s.rs, i, j, keep[:k]...)
}

// RemoveAll takes the lines of every range of rs out of the set.
func (s *RangeSet) RemoveAll(rs []Range) {
	for _, r := range rs {
		s.Remove(r)
	}
}

// Contains reports whether line is in the set.
func (s *RangeSet) Contains(line int) bool {
	i := s.firstEndAtLeast(line)
	return i < len(s.rs) && s.rs[i].Start <= line
}

// Covers reports whether every line of r is in the set (true for empty r).
func (s *RangeSet) Covers(r Range) bool {
	if r.Empty() {
		return true
	}
	i := s.firstEndAtLeast(r.Start)
	return i < len(s.rs) && s.rs[i].Start <= r.Start && s.rs[i].End >= r.End
}

// Overlaps reports whether any line of r is in the set.
func (s *RangeSet) Overlaps(r Range) bool {
	if r.Empty() {
		return false
	}
	i := s.firstEndAtLeast(r.Start)
	return i < len(s.rs) && s.rs[i].Start <= r.End
}

// Missing returns the parts of r not in the set, in order.
func (s *RangeSet) Missing(r Range) []Range {
	if r.Empty() {
		return nil
	}
	var out []Range
	next := r.Start
	for i := s.firstEndAtLeast(r.Start); i < len(s.rs) && s.rs[i].Start <= r.End; i++ {
		if s.rs[i].Start > next {
			out = append(out, Range{next, s.rs[i].Start - 1})
		}
		next = s.rs[i].End + 1
	}
	if next <= r.End {
		out = append(out, Range{next, r.End})
	}
	return out
}

// Intersect returns the parts of r in the set, in order.
func (s *RangeSet) Intersect(r Range) []Range {
	if r.Empty() {
		return nil
	}
	var out []Range
	for i := s.firstEndAtLeast(r.Start); i < len(s.rs) && s.rs[i].Start <= r.End; i++ {
		out = append(out, Range{max(s.rs[i].Start, r.Start), min(s.rs[i].End, r.End)})
	}
	return out
}

// IntersectSet returns the lines in both s and o.
func (s *RangeSet) IntersectSet(o *RangeSet) RangeSet {
	var out RangeSet
	i, j := 0, 0
	for i < len(s.rs) && j < len(o.rs) {
		a, b := s.rs[i], o.rs[j]
		if lo, hi := max(a.Start, b.Start), min(a.End, b.End); lo <= hi {
			// Pieces come out sorted and separated, so they append directly.
			out.rs = append(out.rs, Range{lo, hi})
			out.n += hi - lo + 1
		}
		if a.End < b.End {
			i++
		} else {
			j++
		}
	}
	return out
}

// Complement returns the lines of [1, total] not in the set.
func (s *RangeSet) Complement(total int) []Range {
	return s.Missing(Range{1, total})
}

// Truncate drops every line above total.
func (s *RangeSet) Truncate(total int) {
	if len(s.rs) > 0 && s.Max() > total {
		s.Remove(Range{max(total+1, s.Min()), s.Max()})
	}
}

// Clear empties the set, keeping its storage.
func (s *RangeSet) Clear() {
	s.rs = s.rs[:0]
	s.n = 0
}

// Shift moves the set along with a text change: lines before ch.Start keep
// their numbers, the replaced lines leave the set, and lines after the
// replaced block move by ch.New-ch.Old. The new lines are not added: which
// set they join is the caller's decision.
func (s *RangeSet) Shift(ch Change) {
	if len(s.rs) == 0 || s.Max() < ch.Start {
		return // nothing at or after the change: the common case for edits below
	}
	if ch.Old > 0 {
		s.Remove(Range{ch.Start, ch.Start + ch.Old - 1})
	}
	d := ch.New - ch.Old
	if d == 0 {
		return
	}
	// After the removal no range meets the replaced block; only a pure
	// insertion can land inside a range, which then splits around it.
	i := s.firstEndAtLeast(ch.Start)
	if i < len(s.rs) && s.rs[i].Start < ch.Start {
		s.rs = slices.Insert(s.rs, i+1, Range{ch.Start, s.rs[i].End})
		s.rs[i].End = ch.Start - 1
		i++
	}
	for k := i; k < len(s.rs); k++ {
		s.rs[k].Start += d
		s.rs[k].End += d
	}
	// A pure deletion can bring the ranges on either side together.
	if ch.New == 0 && i > 0 && i < len(s.rs) && s.rs[i-1].End+1 == s.rs[i].Start {
		s.rs[i-1].End = s.rs[i].End
		s.rs = slices.Delete(s.rs, i, i+1)
	}
}

// gaps returns the lines of [1, total] in none of the three sets, in one
// merge pass with no intermediate union (this is the unread set, computed on
// every view).
func gaps(total int, a, b, c *RangeSet) []Range {
	out := make([]Range, 0, len(a.rs)+len(b.rs)+len(c.rs)+1) // never more gaps than ranges + 1
	const none = int(^uint(0) >> 1)
	head := func(s *RangeSet, i int) int {
		if i < len(s.rs) {
			return s.rs[i].Start
		}
		return none
	}
	var i, j, k int
	ha, hb, hc := head(a, 0), head(b, 0), head(c, 0)
	next := 1
loop:
	for next <= total {
		var r Range
		switch {
		case ha == none && hb == none && hc == none:
			break loop
		case ha <= hb && ha <= hc:
			r = a.rs[i]
			i++
			ha = head(a, i)
		case hb <= hc:
			r = b.rs[j]
			j++
			hb = head(b, j)
		default:
			r = c.rs[k]
			k++
			hc = head(c, k)
		}
		if r.Start > next {
			out = append(out, Range{next, min(r.Start-1, total)})
		}
		next = max(next, r.End+1)
	}
	if next <= total {
		out = append(out, Range{next, total})
	}
	return out
}

// Differ returns the lines where two sorted, disjoint lists of ranges differ:
// outside the returned range, a line is in a if and only if it is in b. It
// reports false when the lists are equal. The returned range is what an
// editor needs to be sent again of b after it was sent a: it grows with the
// change, not with the lists.
func Differ(a, b []Range) (Range, bool) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return Range{}, false
	}
	j, k := len(a), len(b)
	for j > i && k > i && a[j-1] == b[k-1] {
		j--
		k--
	}
	w := Range{Start: int(^uint(0) >> 1), End: 0}
	for _, rs := range [][]Range{a[i:j], b[i:k]} {
		if len(rs) > 0 {
			w.Start = min(w.Start, rs[0].Start)
			w.End = max(w.End, rs[len(rs)-1].End)
		}
	}
	return w, true
}

// Within returns the parts of sorted, disjoint ranges that lie in w.
func Within(rs []Range, w Range) []Range {
	i, _ := slices.BinarySearchFunc(rs, w.Start, func(r Range, line int) int {
		if r.End < line {
			return -1
		}
		return 1
	})
	out := []Range{}
	for ; i < len(rs) && rs[i].Start <= w.End; i++ {
		out = append(out, Range{Start: max(rs[i].Start, w.Start), End: min(rs[i].End, w.End)})
	}
	return out
}
