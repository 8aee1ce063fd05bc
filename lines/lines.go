// Package lines splits text into lines by the LSP rule: a line ends at "\n",
// "\r\n" or "\r". It is the one place that decides where lines end; the
// hashline format, the document store and the ledger all count lines through it.
//
// A line is its content plus its terminator. "a\nb\n" has two lines, "a\nb"
// has two lines (the last without terminator), and "" has none.
package lines

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Line is one line of a text: Content excludes the terminator, Term is "\n",
// "\r\n", "\r", or "" for a last line without one.
type Line struct {
	Content string
	Term    string
}

// Len is the line's length in bytes, terminator included.
func (l Line) Len() int { return len(l.Content) + len(l.Term) }

// Next returns the first line of s and the rest of s after it. For s == "" it
// returns a zero Line and "".
func Next(s string) (Line, string) {
	// Two IndexByte scans beat IndexAny several times over; the '\r' search is
	// bounded by the '\n' found, so text using only '\r' stays linear.
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		i = strings.IndexByte(s, '\r')
	} else if j := strings.IndexByte(s[:i], '\r'); j >= 0 {
		i = j
	}
	if i < 0 {
		return Line{Content: s}, ""
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return Line{Content: s[:i], Term: s[i : i+2]}, s[i+2:]
	}
	return Line{Content: s[:i], Term: s[i : i+1]}, s[i+1:]
}

// Split returns the lines of s. The strings alias s.
func Split(s string) []Line {
	out := make([]Line, 0, Count(s))
	for s != "" {
		var l Line
		l, s = Next(s)
		out = append(out, l)
	}
	return out
}

// Count returns the number of lines in s by the LSP rule.
func Count(s string) int {
	n, _ := count(s)
	return n
}

// count is Count, and whether s holds a '\r' at all. Every "\n" ends a line
// (alone or as the end of "\r\n"), and so does every "\r" not followed by
// "\n"; the counting functions are vectorised, several times faster than a
// byte loop.
func count(s string) (n int, hasCR bool) {
	n = strings.Count(s, "\n")
	if hasCR = strings.IndexByte(s, '\r') >= 0; hasCR {
		n += strings.Count(s, "\r") - strings.Count(s, "\r\n")
	}
	if s != "" && !EndsWithTerm(s) {
		n++ // a last line without terminator
	}
	return n, hasCR
}

// Of returns the line whose bytes, terminator included, are s: s must be one
// line by the rule (no "\r" or "\n" before its terminator), as the pieces
// between two offsets from AppendEnds are. O(1): a content never holds a
// terminator byte and "\r\n" is one terminator, so the last bytes decide.
func Of(s string) Line {
	t := 0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case '\n':
			t = 1
			if n > 1 && s[n-2] == '\r' {
				t = 2
			}
		case '\r':
			t = 1
		}
	}
	return Line{Content: s[:len(s)-t], Term: s[len(s)-t:]}
}

// AppendEnds appends to dst the end offset in s of each line of s,
// terminator included (so the last is len(s)), and returns the extended
// slice; it grows dst once, to the exact count. Offsets are uint32 to keep a
// line index at 4 bytes a line: it panics when len(s) exceeds MaxUint32.
func AppendEnds(dst []uint32, s string) []uint32 {
	if uint64(len(s)) > math.MaxUint32 {
		panic("lines: AppendEnds: text over 4 GiB")
	}
	if len(s) >= 2*parallelChunk && runtime.GOMAXPROCS(0) > 1 {
		return appendEndsParallel(dst, s)
	}
	return appendEnds(dst, s)
}

// parallelChunk is the least text worth a goroutine of its own when
// AppendEnds splits a large text.
const parallelChunk = 1 << 20

// appendEndsParallel is AppendEnds by several goroutines, each on a run of
// whole lines, writing its ends straight into its part of dst. Runs are cut
// just after a '\n', which always ends a line (alone or as the end of
// "\r\n"), so every run ends its lines as the whole text does.
func appendEndsParallel(dst []uint32, s string) []uint32 {
	k := min(runtime.GOMAXPROCS(0), len(s)/parallelChunk)
	var runs []string
	var starts []int
	for off, size := 0, len(s)/k; off < len(s); {
		end := len(s)
		if len(runs) < k-1 && off+size < len(s) {
			if i := strings.IndexByte(s[off+size:], '\n'); i >= 0 {
				end = off + size + i + 1
			}
		}
		runs, starts = append(runs, s[off:end]), append(starts, off)
		off = end
	}
	// Each goroutine counts its run, then, dst grown once to the total,
	// writes its ends in dst itself: no part is allocated and copied (fresh
	// memory costs a page fault per 4 KB, in a process that lives for one
	// call). A part is written with a spare slot after it (appendNewlines
	// stores a word's first end unconditionally), so parts lie one slot
	// apart and are moved together at the end.
	counts := make([]int, len(runs))
	crs := make([]bool, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Go(func() { counts[i], crs[i] = count(r) })
	}
	wg.Wait()
	total := 0
	for _, n := range counts {
		total += n
	}
	base := len(dst)
	dst = slices.Grow(dst, total+len(runs))[:base+total+len(runs)]
	at := make([]int, len(runs))
	for i, off := 0, base; i < len(runs); i++ {
		at[i], off = off, off+counts[i]+1
	}
	for i, r := range runs {
		wg.Go(func() {
			part := appendCounted(dst[at[i]:at[i]:at[i]+counts[i]+1], r, counts[i], crs[i])
			for j := range part {
				part[j] += uint32(starts[i])
			}
		})
	}
	wg.Wait()
	for i, off := 1, base+counts[0]; i < len(runs); i++ {
		off += copy(dst[off:], dst[at[i]:at[i]+counts[i]])
	}
	return dst[:base+total]
}

