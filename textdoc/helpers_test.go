package textdoc

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/lines"
)

// The reference model: a naive mapper over plain strings, written without
// the package's code paths (forward rune decoding only, no tree).

// refBoundaries returns, for each character boundary of content (the start of
// every character and the end), its byte offset and its offset in enc units.
func refBoundaries(content string, enc Encoding) (bytes []int, units []uint32) {
	u := uint32(0)
	for i := 0; i < len(content); {
		r, size := utf8.DecodeRuneInString(content[i:])
		bytes = append(bytes, i)
		units = append(units, u)
		switch enc {
		case UTF8:
			u += uint32(size)
		case UTF16:
			u += uint32(utf16.RuneLen(r)) // U+FFFD for an invalid byte: 1
		case UTF32:
			u++
		}
		i += size
	}
	return append(bytes, len(content)), append(units, u)
}

// refByteCol: the last boundary at or before char.
func refByteCol(content string, char uint32, enc Encoding) int {
	bs, us := refBoundaries(content, enc)
	best := 0
	for i := range bs {
		if us[i] <= char {
			best = bs[i]
		}
	}
	return best
}

// refOffset maps p to a byte offset of text, clamping lines past the end to
// the end of the text (the Apply rule).
func refOffset(text string, p Pos, enc Encoding) int {
	off, rest := 0, text
	for i := uint32(0); rest != ""; i++ {
		var l lines.Line
		l, rest = lines.Next(rest)
		if i == p.Line {
			return off + refByteCol(l.Content, p.Char, enc)
		}
		off += l.Len()
	}
	return len(text)
}

// refApply applies one change to text; ok is false for a reversed range.
func refApply(text string, c Change, enc Encoding) (string, bool) {
	if c.Range == nil {
		return c.Text, true
	}
	a, b := refOffset(text, c.Range.Start, enc), refOffset(text, c.Range.End, enc)
	if b < a {
		return "", false
	}
	return text[:a] + c.Text + text[b:], true
}

// applyLineChange applies lc to old, as a consumer of LineChanges would.
func applyLineChange(old, cur []lines.Line, lc LineChange) ([]lines.Line, error) {
	if lc.Start < 0 || lc.Old < 0 || lc.New < 0 || lc.Start+lc.Old > len(old) || lc.Start+lc.New > len(cur) {
		return nil, fmt.Errorf("LineChange %+v out of range (old %d lines, new %d)", lc, len(old), len(cur))
	}
	if lc.Old == 0 && lc.New == 0 {
		return nil, fmt.Errorf("empty LineChange %+v", lc)
	}
	out := append([]lines.Line{}, old[:lc.Start]...)
	out = append(out, cur[lc.Start:lc.Start+lc.New]...)
	return append(out, old[lc.Start+lc.Old:]...), nil
}

// checkLineChange verifies that lc turns the lines of before into those of
// after, and that it is minimised.
func checkLineChange(before, after string, lc LineChange) error {
	old, cur := lines.Split(before), lines.Split(after)
	got, err := applyLineChange(old, cur, lc)
	if err != nil {
		return err
	}
	if !equalLines(got, cur) {
		return fmt.Errorf("LineChange %+v applied to %q gives %q, want %q", lc, before, lines.Join(got), after)
	}
	if lc.Old > 0 && lc.New > 0 {
		if old[lc.Start] == cur[lc.Start] || old[lc.Start+lc.Old-1] == cur[lc.Start+lc.New-1] {
			return fmt.Errorf("LineChange %+v not minimised (%q -> %q)", lc, before, after)
		}
	}
	return nil
}

// checkLineChanges verifies that lcs, applied one after another, turn the
// lines of before into those of after (a full-text change gives one per
// hunk of its line diff), each well-formed, in order and disjoint.
func checkLineChanges(before, after string, lcs []LineChange) error {
	cur, want := lines.Split(before), lines.Split(after)
	next := 0 // the first line of the new text a later change may touch
	for _, lc := range lcs {
		if lc.Start < next {
			return fmt.Errorf("LineChanges %+v out of order", lcs)
		}
		got, err := applyLineChange(cur, want, lc)
		if err != nil {
			return err
		}
		cur, next = got, lc.Start+lc.New
	}
	if !equalLines(cur, want) {
		return fmt.Errorf("LineChanges %+v applied to %q give %q, want %q", lcs, before, lines.Join(cur), after)
	}
	return nil
}

func equalLines(a, b []lines.Line) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkSnap verifies the tree invariants and every accessor against want,
// reading the tree itself (not the cached text) so it also proves that an old
// snapshot is unchanged.
func checkSnap(t tb, s *Snapshot, want string) {
	t.Helper()
	if err := checkTree(s.root, &s.sh, true); err != nil {
		t.Fatalf("tree: %v", err)
	}
	if got := string(s.AppendText(nil, 0, s.LineCount())); got != want {
		t.Fatalf("AppendText = %q, want %q", got, want)
	}
	var w strings.Builder
	if n, err := s.WriteTo(&w); err != nil || n != int64(len(want)) || w.String() != want {
		t.Fatalf("WriteTo = %d, %v, %q, want %q", n, err, w.String(), want)
	}
	ls := lines.Split(want)
	if s.LineCount() != len(ls) || s.Len() != len(want) || s.EndsWithTerm() != lines.EndsWithTerm(want) {
		t.Fatalf("LineCount/Len/EndsWithTerm = %d/%d/%v, want %d/%d/%v", s.LineCount(), s.Len(), s.EndsWithTerm(),
			len(ls), len(want), lines.EndsWithTerm(want))
	}
	off := 0
	for i, l := range ls {
		if got := s.Line(i); got != l {
			t.Fatalf("Line(%d) = %q, want %q", i, got, l)
		}
		if got := s.LineStart(i); got != off {
			t.Fatalf("LineStart(%d) = %d, want %d", i, got, off)
		}
		off += l.Len()
	}
	for i, l := range s.Lines(0, s.LineCount()) {
		if l != ls[i] {
			t.Fatalf("Lines yields %q as line %d, want %q", l, i, ls[i])
		}
	}
	for i := range ls {
		j := min(i+3, len(ls))
		if got, w := string(s.AppendText(nil, i, j)), lines.Join(ls[i:j]); got != w {
			t.Fatalf("AppendText(%d, %d) = %q, want %q", i, j, got, w)
		}
	}
	if s.LineStart(len(ls)) != len(want) {
		t.Fatalf("LineStart(LineCount) = %d, want %d", s.LineStart(len(ls)), len(want))
	}
	if got := s.Text(); got != want {
		t.Fatalf("Text = %q, want %q", got, want)
	}
}

