package patch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/sightline-lsp/sightline/result"
)

// Codex's apply_patch places a file's chunks otherwise than Plan: in order,
// from a cursor that only moves forward, each chunk's old lines found by a
// search that grows more lenient until it finds them (exact; then ignoring
// trailing whitespace; then surrounding whitespace; then with typographic
// dashes, quotes and spaces read as ASCII), its @@ line found the same way
// first. Whatever it finds, it replaces: a line matched leniently is
// rewritten as the patch spells it. PlaceCodex reproduces that placement so
// that the lines a guard judges are exactly the lines Codex will replace.

// Replacement is what Codex's apply_patch does for one chunk: the Old lines
// from Start (0-based, in Codex's lines of the file) are replaced by New.
// Append marks a chunk that only adds lines: current releases append them
// at the end of the file (Start), earlier ones before a last empty line.
type Replacement struct {
	Hunk       int
	Start, Old int
	New        []string
	Append     bool
}

// CodexLines are a file's lines as Codex's apply_patch reads them: split
// at "\n", without the empty rest after a final line break. keepCR keeps
// the "\r" of a "\r\n" in the line, as Codex releases before its line
// ending handling did outside Windows; later ones drop it.
func CodexLines(text string, keepCR bool) []string {
	ls := strings.Split(text, "\n")
	last := ls[len(ls)-1]
	ls = ls[:len(ls)-1]
	if !keepCR {
		for i, l := range ls {
			ls[i] = strings.TrimSuffix(l, "\r")
		}
	}
	if last != "" {
		ls = append(ls, last)
	}
	return ls
}

// PlaceCodex places a file's hunks (as ParseCodex reads them) in its lines
// (CodexLines) as Codex's apply_patch does, and returns the replacements in
// the order of the file, or why Codex would fail to apply them. Hunks whose
// replacements overlap or start at one line are refused: Codex's result
// then depends on how it splices them, which no guard should guess.
func PlaceCodex(lines []string, hunks []Hunk) ([]Replacement, *Failure) {
	var out []Replacement
	cursor := 0
	sk := newCodexSeeker(lines)
	tooLarge := func(i int) *Failure {
		return &Failure{Hunk: i, Kind: "too_large", Err: result.Errorf(result.InvalidEdit, "The patch is too large for sightline to place its hunks as Codex's apply_patch would: send it in smaller patches.")}
	}
	for i, h := range hunks {
		where := fmt.Sprintf("hunk %d (patch line %d)", i+1, h.Line)
		if len(h.Anchors) > 1 {
			return nil, &Failure{Hunk: i, Kind: "invalid", Err: result.Errorf(result.InvalidEdit, "%s has more than one @@ line, which Codex's apply_patch does not read.", capital(where))}
		}
		for _, a := range h.Anchors {
			at, ok, over := sk.seek([]string{a}, cursor, false, codexPasses)
			if over {
				return nil, tooLarge(i)
			}
			if !ok {
				return nil, &Failure{Hunk: i, Kind: "not_found", Err: result.Errorf(result.NoMatch, "Codex's apply_patch finds no line %q for the @@ line of %s.", a, where)}
			}
			cursor = at + 1
		}
		if len(h.Old) == 0 {
			// Only added lines: Codex puts them at the end of the file,
			// whatever the @@ line (releases before 0.169: before a last
			// empty line).
			out = append(out, Replacement{Hunk: i, Start: len(lines), New: h.New, Append: true})
			continue
		}
		old, nw := h.Old, h.New
		at, ok, over := sk.seek(old, cursor, h.EOF, codexPasses)
		if !ok && !over && old[len(old)-1] == "" {
			// Codex retries without a last empty line, which it takes for
			// the file's final line break.
			old = old[:len(old)-1]
			if len(nw) > 0 && nw[len(nw)-1] == "" {
				nw = nw[:len(nw)-1]
			}
			at, ok, over = sk.seek(old, cursor, h.EOF, codexPasses)
		}
		if over {
			return nil, tooLarge(i)
		}
		if !ok {
			return nil, &Failure{Hunk: i, Kind: "not_found", Err: result.Errorf(result.NoMatch, "Codex's apply_patch finds no place for the lines of %s.", where)}
		}
		out = append(out, Replacement{Hunk: i, Start: at, Old: len(old), New: nw})
		cursor = at + len(old)
	}
	slices.SortStableFunc(out, func(a, b Replacement) int { return cmp.Compare(a.Start, b.Start) })
	overlap := func(a, b Replacement) *Failure {
		return &Failure{Hunk: max(a.Hunk, b.Hunk), Kind: "overlap", Err: result.Errorf(result.Overlap, "Hunks %d and %d change overlapping lines as Codex's apply_patch places them: merge them into one hunk.", min(a.Hunk, b.Hunk)+1, max(a.Hunk, b.Hunk)+1)}
	}
	n := len(lines)
	for j, b := range out {
		if j > 0 {
			if a := out[j-1]; a.Start+a.Old > b.Start || a.Start == b.Start {
				return nil, overlap(a, b)
			}
		}
		if !b.Append || n == 0 || lines[n-1] != "" {
			continue
		}
		// An earlier release puts these lines before the last, empty,
		// line: a chunk that changes that line collides with them there.
		for _, a := range out {
			if !a.Append && (a.Start+a.Old > n-1 || a.Start == n-1) {
				return nil, overlap(a, b)
			}
		}
	}
	return out, nil
}

