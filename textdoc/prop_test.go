package textdoc

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/lines"
	"pgregory.net/rapid"
)

// Pieces of generated text: every terminator, multi-byte runes (2, 3 and 4
// bytes), invalid and truncated UTF-8.
var pieces = []string{"a", "bc", "xyz", " ", "\t", "é", "€", "😀", "\xff", "\xe2\x82", "\n", "\n", "\r\n", "\r", "\n\n", "\r\r\n"}

// genText draws up to maxPieces pieces. The count is drawn on its own because
// rapid's slice generators keep to a handful of elements, and the trees need
// hundreds of lines to grow several levels.
func genText(maxPieces int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		n := rapid.IntRange(0, maxPieces).Draw(t, "n")
		var b strings.Builder
		for range n {
			b.WriteString(rapid.SampledFrom(pieces).Draw(t, "piece"))
		}
		return b.String()
	})
}

func genPos(t *rapid.T, text string, label string) Pos {
	n := lines.Count(text)
	line := rapid.IntRange(0, n+1).Draw(t, label+".line")
	char := rapid.IntRange(0, 14).Draw(t, label+".char")
	return Pos{uint32(line), uint32(char)}
}

// genChange draws a change for text: mostly ranges (ordered, occasionally
// reversed to exercise the error), sometimes a full replacement.
func genChange(t *rapid.T, text string, enc Encoding) Change {
	if rapid.IntRange(0, 9).Draw(t, "full") == 0 {
		return Change{Text: genText(30).Draw(t, "fullText")}
	}
	a := genPos(t, text, "start")
	var b Pos
	if rapid.Bool().Draw(t, "insertion") {
		b = a
	} else {
		b = genPos(t, text, "end")
	}
	if refOffset(text, a, enc) > refOffset(text, b, enc) && rapid.IntRange(0, 9).Draw(t, "keepReversed") > 0 {
		a, b = b, a
	}
	return Change{Range: &Range{a, b}, Text: genText(8).Draw(t, "text")}
}

// TestApplyProperty checks Apply against the plain-string reference: random
// texts, random batches of changes in random encodings, in trees of several
// shapes. After every batch: the text and every line agree with the
// reference, the LineChanges replay the line lists, and at the end every old
// snapshot still holds its text.
func TestApplyProperty(t *testing.T) {
	shapes := []shape{makeShape(2, 4), makeShape(3, 5), makeShape(4, 4), defaultShape()}
	rapid.Check(t, func(t *rapid.T) {
		sh := rapid.SampledFrom(shapes).Draw(t, "shape")
		text := genText(1500).Draw(t, "doc")
		s := newShaped(text, sh)
		checkSnap(t, s, text)
		type version struct {
			s    *Snapshot
			text string
		}
		history := []version{{s, text}}
		for range rapid.IntRange(1, 10).Draw(t, "batches") {
			enc := rapid.SampledFrom([]Encoding{UTF16, UTF8, UTF32}).Draw(t, "enc")
			var changes []Change
			refs := []string{text}
			reversed := false
			for range rapid.IntRange(1, 4).Draw(t, "changes") {
				c := genChange(t, refs[len(refs)-1], enc)
				changes = append(changes, c)
				next, ok := refApply(refs[len(refs)-1], c, enc)
				if !ok {
					reversed = true
					break
				}
				refs = append(refs, next)
			}
			ns, lcs, err := s.Apply(changes, enc)
			if reversed {
				if !errors.Is(err, ErrBadPosition) || ns != nil {
					t.Fatalf("reversed range: Apply = %v, %v", ns, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			want := refs[len(refs)-1]
			checkSnap(t, ns, want)
			hasFull := false
			for _, c := range changes {
				hasFull = hasFull || c.Range == nil
			}
			if hasFull {
				// A full-text change gives one LineChange per diff hunk:
				// check each change's sequence, one change at a time, and
				// that the batch gives them all in order.
				var all []LineChange
				step := s
				for i, c := range changes {
					next, got, err := step.Apply([]Change{c}, enc)
					if err != nil {
						t.Fatalf("change %d alone: %v", i, err)
					}
					if err := checkLineChanges(refs[i], refs[i+1], got); err != nil {
						t.Fatalf("change %d: %v", i, err)
					}
					all = append(all, got...)
					step = next
				}
				if fmt.Sprint(all) != fmt.Sprint(lcs) {
					t.Fatalf("batch LineChanges %v, one at a time %v", lcs, all)
				}
			} else {
				k := 0
				for i := 1; i < len(refs); i++ {
					if refs[i] == refs[i-1] {
						continue // no LineChange for a change that changes nothing
					}
					if k >= len(lcs) {
						t.Fatalf("%d LineChanges, change %d changed the text", len(lcs), i-1)
					}
					if err := checkLineChange(refs[i-1], refs[i], lcs[k]); err != nil {
						t.Fatalf("change %d: %v", i-1, err)
					}
					k++
				}
				if k != len(lcs) {
					t.Fatalf("%d LineChanges for %d changing changes", len(lcs), k)
				}
			}
			if len(lcs) == 0 && ns != s {
				t.Fatalf("nothing changed but Apply made a new snapshot")
			}
			s, text = ns, want
			history = append(history, version{s, text})
		}
		for _, v := range history {
			checkSnap(t, v.s, v.text)
		}
	})
}

// TestMapperProperty checks LineCol, Pos and CharCount against the reference
// mapper on random lines.
func TestMapperProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := genText(60).Draw(t, "doc")
		enc := rapid.SampledFrom([]Encoding{UTF16, UTF8, UTF32}).Draw(t, "enc")
		checkMapper(t, New(text), text, genPos(t, text, "p"), enc)
	})
}