// tb is what checkSnap needs of *testing.T, testing.TB and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkTree verifies the B+tree invariants below n and returns an error
// naming the first violation.
func checkTree(n *node, sh *shape, isRoot bool) error {
	if n == nil {
		if isRoot {
			return nil
		}
		return fmt.Errorf("nil child")
	}
	_, _, err := checkNode(n, sh, isRoot)
	return err
}

func checkNode(n *node, sh *shape, isRoot bool) (nLines, nBytes int, err error) {
	var tm terms
	if n.height == 0 {
		if n.kids != nil {
			return 0, 0, fmt.Errorf("leaf with kids")
		}
		min := sh.leafMin
		if isRoot {
			min = 1
		}
		if len(n.ends) < min || len(n.ends) > sh.leafMax {
			return 0, 0, fmt.Errorf("leaf holds %d lines, want [%d,%d]", len(n.ends), min, sh.leafMax)
		}
		if n.ends[len(n.ends)-1] != uint32(len(n.text)) {
			return 0, 0, fmt.Errorf("leaf lines end at %d, its text at %d", n.ends[len(n.ends)-1], len(n.text))
		}
		for i := range n.ends {
			if n.start(i) >= int(n.ends[i]) {
				return 0, 0, fmt.Errorf("leaf line %d spans [%d,%d)", i, n.start(i), n.ends[i])
			}
			l := n.at(i)
			nBytes += l.Len()
			tm.addLine(l)
			if strings.ContainsAny(l.Content, "\r\n") {
				return 0, 0, fmt.Errorf("line content %q holds a terminator", l.Content)
			}
			if l.Term != "\n" && l.Term != "\r\n" && l.Term != "\r" && l.Term != "" {
				return 0, 0, fmt.Errorf("bad terminator %q", l.Term)
			}
			if l.Term == "" && i != len(n.ends)-1 {
				return 0, 0, fmt.Errorf("leaf line %d of %d without terminator", i, len(n.ends))
			}
		}
		nLines = len(n.ends)
	} else {
		min := sh.nodeMin
		if isRoot {
			min = 2
		}
		if len(n.kids) < min || len(n.kids) > sh.nodeMax {
			return 0, 0, fmt.Errorf("node at height %d holds %d kids, want [%d,%d]", n.height, len(n.kids), min, sh.nodeMax)
		}
		for _, k := range n.kids {
			if k.n.height != n.height-1 {
				return 0, 0, fmt.Errorf("kid height %d under height %d", k.n.height, n.height)
			}
			l, b, err := checkNode(k.n, sh, false)
			if err != nil {
				return 0, 0, err
			}
			if l != k.nLines || b != k.nBytes || l != k.n.nLines || b != k.n.nBytes {
				return 0, 0, fmt.Errorf("kid counts %d/%d, node %d/%d, actual %d/%d", k.nLines, k.nBytes, k.n.nLines, k.n.nBytes, l, b)
			}
			nLines += l
			nBytes += b
			tm.add(k.n.terms)
		}
	}
	if tm != n.terms {
		return 0, 0, fmt.Errorf("node terminator counts %+v, actual %+v", n.terms, tm)
	}
	if nLines != n.nLines || nBytes != n.nBytes {
		return 0, 0, fmt.Errorf("node counts %d/%d, actual %d/%d", n.nLines, n.nBytes, nLines, nBytes)
	}
	return nLines, nBytes, nil
}

// Terminators across lines are checked by lines.Split agreeing with the
// snapshot in checkSnap: a bare "\r" line followed by an empty "\n" line would
// be one CRLF line there.

func rng(sl, sc, el, ec uint32) *Range {
	return &Range{Start: Pos{sl, sc}, End: Pos{el, ec}}
}

// dominant returns the terminator most used in s ("\n" when s has none),
// the one new lines should take so a file keeps its style.
func dominant(s string) string {
	var lf, crlf, cr int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			lf++
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				crlf++
				i++
			} else {
				cr++
			}
		}
	}
	switch {
	case crlf > lf && crlf >= cr:
		return "\r\n"
	case cr > lf && cr > crlf:
		return "\r"
	}
	return "\n"
}

func TestDominantReference(t *testing.T) {
	for in, want := range map[string]string{
		"":              "\n",
		"a\r\nb\r\nc\n": "\r\n",
		"a\nb\r\n":      "\n",
		"a\rb\r":        "\r",
	} {
		if got := dominant(in); got != want {
			t.Errorf("dominant(%q) = %q, want %q", in, got, want)
		}
	}
}
