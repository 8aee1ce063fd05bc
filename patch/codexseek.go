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
type Replacement struct {
	Hunk       int
	Start, Old int
	New        []string
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
	for i, h := range hunks {
		where := fmt.Sprintf("hunk %d (patch line %d)", i+1, h.Line)
		if len(h.Anchors) > 1 {
			return nil, &Failure{Hunk: i, Kind: "invalid", Err: result.Errorf(result.InvalidEdit, "%s has more than one @@ line, which Codex's apply_patch does not read.", capital(where))}
		}
		for _, a := range h.Anchors {
			at, ok := SeekCodex(lines, []string{a}, cursor, false)
			if !ok {
				return nil, &Failure{Hunk: i, Kind: "not_found", Err: result.Errorf(result.NoMatch, "Codex's apply_patch finds no line %q for the @@ line of %s.", a, where)}
			}
			cursor = at + 1
		}
		if len(h.Old) == 0 {
			// Only added lines: Codex puts them at the end of the file,
			// before a last empty line.
			at := len(lines)
			if at > 0 && lines[at-1] == "" {
				at--
			}
			out = append(out, Replacement{Hunk: i, Start: at, New: h.New})
			continue
		}
		old, nw := h.Old, h.New
		at, ok := SeekCodex(lines, old, cursor, h.EOF)
		if !ok && old[len(old)-1] == "" {
			// Codex retries without a last empty line, which it takes for
			// the file's final line break.
			old = old[:len(old)-1]
			if len(nw) > 0 && nw[len(nw)-1] == "" {
				nw = nw[:len(nw)-1]
			}
			at, ok = SeekCodex(lines, old, cursor, h.EOF)
		}
		if !ok {
			return nil, &Failure{Hunk: i, Kind: "not_found", Err: result.Errorf(result.NoMatch, "Codex's apply_patch finds no place for the lines of %s.", where)}
		}
		out = append(out, Replacement{Hunk: i, Start: at, Old: len(old), New: nw})
		cursor = at + len(old)
	}
	slices.SortStableFunc(out, func(a, b Replacement) int { return cmp.Compare(a.Start, b.Start) })
	for j := 1; j < len(out); j++ {
		a, b := out[j-1], out[j]
		if a.Start+a.Old > b.Start || a.Start == b.Start {
			return nil, &Failure{Hunk: max(a.Hunk, b.Hunk), Kind: "overlap", Err: result.Errorf(result.Overlap, "Hunks %d and %d change overlapping lines as Codex's apply_patch places them: merge them into one hunk.", min(a.Hunk, b.Hunk)+1, max(a.Hunk, b.Hunk)+1)}
		}
	}
	return out, nil
}

// SeekCodex finds pattern in lines at or after start as Codex's apply_patch
// seeks a chunk: each pass over every position before the next, more
// lenient, pass. With eof only the position that ends at the last line is
// tried, whatever start is. An empty pattern is found at start.
func SeekCodex(lines, pattern []string, start int, eof bool) (int, bool) {
	if len(pattern) == 0 {
		return start, true
	}
	if len(pattern) > len(lines) {
		return 0, false
	}
	from := start
	if eof {
		from = len(lines) - len(pattern)
	}
	for pass := range 4 {
		for i := from; i <= len(lines)-len(pattern); i++ {
			if matchAll(lines[i:i+len(pattern)], pattern, pass) {
				return i, true
			}
		}
	}
	return 0, false
}

// codexSame compares a line of the file with one of the pattern as
// SeekCodex's pass does, strictest first.
func codexSame(pass int, a, b string) bool {
	switch pass {
	case 0:
		return a == b
	case 1:
		return strings.TrimRightFunc(a, unicode.IsSpace) == strings.TrimRightFunc(b, unicode.IsSpace)
	case 2:
		return strings.TrimFunc(a, unicode.IsSpace) == strings.TrimFunc(b, unicode.IsSpace)
	}
	return codexNormal(a) == codexNormal(b)
}

func matchAll(ls, pattern []string, pass int) bool {
	for j, p := range pattern {
		if !codexSame(pass, ls[j], p) {
			return false
		}
	}
	return true
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