// appendEnds is AppendEnds on one goroutine.
func appendEnds(dst []uint32, s string) []uint32 {
	n, hasCR := count(s)
	return appendCounted(dst, s, n, hasCR)
}

// appendCounted is appendEnds for a text whose count is known (count): it
// grows dst only when it has less than n+1 free slots.
func appendCounted(dst []uint32, s string, n int, hasCR bool) []uint32 {
	dst = slices.Grow(dst, n)
	off := 0
	if !hasCR {
		// Only "\n" ends lines.
		dst, off = appendNewlines(dst, s, n)
	} else {
		for off < len(s) {
			// The line ends at the first '\r' before the next '\n', else at
			// that '\n'; a '\r' right before it is a CRLF.
			nl := strings.IndexByte(s[off:], '\n')
			if nl < 0 {
				nl = len(s)
			} else {
				nl += off
			}
			for {
				cr := strings.IndexByte(s[off:nl], '\r')
				if cr < 0 {
					break
				}
				cr += off
				if cr+1 == nl && nl < len(s) {
					break // "\r\n": ends with the '\n' below
				}
				off = cr + 1
				dst = append(dst, uint32(off))
			}
			if nl == len(s) {
				break
			}
			off = nl + 1
			dst = append(dst, uint32(off))
		}
	}
	if off < len(s) {
		dst = append(dst, uint32(len(s))) // a last line without terminator
	}
	return dst
}

// appendNewlines appends the end of every "\n" in s (at most n of them)
// and returns dst and the offset after the last. It reads eight bytes at a
// time and finds the newlines among them with bit arithmetic: most words
// hold none or one, so the common case takes no branch that mispredicts,
// where a search per line costs a call per line.
func appendNewlines(dst []uint32, s string, n int) ([]uint32, int) {
	const (
		low7 = 0x7f7f7f7f7f7f7f7f
		nls  = 0x0a0a0a0a0a0a0a0a
	)
	k := len(dst)
	first := k
	dst = slices.Grow(dst, n+1)[:k+n+1] // a spare slot: the first store of a word is unconditional
	off := 0
	for ; off+8 <= len(s); off += 8 {
		w := s[off : off+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		x ^= nls
		// The high bit of each byte of m is set where x's byte is zero: where
		// the word holds '\n'. Exact, without the carries of the shorter form.
		m := ^(((x & low7) + low7) | x | low7)
		dst[k] = uint32(off + bits.TrailingZeros64(m)>>3 + 1)
		k += oneIf(m != 0)
		for m &= m - 1; m != 0; m &= m - 1 {
			dst[k] = uint32(off + bits.TrailingZeros64(m)>>3 + 1)
			k++
		}
	}
	for ; off < len(s); off++ {
		if s[off] == '\n' {
			dst[k] = uint32(off + 1)
			k++
		}
	}
	last := 0
	if k > first {
		last = int(dst[k-1])
	}
	return dst[:k], last
}

// oneIf is 1 for true: written so, the compiler sets it without a branch.
func oneIf(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// Join concatenates lines back into text, each with its own terminator.
func Join(ls []Line) string {
	n := 0
	for _, l := range ls {
		n += l.Len()
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range ls {
		b.WriteString(l.Content)
		b.WriteString(l.Term)
	}
	return b.String()
}

// NewText is the text of a new file of lines ls as a writer wrote them:
// when a line carries a CR, the writer said the file's line breaks and
// every line keeps its own; otherwise every "\n" becomes eol.
func NewText(ls []Line, eol string) string {
	if !slices.ContainsFunc(ls, func(l Line) bool { return strings.Contains(l.Term, "\r") }) {
		ls = slices.Clone(ls)
		for i := range ls {
			if ls[i].Term == "\n" {
				ls[i].Term = eol
			}
		}
	}
	return Join(ls)
}

// EndsWithTerm reports whether s ends with a line terminator, i.e. whether an
// LSP client sees an empty line after the last counted one.
func EndsWithTerm(s string) bool {
	return s != "" && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r')
}
