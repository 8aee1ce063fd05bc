package lines

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []Line
	}{
		{"", nil},
		{"a", []Line{{"a", ""}}},
		{"a\nb\n", []Line{{"a", "\n"}, {"b", "\n"}}},
		{"a\r\nb", []Line{{"a", "\r\n"}, {"b", ""}}},
		{"a\rb\r", []Line{{"a", "\r"}, {"b", "\r"}}},
		{"\n\n", []Line{{"", "\n"}, {"", "\n"}}},
		{"\r\r\n\n", []Line{{"", "\r"}, {"", "\r\n"}, {"", "\n"}}},
		{"\n\r", []Line{{"", "\n"}, {"", "\r"}}},
		{"x\t y \r\n", []Line{{"x\t y ", "\r\n"}}},
	}
	for _, c := range cases {
		got := Split(c.in)
		if len(got) != len(c.want) {
			t.Fatalf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Split(%q)[%d] = %q, want %q", c.in, i, got[i], c.want[i])
			}
		}
		if n := Count(c.in); n != len(c.want) {
			t.Errorf("Count(%q) = %d, want %d", c.in, n, len(c.want))
		}
		if j := Join(got); j != c.in {
			t.Errorf("Join(Split(%q)) = %q", c.in, j)
		}
		if err := checkEnds(c.in, got); err != "" {
			t.Error(err)
		}
	}
}

// checkEnds verifies AppendEnds and Of against the lines Split gave for s,
// and that AppendEnds appends to what dst holds.
func checkEnds(s string, ls []Line) string {
	ends := AppendEnds([]uint32{7}, s)
	if len(ends) != len(ls)+1 || ends[0] != 7 {
		return fmt.Sprintf("AppendEnds(%q) = %v, want 7 and %d ends", s, ends, len(ls))
	}
	start := 0
	for i, e := range ends[1:] {
		if got := Of(s[start:e]); got != ls[i] {
			return fmt.Sprintf("Of(%q) = %q, want %q (line %d of %q)", s[start:e], got, ls[i], i, s)
		}
		start = int(e)
	}
	if start != len(s) {
		return fmt.Sprintf("AppendEnds(%q) ends at %d, want %d", s, start, len(s))
	}
	return ""
}

func TestOf(t *testing.T) {
	for in, want := range map[string]Line{
		"": {}, "a": {"a", ""}, "\n": {"", "\n"}, "\r": {"", "\r"}, "\r\n": {"", "\r\n"},
		"ab\r\n": {"ab", "\r\n"}, "ab\r": {"ab", "\r"}, "ab\n": {"ab", "\n"},
	} {
		if got := Of(in); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEndsLong: the search paths on texts longer than a vector register,
// with terminators at every alignment.
func TestEndsLong(t *testing.T) {
	for _, term := range []string{"\n", "\r\n", "\r", "\r\r\n\n"} {
		var b strings.Builder
		for i := range 300 {
			b.WriteString(strings.Repeat("x", i%70))
			b.WriteString(term)
		}
		b.WriteString("tail")
		s := b.String()
		if err := checkEnds(s, Split(s)); err != "" {
			t.Fatal(err)
		}
		if Count(s) != len(Split(s)) {
			t.Fatalf("Count = %d, Split %d", Count(s), len(Split(s)))
		}
	}
}

// FuzzSplit checks the invariants every caller relies on: Split, Count and
// Join agree, no content holds a terminator, and only the last line may lack one.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "a", "a\n", "a\r\n", "\r", "\r\r\n", "é😀\r\nx", "\n\r\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls := Split(s)
		if Count(s) != len(ls) {
			t.Fatalf("Count(%q)=%d, Split gives %d", s, Count(s), len(ls))
		}
		if Join(ls) != s {
			t.Fatalf("Join(Split(%q)) != input", s)
		}
		if err := checkEnds(s, ls); err != "" {
			t.Fatal(err)
		}
		for i, l := range ls {
			if strings.ContainsAny(l.Content, "\r\n") {
				t.Fatalf("line %d content %q holds a terminator", i, l.Content)
			}
			if l.Term == "" && i != len(ls)-1 {
				t.Fatalf("line %d of %d has no terminator", i, len(ls))
			}
			// A bare \r followed by a line that starts with \n would be one CRLF.
			if l.Term == "\r" && i+1 < len(ls) && ls[i+1].Content == "" && ls[i+1].Term == "\n" {
				t.Fatalf("split CRLF at line %d", i)
			}
		}
	})
}

// TestAppendEndsParallel: a text large enough to be split among goroutines
// gets the same ends as one goroutine finds, whatever terminators meet at
// the cuts.
func TestAppendEndsParallel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	terms := []string{"\n", "\r\n", "\r", "\n\n", "\r\r\n", ""}
	for round := range 6 {
		var b strings.Builder
		for b.Len() < 5*parallelChunk {
			b.WriteString(strings.Repeat("x", r.IntN(60)))
			if round%2 == 0 {
				b.WriteString(terms[r.IntN(len(terms))])
			} else {
				b.WriteString("\n") // no '\r' at all: the fast path
			}
		}
		s := b.String()
		if round == 4 {
			s += "tail without terminator"
		}
		got := AppendEnds([]uint32{42}, s)
		want := appendEnds([]uint32{42}, s)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: parallel ends differ from serial (%d vs %d ends)", round, len(got), len(want))
		}
		if n := Count(s); len(got) != n+1 {
			t.Fatalf("round %d: %d ends, Count says %d", round, len(got)-1, n)
		}
	}
}

// AppendEnds reads eight bytes at a time: words with no newline, one, or
// eight, texts of every length around a word, after ends already in dst.
func TestAppendEndsWords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "\n", "abc\n", "\n\n\n", "ééé", "xxxxxxxxxxxxxxxxxxx\n"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		var want []uint32
		want = append(want, 99)
		for i := range len(s) {
			if s[i] == '\n' {
				want = append(want, uint32(i+1))
			}
		}
		if s != "" && s[len(s)-1] != '\n' {
			want = append(want, uint32(len(s)))
		}
		if got := AppendEnds([]uint32{99}, s); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	}
	big := strings.Repeat("line\n\n\nx", 1<<19) + "tail" // split among goroutines
	got := AppendEnds(nil, big)
	if n := strings.Count(big, "\n") + 1; len(got) != n || got[n-1] != uint32(len(big)) || got[0] != 5 {
		t.Fatalf("%d ends, want %d", len(got), n)
	}
}

// TestAppendEndsParallelWritesInPlace: split among goroutines, the ends are
// written in dst itself, not in parts then copied: a dst with room for
// them costs no allocation the size of the ends (fresh memory costs a page
// fault per 4 KB in a process that lives for one call).
func TestAppendEndsParallelWritesInPlace(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one processor: AppendEnds does not split the text")
	}
	s := strings.Repeat("\tx := compute(i, y) // a line of typical length\n", 4*parallelChunk/48)
	n := Count(s)
	dst := make([]uint32, 0, n+runtime.GOMAXPROCS(0))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := AppendEnds(dst, s)
	runtime.ReadMemStats(&after)
	if len(got) != n || &got[0] != &dst[:1][0] {
		t.Fatalf("%d ends, want %d, in dst", len(got), n)
	}
	if b := after.TotalAlloc - before.TotalAlloc; b > 64<<10 {
		t.Fatalf("AppendEnds of %d lines into a dst with room allocated %d bytes (the ends take %d)", n, b, 4*n)
	}
}
