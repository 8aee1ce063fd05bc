package textdoc

import (
	"errors"
	"testing"
)

var fuzzTexts = []string{
	"", "a", "a\n", "a\nb", "aé😀b\r\nxy\rz\n", "\r", "\r\n", "\n\r", "a\rb\n\n", "a\xff\xfeb\n",
	"\xe2\x82\r\n😀😀\n", "é\ré\r\né\n", "\t\tif x {\n\t\treturn\n\t}\n",
}

// FuzzMapper: the mapper never panics, agrees with the reference, and every
// on-boundary position round-trips through LineCol and Pos.
func FuzzMapper(f *testing.F) {
	for i, s := range fuzzTexts {
		f.Add(s, uint32(i%3), uint32(i), uint8(i))
		f.Add(s, uint32(0), uint32(3), uint8(i+1))
		f.Add(s, uint32(9), uint32(1<<31), uint8(i+2))
	}
	f.Fuzz(func(t *testing.T, text string, line, char uint32, encb uint8) {
		if len(text) > 1<<12 {
			text = text[:1<<12] // checkMapper is quadratic in the line length
		}
		enc := Encoding(encb % 3)
		s := newShaped(text, makeShape(2, 4))
		p := Pos{line % uint32(s.LineCount()+2), char}
		checkMapper(t, s, text, p, enc)
	})
}

// FuzzApply: one change (range or full) on a small-node tree and on the
// default one gives the reference text, a valid tree, a LineChange that
// replays the lines, and leaves the old snapshot alone.
func FuzzApply(f *testing.F) {
	for i, s := range fuzzTexts {
		f.Add(s, uint32(0), uint32(1), uint32(0), uint32(1), "x", uint8(i), false)
		f.Add(s, uint32(1), uint32(0), uint32(1), uint32(1), "", uint8(i), false)
		f.Add(s, uint32(1), uint32(0), uint32(1), uint32(0), "\n", uint8(i), false)
		f.Add(s, uint32(0), uint32(2), uint32(3), uint32(0), "p\r\nq\r", uint8(i), false)
		f.Add(s, uint32(0), uint32(0), uint32(0), uint32(0), "a\nb\n", uint8(i), true)
	}
	f.Fuzz(func(t *testing.T, text string, sl, sc, el, ec uint32, newText string, encb uint8, full bool) {
		enc := Encoding(encb % 3)
		for _, sh := range []shape{makeShape(2, 4), defaultShape()} {
			s := newShaped(text, sh)
			m := uint32(s.LineCount() + 3)
			c := Change{Text: newText}
			if !full {
				c.Range = rng(sl%m, sc, el%m, ec)
			}
			want, ok := refApply(text, c, enc)
			ns, lcs, err := s.Apply([]Change{c}, enc)
			if !ok {
				if !errors.Is(err, ErrBadPosition) || ns != nil {
					t.Fatalf("reversed range: Apply = %v, %v", ns, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkSnap(t, ns, want)
			checkSnap(t, s, text)
			switch {
			case want == text:
				if len(lcs) != 0 || ns != s {
					t.Fatalf("no-op change gave %v", lcs)
				}
			case full:
				if err := checkLineChanges(text, want, lcs); err != nil {
					t.Fatal(err)
				}
			case len(lcs) != 1:
				t.Fatalf("%d LineChanges", len(lcs))
			default:
				if err := checkLineChange(text, want, lcs[0]); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
