package textdoc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	five := "n\nn\nn\nn\nn\n"
	cases := []struct {
		name    string
		text    string
		enc     Encoding
		changes []Change
		want    string
		lcs     []LineChange
	}{
		{"type a char", "a\nb\nc\n", UTF16, []Change{{rng(1, 1, 1, 1), "x"}}, "a\nbx\nc\n", []LineChange{{1, 1, 1}}},
		{"insert lines before a line", "a\nb\nc\n", UTF16, []Change{{rng(2, 0, 2, 0), five}}, "a\nb\n" + five + "c\n", []LineChange{{2, 0, 5}}},
		{"insert lines at a line end", "a\nb\nc\n", UTF16, []Change{{rng(1, 1, 1, 1), "\nn\nn"}}, "a\nb\nn\nn\nc\n", []LineChange{{2, 0, 2}}},
		{"delete a line", "a\nb\nc\n", UTF16, []Change{{rng(1, 0, 2, 0), ""}}, "a\nc\n", []LineChange{{1, 1, 0}}},
		{"replace across lines", "a\nb\nc\n", UTF16, []Change{{rng(0, 1, 2, 0), "X"}}, "aXc\n", []LineChange{{0, 3, 1}}},
		{"full replacement", "a\nb\nc\n", UTF16, []Change{{nil, "a\nB\nc\n"}}, "a\nB\nc\n", []LineChange{{1, 1, 1}}},
		{"full replacement, more lines", "a\nb\n", UTF16, []Change{{nil, "a\nx\ny\nb\n"}}, "a\nx\ny\nb\n", []LineChange{{1, 0, 2}}},
		{"full replacement to empty", "a\nb\n", UTF16, []Change{{nil, ""}}, "", []LineChange{{0, 2, 0}}},
		{"full replacement, same text", "a\nb\n", UTF16, []Change{{nil, "a\nb\n"}}, "a\nb\n", nil},
		{"no-op range change", "a\nb\n", UTF16, []Change{{rng(1, 0, 1, 1), "b"}}, "a\nb\n", nil},
		{"empty change", "a\nb\n", UTF16, []Change{{rng(1, 0, 1, 0), ""}}, "a\nb\n", nil},
		{"no changes", "a\n", UTF16, nil, "a\n", nil},
		{"sequential changes", "a\nb\n", UTF16, []Change{{rng(0, 0, 0, 0), "x"}, {rng(1, 0, 1, 1), "y"}}, "xa\ny\n", []LineChange{{0, 1, 1}, {1, 1, 1}}},
		{"second change sees the first", "a\n", UTF16, []Change{{rng(0, 1, 0, 1), "\nb"}, {rng(1, 1, 1, 1), "c"}}, "a\nbc\n", []LineChange{{1, 0, 1}, {1, 1, 1}}},

		// CRLF and bare CR.
		{"CR + LF join by deletion", "a\rb\n", UTF16, []Change{{rng(1, 0, 1, 1), ""}}, "a\r\n", []LineChange{{0, 2, 1}}},
		{"CR + LF join by insertion", "a\rb", UTF16, []Change{{rng(1, 0, 1, 0), "\n"}}, "a\r\nb", []LineChange{{0, 1, 1}}},
		{"CR + LF join at end of doc", "a\r", UTF16, []Change{{rng(1, 0, 1, 0), "\nb"}}, "a\r\nb", []LineChange{{0, 1, 2}}},
		{"CR + LF join deleting a whole line", "a\rb\n\n", UTF16, []Change{{rng(1, 0, 2, 0), ""}}, "a\r\n", []LineChange{{0, 3, 1}}},
		{"CRLF split", "a\r\nb", UTF16, []Change{{rng(0, 1, 1, 0), "\rx\n"}}, "a\rx\nb", []LineChange{{0, 1, 2}}},
		{"CRLF to LF", "a\r\nb\r\n", UTF16, []Change{{rng(0, 1, 1, 0), "\n"}}, "a\nb\r\n", []LineChange{{0, 1, 1}}},
		{"bare CR lines", "a\rb\rc", UTF16, []Change{{rng(1, 0, 1, 1), "B"}}, "a\rB\rc", []LineChange{{1, 1, 1}}},
		{"insert CR before LF line", "a\n\nb", UTF16, []Change{{rng(0, 1, 0, 1), "\r"}}, "a\r\n\nb", []LineChange{{0, 1, 1}}},
		{"CR typed after CR", "a\r", UTF16, []Change{{rng(1, 0, 1, 0), "\r"}}, "a\r\r", []LineChange{{1, 0, 1}}},

		// End of document.
		{"insert at end, unterminated", "a", UTF16, []Change{{rng(1, 0, 1, 0), "b"}}, "ab", []LineChange{{0, 1, 1}}},
		{"insert past end clamps", "a", UTF16, []Change{{rng(5, 3, 9, 0), "b"}}, "ab", []LineChange{{0, 1, 1}}},
		{"insert at end, terminated", "a\n", UTF16, []Change{{rng(1, 0, 1, 0), "b"}}, "a\nb", []LineChange{{1, 0, 1}}},
		{"delete to past end", "a\nb\nc", UTF16, []Change{{rng(1, 0, 7, 7), ""}}, "a\n", []LineChange{{1, 2, 0}}},
		{"delete last unterminated line", "a\nb", UTF16, []Change{{rng(1, 0, 1, 1), ""}}, "a\n", []LineChange{{1, 1, 0}}},
		{"delete final newline", "a\nb\n", UTF16, []Change{{rng(1, 1, 2, 0), ""}}, "a\nb", []LineChange{{1, 1, 1}}},
		{"add final newline", "a\nb", UTF16, []Change{{rng(1, 1, 1, 1), "\n"}}, "a\nb\n", []LineChange{{1, 1, 1}}},

		// Empty document.
		{"insert into empty", "", UTF16, []Change{{rng(0, 0, 0, 0), "x\ny"}}, "x\ny", []LineChange{{0, 0, 2}}},
		{"delete everything", "x\ny", UTF16, []Change{{rng(0, 0, 1, 1), ""}}, "", []LineChange{{0, 2, 0}}},
		{"empty stays empty", "", UTF16, []Change{{rng(3, 0, 4, 0), ""}}, "", nil},

		// Encodings.
		{"UTF-16 after emoji", "😀x\n", UTF16, []Change{{rng(0, 2, 0, 3), "y"}}, "😀y\n", []LineChange{{0, 1, 1}}},
		{"UTF-16 inside surrogate rounds down", "😀x\n", UTF16, []Change{{rng(0, 1, 0, 3), "y"}}, "y\n", []LineChange{{0, 1, 1}}},
		{"UTF-8 after é", "é\n", UTF8, []Change{{rng(0, 2, 0, 2), "x"}}, "éx\n", []LineChange{{0, 1, 1}}},
		{"UTF-8 inside é rounds down", "é\n", UTF8, []Change{{rng(0, 1, 0, 1), "x"}}, "xé\n", []LineChange{{0, 1, 1}}},
		{"UTF-32", "😀é\n", UTF32, []Change{{rng(0, 1, 0, 2), ""}}, "😀\n", []LineChange{{0, 1, 1}}},
		{"invalid UTF-8", "a\xff\xfeb\n", UTF16, []Change{{rng(0, 2, 0, 3), ""}}, "a\xffb\n", []LineChange{{0, 1, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sh := range []shape{defaultShape(), makeShape(2, 4)} {
				s := newShaped(c.text, sh)
				ns, lcs, err := s.Apply(c.changes, c.enc)
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
				checkSnap(t, ns, c.want)
				checkSnap(t, s, c.text)
				if fmt.Sprint(lcs) != fmt.Sprint(c.lcs) {
					t.Errorf("LineChanges = %v, want %v", lcs, c.lcs)
				}
				if len(c.lcs) == 0 && ns != s {
					t.Errorf("no change, but a new snapshot")
				}
				// The reference model agrees.
				ref := c.text
				for _, ch := range c.changes {
					ref, _ = refApply(ref, ch, c.enc)
				}
				if ref != c.want {
					t.Errorf("reference gives %q", ref)
				}
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	s := New("abc\ndef\n")
	for _, c := range []struct {
		name    string
		changes []Change
	}{
		{"reversed lines", []Change{{rng(1, 0, 0, 0), "x"}}},
		{"reversed chars", []Change{{rng(0, 2, 0, 1), "x"}}},
		{"second change bad", []Change{{rng(0, 0, 0, 0), "x"}, {rng(1, 3, 1, 1), ""}}},
	} {
		ns, lcs, err := s.Apply(c.changes, UTF16)
		if !errors.Is(err, ErrBadPosition) || ns != nil || lcs != nil {
			t.Errorf("%s: Apply = %v, %v, %v; want ErrBadPosition", c.name, ns, lcs, err)
		}
	}
	if _, _, err := s.Apply([]Change{{nil, ""}}, Encoding(3)); err == nil {
		t.Errorf("Apply with a bad encoding: no error")
	}
	// Reversed by clamping only: both ends clamp to the end of line 0.
	if _, _, err := s.Apply([]Change{{rng(0, 9, 0, 5), "x"}}, UTF16); err != nil {
		t.Errorf("clamped range: %v", err)
	}
	checkSnap(t, s, "abc\ndef\n")
}

// TestApplyDeep edits a document of 12,000 lines in a tree with tiny nodes
// (height ~12), mixing one-line edits with edits spanning many leaves, and
// checks the result against the reference after every edit, the tree
// invariants regularly, and every old snapshot at the end.
func TestApplyDeep(t *testing.T) {
	for _, sh := range []shape{makeShape(2, 4), makeShape(5, 6), defaultShape()} {
		t.Run(fmt.Sprintf("leaf%d/node%d", sh.leafMax, sh.nodeMax), func(t *testing.T) {
			text := goSource(12000, 1)
			s := newShaped(text, sh)
			checkSnap(t, s, text)
			if sh.leafMax == 2 && s.root.height < 6 {
				t.Fatalf("tree height %d, want a deep tree", s.root.height)
			}
			type version struct {
				s    *Snapshot
				text string
			}
			var history []version
			r := newRand(7)
			n := 300
			if testing.Short() {
				n = 60
			}
			for i := range n {
				ls := s.LineCount()
				var c Change
				switch i % 6 {
				case 0, 1, 2: // typing
					l := uint32(r.IntN(ls + 1))
					c = Change{rng(l, 3, l, 3), "x"}
				case 3: // delete a block of lines
					a := r.IntN(ls + 1)
					b := min(a+r.IntN(300), ls)
					c = Change{rng(uint32(a), 2, uint32(b), 1), ""}
				case 4: // paste a block of lines
					l := uint32(r.IntN(ls + 1))
					c = Change{rng(l, 1, l, 1), goSource(1+r.IntN(300), uint64(i))}
				case 5: // replace across lines with mixed terminators
					a := r.IntN(ls + 1)
					b := min(a+r.IntN(40), ls)
					c = Change{rng(uint32(a), 0, uint32(b), 4), "p\r\nq\rr\né😀\n"}
				}
				want, _ := refApply(text, c, UTF16)
				ns, lcs, err := s.Apply([]Change{c}, UTF16)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(ns.AppendText(nil, 0, ns.LineCount())); got != want {
					t.Fatalf("edit %d (%+v): text differs", i, c.Range)
				}
				if len(lcs) != 1 {
					t.Fatalf("edit %d: %d LineChanges", i, len(lcs))
				}
				if err := checkLineChange(text, want, lcs[0]); err != nil {
					t.Fatalf("edit %d: %v", i, err)
				}
				if i%50 == 0 {
					checkSnap(t, ns, want)
				} else if err := checkTree(ns.root, &ns.sh, true); err != nil {
					t.Fatalf("edit %d: %v", i, err)
				}
				history = append(history, version{s, text})
				s, text = ns, want
			}
			checkSnap(t, s, text)
			for _, v := range history {
				if got := string(v.s.AppendText(nil, 0, v.s.LineCount())); got != v.text {
					t.Fatalf("an old snapshot changed")
				}
			}
		})
	}
}

// TestApplyShares checks that a one-line change copies only a root-to-leaf
// path and shares the rest of the tree with the old snapshot.
func TestApplyShares(t *testing.T) {
	for _, sh := range []shape{defaultShape(), makeShape(4, 4)} {
		s := newShaped(goSource(100000, 3), sh)
		ns, _, err := s.Apply([]Change{{rng(50000, 2, 50000, 2), "x"}}, UTF16)
		if err != nil {
			t.Fatal(err)
		}
		old := map[*node]bool{}
		var mark func(n *node)
		mark = func(n *node) {
			old[n] = true
			for _, k := range n.kids {
				mark(k.n)
			}
		}
		mark(s.root)
		fresh := 0
		var count func(n *node)
		count = func(n *node) {
			if old[n] {
				return
			}
			fresh++
			for _, k := range n.kids {
				count(k.n)
			}
		}
		count(ns.root)
		if fresh > ns.root.height+1 {
			t.Errorf("leaf %d/node %d: a one-line change made %d new nodes, tree height %d", sh.leafMax, sh.nodeMax, fresh, ns.root.height)
		}
	}
}

func TestLinesIter(t *testing.T) {
	text := goSource(500, 5)
	s := newShaped(text, makeShape(3, 4))
	var b strings.Builder
	next := 100
	for i, l := range s.Lines(100, 400) {
		if i != next {
			t.Fatalf("index %d, want %d", i, next)
		}
		next++
		b.WriteString(l.Content + l.Term)
	}
	if next != 400 || b.String() != string(s.AppendText(nil, 100, 400)) {
		t.Fatalf("Lines(100, 400) disagrees with AppendText")
	}
	for i := range s.Lines(10, 20) {
		if i == 12 {
			break // early stop must not panic
		}
	}
	for range s.Lines(7, 7) {
		t.Fatal("empty range yielded")
	}
}

func TestLinePanics(t *testing.T) {
	s := New("a\nb\n")
	for _, f := range []func(){
		func() { s.Line(2) },
		func() { s.Line(-1) },
		func() { New("").Line(0) },
		func() { s.AppendText(nil, 1, 3) },
		func() { s.AppendText(nil, 2, 1) },
		func() { s.LineStart(3) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		}()
	}
}

func TestConcurrentText(t *testing.T) {
	s := New(goSource(2000, 9))
	ns, _, _ := s.Apply([]Change{{rng(5, 0, 5, 0), "x"}}, UTF16)
	want := string(ns.AppendText(nil, 0, ns.LineCount()))
	done := make(chan string)
	for range 8 {
		go func() { done <- ns.Text() }()
	}
	for range 8 {
		if <-done != want {
			t.Fatal("Text differs")
		}
	}
}
