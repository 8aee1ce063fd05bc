package textdoc

import (
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/lines"
	"pgregory.net/rapid"
)

// refTerminators counts terminators over the line split, independently of
// the tree.
func refTerminators(text string) (lf, crlf, cr int) {
	for _, l := range lines.Split(text) {
		switch l.Term {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		case "\r":
			cr++
		}
	}
	return
}

func TestTerminators(t *testing.T) {
	cases := []struct {
		text         string
		lf, crlf, cr int
		dominant     string
	}{
		{"", 0, 0, 0, "\n"},
		{"abc", 0, 0, 0, "\n"},
		{"a\nb\n", 2, 0, 0, "\n"},
		{"a\r\nb\r\nc", 0, 2, 0, "\r\n"},
		{"a\rb\r", 0, 0, 2, "\r"},
		{"a\r\nb\n", 1, 1, 0, "\n"},       // tie with LF: LF
		{"a\r\nb\r", 0, 1, 1, "\r\n"},     // CRLF beats CR on a tie
		{"a\rb\rc\nd\r\n", 1, 1, 2, "\r"}, // CR strictly most
		{"\r\r\n\n", 1, 1, 1, "\n"},
	}
	for _, c := range cases {
		s := New(c.text)
		lf, crlf, cr := s.Terminators()
		if lf != c.lf || crlf != c.crlf || cr != c.cr {
			t.Errorf("Terminators(%q) = %d,%d,%d, want %d,%d,%d", c.text, lf, crlf, cr, c.lf, c.crlf, c.cr)
		}
		if got := s.Dominant(); got != c.dominant || got != dominant(c.text) {
			t.Errorf("Dominant(%q) = %q, want %q (the reference %q)", c.text, got, c.dominant, dominant(c.text))
		}
	}
}

// TestTerminatorsProperty follows a document through edits in small trees
// (many levels, many splits and merges), checking the counts at every step
// against the text, and that old snapshots keep theirs.
func TestTerminatorsProperty(t *testing.T) {
	shapes := []shape{makeShape(2, 4), makeShape(3, 5), defaultShape()}
	rapid.Check(t, func(t *rapid.T) {
		sh := rapid.SampledFrom(shapes).Draw(t, "shape")
		text := genText(800).Draw(t, "doc")
		s := newShaped(text, sh)
		type version struct {
			s    *Snapshot
			text string
		}
		history := []version{{s, text}}
		check := func(v version) {
			lf, crlf, cr := v.s.Terminators()
			wlf, wcrlf, wcr := refTerminators(v.text)
			if lf != wlf || crlf != wcrlf || cr != wcr {
				t.Fatalf("Terminators = %d,%d,%d, want %d,%d,%d for %q", lf, crlf, cr, wlf, wcrlf, wcr, v.text)
			}
			if got, want := v.s.Dominant(), dominant(v.text); got != want {
				t.Fatalf("Dominant = %q, want %q for %q", got, want, v.text)
			}
		}
		check(history[0])
		for range rapid.IntRange(1, 12).Draw(t, "steps") {
			c := genChange(t, text, UTF8)
			next, _, err := s.Apply([]Change{c}, UTF8)
			if err != nil {
				continue // a reversed range: nothing changed
			}
			s, text = next, next.Text()
			history = append(history, version{s, text})
			check(history[len(history)-1])
		}
		for _, v := range history {
			check(v)
		}
	})
}

func BenchmarkDominant200k(b *testing.B) {
	s := New(strings.Repeat("\tfoo(bar)\r\n", 200_000))
	for b.Loop() {
		if s.Dominant() != "\r\n" {
			b.Fatal("wrong")
		}
	}
}
