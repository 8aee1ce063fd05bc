package patch

import (
	"slices"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lines"
)

// lineIndex finds where a file patch's old lines occur in one pass over the
// text: the positions of every line the hunks' old sides hold. A hunk's
// exact places are then the positions of its rarest line, each checked
// whole, so matching many hunks costs one pass, not one per hunk.
type lineIndex struct {
	src hashline.Source
	at  map[string][]int // line content → 0-based lines holding it
	// maybe is a filter over the wanted lines (a bit per sketch), so most
	// lines of the text skip the map lookup.
	maybe [1 << 16 / 64]uint64
}

// sketch is a cheap summary of a line: its length and three of its bytes.
func sketch(c string) uint32 {
	n := len(c)
	h := uint32(n) * 0x9E3779B1
	if n > 0 {
		h ^= uint32(c[n-1]) * 0x85EBCA77
		h ^= uint32(c[n/2]) * 0xC2B2AE3D
		h ^= uint32(c[n*3/4]) * 0x27D4EB2F
	}
	return (h ^ h>>16) & (1<<16 - 1)
}

func newLineIndex(src hashline.Source, f File) *lineIndex {
	x := &lineIndex{src: src, at: make(map[string][]int)}
	for _, h := range f.Hunks {
		for _, l := range h.Old {
			if _, ok := x.at[l]; !ok {
				x.at[l] = nil
				k := sketch(l)
				x.maybe[k/64] |= 1 << (k % 64)
			}
		}
	}
	if len(x.at) == 0 {
		return nil
	}
	for i := range src.LineCount() {
		c := x.content(i)
		if k := sketch(c); x.maybe[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		if p, ok := x.at[c]; ok {
			x.at[c] = append(p, i)
		}
	}
	return x
}

// content is line i as the matcher compares it (no byte-order mark).
func (x *lineIndex) content(i int) string {
	c := x.src.Line(i).Content
	if i == 0 {
		_, c = hashline.StripBOM(c)
	}
	return c
}

// choose returns the 0-based line at or after from where old occurs
// exactly: its only place, or, when it has several and byLine, the one
// nearest expect if no other is as near. ok=false otherwise (the matcher
// then says why).
func (x *lineIndex) choose(old []string, from, expect int, byLine bool) (int, bool) {
	if x == nil || len(old) == 0 {
		return 0, false
	}
	best := 0
	for j, l := range old {
		if len(x.at[l]) < len(x.at[old[best]]) {
			best = j
		}
	}
	found, at, tie := 0, 0, false
	for _, p := range x.at[old[best]] {
		start := p - best
		if start < from || start+len(old) > x.src.LineCount() || !x.matches(old, start) {
			continue
		}
		found++
		switch {
		case found == 1:
			at = start
		case !byLine:
			return 0, false
		case abs(start-expect) < abs(at-expect):
			at, tie = start, false
		case abs(start-expect) == abs(at-expect):
			tie = true
		}
	}
	return at, found > 0 && !tie
}

// other returns the 0-based first line at or after from, other than at,
// where old occurs exactly, or -1: where else a V4A chunk placed at the
// first of its places might have been meant (its answer names it).
func (x *lineIndex) other(old []string, from, at int) int {
	if x == nil || len(old) == 0 {
		return -1
	}
	best := 0
	for j, l := range old {
		if len(x.at[l]) < len(x.at[old[best]]) {
			best = j
		}
	}
	ps := x.at[old[best]]
	k, _ := slices.BinarySearch(ps, from+best)
	for _, p := range ps[k:] {
		start := p - best
		if start != at && start+len(old) <= x.src.LineCount() && x.matches(old, start) {
			return start
		}
	}
	return -1
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (x *lineIndex) matches(old []string, start int) bool {
	for j, l := range old {
		if x.content(start+j) != l {
			return false
		}
	}
	return true
}

// windowSource is n lines of src from off.
type windowSource struct {
	src    hashline.Source
	off, n int
}

func (w windowSource) LineCount() int        { return w.n }
func (w windowSource) Line(i int) lines.Line { return w.src.Line(i + w.off) }