// The passes of the ordered seek, strictest first (codexForm): Codex tries
// all of them; Plan seeks a V4A chunk's lines with the exact one only (its
// lines are replaced: they must be the file's), and its @@ lines, which
// only say where, with the whitespace passes too.
const (
	exactPass    = 1
	anchorPasses = 3
	codexPasses  = 4
)

// codexBudget bounds the line comparisons one file's placement makes: a
// patch that needs more (thousands of hunks against a long file, or
// patterns built to match almost everywhere) is refused rather than let
// the hook outlast its deadline.
const codexBudget = 1 << 26

// codexSeeker is the ordered seek of V4A chunks, Codex's and Plan's: a
// file's lines in the forms each pass compares, each computed once for all
// the chunks of the file when a pass first needs it, and the count of the
// comparisons made.
type codexSeeker struct {
	forms [codexPasses][]string
	spent int
}

func newCodexSeeker(lines []string) *codexSeeker {
	if lines == nil {
		lines = []string{}
	}
	return &codexSeeker{forms: [codexPasses][]string{lines}}
}

// form is the file's lines as pass compares them.
func (s *codexSeeker) form(pass int) []string {
	if s.forms[pass] == nil {
		f := make([]string, len(s.forms[0]))
		for i, l := range s.forms[0] {
			f[i] = codexForm(pass, l)
		}
		s.forms[pass] = f
	}
	return s.forms[pass]
}

// seek finds pattern in the lines at or after start as Codex's apply_patch
// seeks a chunk, with the first passes only: each pass over every position
// before the next, more lenient, pass. With eof only the position that
// ends at the last line is tried, when it is not before start. An empty
// pattern is found at start. over is true when the budget ran out first.
func (s *codexSeeker) seek(pattern []string, start int, eof bool, passes int) (at int, ok, over bool) {
	n := len(s.forms[0])
	if len(pattern) == 0 {
		return start, true, false
	}
	if len(pattern) > n {
		return 0, false, false
	}
	from := start
	if eof {
		// Only the place that ends the file, and only after the cursor
		// (releases before 0.169 look there even before the cursor, and
		// may splice over an earlier hunk: refused here as unplaced).
		from = max(start, n-len(pattern))
	}
	for pass := range passes {
		lines := s.form(pass)
		p := make([]string, len(pattern))
		for j, l := range pattern {
			p[j] = codexForm(pass, l)
		}
		for i := from; i <= n-len(p); i++ {
			j := 0
			for j < len(p) && lines[i+j] == p[j] {
				j++
			}
			if s.spent += j + 1; s.spent > codexBudget {
				return 0, false, true
			}
			if j == len(p) {
				return i, true, false
			}
		}
	}
	return 0, false, false
}

// codexForm is a line as a pass of seek compares it, strictest first:
// as it is; without trailing whitespace; without surrounding whitespace;
// and that with typographic punctuation as ASCII.
func codexForm(pass int, s string) string {
	switch pass {
	case 1:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case 2:
		return strings.TrimFunc(s, unicode.IsSpace)
	case 3:
		return codexNormal(s)
	}
	return s
}

// codexNormal is a line as Codex's last pass compares it: trimmed, with
// typographic dashes, quotes and spaces as their ASCII forms.
func codexNormal(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, strings.TrimFunc(s, unicode.IsSpace))
}