// checkMapper verifies the mapper at p and at every boundary of p's line.
func checkMapper(t tb, s *Snapshot, text string, p Pos, enc Encoding) {
	t.Helper()
	ls := lines.Split(text)
	n := len(ls)
	line, col, err := s.LineCol(p, enc)
	switch {
	case int(p.Line) > n:
		if !errors.Is(err, ErrBadPosition) {
			t.Fatalf("LineCol(%v) past the end: err = %v", p, err)
		}
		return
	case err != nil:
		t.Fatalf("LineCol(%v): %v", p, err)
	case int(p.Line) == n:
		if line != n || col != 0 || s.Pos(line, col, enc) != (Pos{Line: uint32(n)}) {
			t.Fatalf("LineCol(%v) at the end = %d, %d", p, line, col)
		}
		return
	}
	content := ls[p.Line].Content
	if line != int(p.Line) || col != refByteCol(content, p.Char, enc) {
		t.Fatalf("LineCol(%v, %v) on %q = %d, %d, want col %d", p, enc, content, line, col, refByteCol(content, p.Char, enc))
	}
	bs, us := refBoundaries(content, enc)
	if got := CharCount(content, enc); got != us[len(us)-1] {
		t.Fatalf("CharCount(%q, %v) = %d, want %d", content, enc, got, us[len(us)-1])
	}
	// Every boundary round-trips.
	for i := range bs {
		q := Pos{p.Line, us[i]}
		l2, c2, err := s.LineCol(q, enc)
		if err != nil || l2 != line || c2 != bs[i] {
			t.Fatalf("LineCol(%v, %v) on %q = %d, %d, %v; want col %d", q, enc, content, l2, c2, err, bs[i])
		}
		if back := s.Pos(l2, c2, enc); back != q {
			t.Fatalf("Pos(LineCol(%v)) = %v on %q", q, back, content)
		}
	}
	// Every byte column rounds down to a boundary.
	j := 0
	for b := 0; b <= len(content); b++ {
		for j+1 < len(bs) && bs[j+1] <= b {
			j++
		}
		if got := s.Pos(line, b, enc); got != (Pos{p.Line, us[j]}) {
			t.Fatalf("Pos(%d, %d, %v) on %q = %v, want char %d", line, b, enc, content, got, us[j])
		}
	}
	// Offset and PosAt agree with LineCol and Pos.
	off, err := s.Offset(p, enc)
	if err != nil || off != refOffset(text, p, enc) {
		t.Fatalf("Offset(%v) = %d, %v; want %d", p, off, err, refOffset(text, p, enc))
	}
	if got, want := s.PosAt(off, enc), s.Pos(line, col, enc); got != want {
		t.Fatalf("PosAt(%d) = %v, want %v", off, got, want)
	}
}

// rapid.T must satisfy tb; so must testing.TB.
var (
	_ tb = (*rapid.T)(nil)
	_ tb = testing.TB(nil)
)
