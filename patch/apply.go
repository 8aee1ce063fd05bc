package patch

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/editblock"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
)

// Placed is a hunk matched to the text: the splice it makes and the lines of
// the text it vouches for (context and removed lines), which the guard
// checks.
type Placed struct {
	Hunk       int // index in File.Hunks
	Splice     hashline.Splice
	Start, End int // 1-based inclusive lines matched
	// Also is, for a V4A hunk placed at the first of several places its
	// lines occur after the hunk before it, the 1-based first line of the
	// next such place (0 when there is none): the answer says where the
	// hunk went.
	Also int
}

// Failure says why a hunk does not apply, in words a model can act on.
type Failure struct {
	Hunk int
	// Kind is an edit-block diagnosis kind (whitespace_mismatch, near_match,
	// not_found, ambiguous) or "overlap", "invalid" or "too_large".
	Kind string
	Line int // the closest or first matching line of the text, 0 if none
	Err  *result.Error
}

// Plan matches every hunk of f against src, the file's current text, and
// returns the plan of the whole file patch in src's coordinates, or the
// first hunk that does not apply. Hunks are placed in order, each after the
// previous one's lines and its @@ lines (V4A anchors, each the first line
// from there that is its text exactly, else but for whitespace around it).
// A hunk's old lines (context and removed) must occur there exactly. A V4A
// chunk (f.V4A) goes to the first such place, as the format defines;
// another hunk to its only place, or among several to the one the unified
// header's line number (shifted as the earlier hunks were) names. A line
// number only chooses among exact places: it never makes an inexact match
// apply. dominant is the file's line terminator for new lines.
func Plan(src hashline.Source, f File, dominant string) (hashline.Plan, []Placed, *Failure) {
	var placed []Placed
	pl := &placer{src: src, f: f, dominant: dominant}
	if f.V4A || len(f.Hunks) > 1 || len(f.Hunks) == 1 && f.Hunks[0].OldStart > 0 {
		pl.idx = newLineIndex(src, f)
	}
	floor, offset := 0, 0
	for i, h := range f.Hunks {
		p, fail := pl.place(i, h, floor, offset)
		if fail != nil {
			return hashline.Plan{}, nil, fail
		}
		if p.End > 0 && len(h.Old) > 0 {
			// (Lines added at the end of the file by a hunk without old
			// lines leave the rest of the file to the hunks after it, as
			// Codex has it.)
			floor = p.End
			if h.OldStart > 0 {
				offset = p.Start - h.OldStart
			}
		}
		if p.Splice.Old == 0 && len(p.Splice.New) == 0 {
			continue // a hunk that changes nothing
		}
		placed = append(placed, p)
	}
	slices.SortFunc(placed, func(a, b Placed) int {
		return cmp.Or(cmp.Compare(a.Splice.Start, b.Splice.Start), cmp.Compare(a.Hunk, b.Hunk))
	})
	splices := make([]hashline.Splice, 0, len(placed))
	var targets []hashline.LineRange
	for i, p := range placed {
		targets = append(targets, hashline.LineRange{Start: p.Start, End: p.End})
		if i == 0 {
			splices = append(splices, p.Splice)
			continue
		}
		a, b := placed[i-1], p
		if touching(f, a, b) {
			// One splice: the lines the first adds, then the second's.
			last := &splices[len(splices)-1]
			last.Old = b.Splice.Old
			last.New = append(slices.Clip(last.New), b.Splice.New...)
			continue
		}
		if a.Splice.Start+a.Splice.Old > b.Splice.Start || a.Splice.Start == b.Splice.Start {
			first, second := min(a.Hunk, b.Hunk), max(a.Hunk, b.Hunk)
			return hashline.Plan{}, nil, &Failure{Hunk: second, Kind: "overlap", Line: b.Start, Err: result.Errorf(result.Overlap,
				"Hunks %d and %d of %s change overlapping lines (%d-%d and %d-%d): merge them into one hunk.", first+1, second+1, f.Path, a.Start, a.End, b.Start, b.End)}
		}
		splices = append(splices, p.Splice)
	}
	return hashline.NewPlan(src.LineCount(), splices, targets), placed, nil
}

// touching reports whether V4A chunks a and b (a first in the file and in
// the patch) meet without overlapping: a's lines end where b's begin, and
// a only adds lines there, so both splices start at that line. Codex
// applies both, a's added lines first; so does Plan, as one splice.
func touching(f File, a, b Placed) bool {
	return f.V4A && a.Hunk < b.Hunk && a.Splice.Start == b.Splice.Start && a.Splice.Old == 0 &&
		len(f.Hunks[a.Hunk].Old) > 0 && len(f.Hunks[b.Hunk].Old) > 0 && a.End < b.Start
}

// placer places the hunks of one file patch in a text.
type placer struct {
	src      hashline.Source
	f        File
	dominant string
	// idx finds the exact places of the hunks' lines (nil: the matcher
	// searches).
	idx *lineIndex
	// sk is the ordered seek over the text's lines (V4A chunks, @@ lines),
	// made when first needed.
	sk *codexSeeker
}

// seeker is the ordered seek over the text's lines as the matcher compares
// them (the byte-order mark off the first).
func (pl *placer) seeker() *codexSeeker {
	if pl.sk == nil {
		n := pl.src.LineCount()
		ls := make([]string, n)
		if seq, ok := pl.src.(interface {
			Lines(from, to int) iter.Seq2[int, lines.Line]
		}); ok && n > 0 {
			for i, l := range seq.Lines(0, n) {
				ls[i] = l.Content
			}
		} else {
			for i := range n {
				ls[i] = pl.src.Line(i).Content
			}
		}
		if n > 0 {
			_, ls[0] = hashline.StripBOM(ls[0])
		}
		pl.sk = newCodexSeeker(ls)
	}
	return pl.sk
}

// tooLarge is the failure of a placement that ran out of its budget.
func tooLarge(i int) *Failure {
	return &Failure{Hunk: i, Kind: "too_large", Err: result.Errorf(result.InvalidEdit, "The patch is too large to place its hunks in this file: send it in smaller patches.")}
}

// place matches hunk i at or after line floor (0-based), finding its exact
// place through the ordered seek for a V4A chunk, else through idx when it
// has one — its only one, or among several the one nearest its header's
// line shifted by offset (the matcher then plans the splice over just
// those lines); otherwise, or without idx, the matcher searches and
// diagnoses as always.
func (pl *placer) place(i int, h Hunk, floor, offset int) (Placed, *Failure) {
	src, f, dominant := pl.src, pl.f, pl.dominant
	where := fmt.Sprintf("hunk %d (patch line %d)", i+1, h.Line)
	if len(h.Old) == 0 && src.LineCount() > 0 {
		return addOnly(src, i, h, where, dominant)
	}
	// The anchors narrow the text the hunk may match: from the line after the
	// last anchor on.
	from := floor
	for _, a := range h.Anchors {
		at, ok, over := pl.seeker().seek([]string{a}, from, false, anchorPasses)
		if over {
			return Placed{}, tooLarge(i)
		}
		if !ok {
			return Placed{}, &Failure{Hunk: i, Kind: editblock.KindNotFound, Err: result.Errorf(result.NoMatch,
				"The @@ line %q of %s is not in the file%s: it must repeat a line of the file.", strings.TrimSpace(a), where, lineOn(from))}
		}
		from = at + 1
	}
	// The matcher sees the file with the lines before from hidden, so that
	// it matches and diagnoses only after them, in the file's own line
	// numbers; or just the one exact place the ordered seek or idx chose.
	view, base := hashline.Source(src), 0
	if from > 0 {
		view = hiddenSource{src, from}
	}
	also, sought := 0, -1
	if f.V4A {
		at, fail := pl.seekV4A(i, h, where, from)
		if fail != nil {
			return Placed{}, fail
		}
		if sought = at; at >= 0 {
			view, base = windowSource{src, at, len(h.Old)}, at
			if next := pl.idx.other(h.Old, from, at); next >= 0 {
				also = next + 1
			}
		}
	} else if at, ok := pl.idx.choose(h.Old, from, h.OldStart-1+offset, h.OldStart > 0); ok {
		view, base = windowSource{src, at, len(h.Old)}, at
	}
	b := editblock.Block{Path: f.Path, Old: h.Old, New: h.New, OldCR: h.OldCR, NewCR: h.CR, Line: h.Line, Words: editblock.HunkWords(i + 1)}
	m, d := editblock.MatchBlock(view, b, dominant)
	if d != nil {
		if from > 0 && d.Kind == editblock.KindNotFound && !f.V4A {
			if whole, d2 := editblock.MatchBlock(src, b, dominant); d2 == nil {
				return Placed{}, &Failure{Hunk: i, Kind: editblock.KindNotFound, Line: whole.Start, Err: result.Errorf(result.NoMatch,
					"%s matches %s, but a hunk applies after the lines of the hunks and @@ lines before it (line %d on): put the hunks in the order of the file.", capital(where), lineSpan(whole.Start, whole.End), from+1)}
			}
		}
		line := d.Line
		if line > 0 {
			line += base
		}
		return Placed{}, &Failure{Hunk: i, Kind: d.Kind, Line: line, Err: result.Errorf(d.ErrorKind(), "%s", d.Message)}
	}
	if m.NoOp {
		if h.OldNoEOL == h.NewNoEOL {
			if !f.V4A {
				return Placed{Hunk: i}, nil
			}
			// A V4A chunk that changes nothing is still sought, and moves
			// the chunks after it past its lines.
			if sought < 0 {
				return Placed{}, &Failure{Hunk: i, Kind: editblock.KindNotFound, Err: result.Errorf(result.NoMatch,
					"The lines of %s are not in the file%s.", where, lineOn(from))}
			}
			return Placed{Hunk: i, Start: sought + 1, End: sought + len(h.Old)}, nil
		}
		return eolOnly(src, f, i, h, where, dominant)
	}
	sp := m.Splice
	sp.Start += base
	p := Placed{Hunk: i, Splice: sp, Start: m.Start + base, End: m.End + base, Also: also}
	if h.EOF && p.End != src.LineCount() && !(p.End == src.LineCount()-1 && remainder(src)) {
		return Placed{}, &Failure{Hunk: i, Kind: editblock.KindNotFound, Line: p.Start, Err: result.Errorf(result.NoMatch,
			"%s is marked *** End of File but its lines end at line %d of %d.", capital(where), p.End, src.LineCount())}
	}
	fixNoEOL(src, &p, h, dominant)
	return p, nil
}

// seekV4A finds a V4A chunk's place by the format's rule: the first place
// at or after from (the end of the chunk before it, or its last @@ line)
// where its old lines are the file's lines exactly; for a chunk marked
// *** End of File, the place that ends the file (before or after its
// empty rest after a final line break). It returns the 0-based line, or
// -1 to have the matcher diagnose a hunk the file does not hold exactly
// anywhere (whitespace, near matches), or the failure of a hunk whose
// lines are in the file but not where the rule looks.
func (pl *placer) seekV4A(i int, h Hunk, where string, from int) (int, *Failure) {
	if len(h.Old) == 0 {
		return -1, nil // an empty file: the matcher says so
	}
	sk := pl.seeker()
	n, k := pl.src.LineCount(), len(h.Old)
	start := from
	if h.EOF {
		end := n - k
		if remainder(pl.src) {
			end--
		}
		start = max(from, end)
	}
	at, ok, over := sk.seek(h.Old, start, false, exactPass)
	if over {
		return -1, tooLarge(i)
	}
	if ok {
		return at, nil
	}
	if h.EOF {
		if at, ok, _ := sk.seek(h.Old, from, false, exactPass); ok {
			return -1, &Failure{Hunk: i, Kind: editblock.KindNotFound, Line: at + 1, Err: result.Errorf(result.NoMatch,
				"%s is marked *** End of File but its lines are %s of %d.", capital(where), lineSpan(at+1, at+k), n)}
		}
	}
	if at, ok, _ := sk.seek(h.Old, 0, false, exactPass); ok {
		return -1, &Failure{Hunk: i, Kind: editblock.KindNotFound, Line: at + 1, Err: result.Errorf(result.NoMatch,
			"%s matches %s, but a V4A hunk is sought after the lines of the hunks and @@ lines before it (line %d on), and its lines are not there: put the hunks in the order of the file, each after the one before.", capital(where), lineSpan(at+1, at+k), from+1)}
	}
	return -1, nil
}

// fixNoEOL makes the final-newline state what the hunk says when the hunk
// reaches the end of the file (`\ No newline at end of file`).
func fixNoEOL(src hashline.Source, p *Placed, h Hunk, dominant string) {
	n := src.LineCount()
	if p.End != n || h.OldNoEOL == h.NewNoEOL {
		return
	}
	sp := &p.Splice
	// The matcher leaves lines both sides share alone; the last line's
	// terminator is what changes here, so the splice must reach it.
	for end := sp.Start + sp.Old; end < n; end++ {
		sp.New = append(sp.New, src.Line(end))
		sp.Old++
	}
	if len(sp.New) == 0 {
		// The last lines are deleted: the line before them becomes the last.
		if sp.Start == 0 {
			return
		}
		sp.Start--
		sp.Old++
		sp.New = []lines.Line{src.Line(sp.Start)}
	}
	last := &sp.New[len(sp.New)-1]
	switch {
	case h.NewNoEOL:
		last.Term = ""
	case last.Term == "":
		last.Term = dominant
	}
}

// remainder reports whether src's last line is the empty rest after a final
// line break.
func remainder(src hashline.Source) bool {
	n := src.LineCount()
	return n > 0 && src.Line(n-1).Content == "" && src.Line(n-1).Term == ""
}

// addOnly places a hunk without old lines. A V4A hunk that only adds lines,
// with no @@ line, adds them at the end of the file (as Codex does); the
// file keeps its final-newline state. Anywhere else its place would be a
// guess (after an @@ line: where in what follows?) or a line number alone
// (a unified hunk), which sightline never uses to choose a place.
func addOnly(src hashline.Source, i int, h Hunk, where, dominant string) (Placed, *Failure) {
	if h.OldStart > 0 || len(h.Anchors) > 0 {
		return Placed{}, &Failure{Hunk: i, Kind: "invalid", Err: result.Errorf(result.InvalidEdit,
			"%s only adds lines and has no context lines to say where: include a few unchanged lines around the change.", capital(where))}
	}
	n := src.LineCount()
	nl := make([]lines.Line, len(h.New))
	for j, c := range h.New {
		nl[j] = lines.Line{Content: c, Term: dominant}
	}
	if remainder(src) {
		// Before the empty rest: the new lines end with line breaks.
		last := max(n-1, 1)
		return Placed{Hunk: i, Splice: hashline.Splice{Start: n - 1, New: nl}, Start: last, End: last}, nil
	}
	if src.Line(n-1).Term != "" {
		return Placed{Hunk: i, Splice: hashline.Splice{Start: n, New: nl}, Start: n, End: n}, nil
	}
	// The last line has no line break: it gets one, the new last line not.
	l := src.Line(n - 1)
	l.Term = dominant
	nl[len(nl)-1].Term = ""
	return Placed{Hunk: i, Splice: hashline.Splice{Start: n - 1, Old: 1, New: append([]lines.Line{l}, nl...)}, Start: n, End: n}, nil
}

// lineOn says " from line N on" for a search that starts past line 1.
func lineOn(from int) string {
	if from == 0 {
		return ""
	}
	return fmt.Sprintf(" from line %d on", from+1)
}

// lineSpan says "line 4" or "lines 4-6".
func lineSpan(a, b int) string {
	if a == b {
		return fmt.Sprintf("line %d", a)
	}
	return fmt.Sprintf("lines %d-%d", a, b)
}

func capital(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// eolOnly places a hunk whose only change is the final newline: its lines
// must be the file's last lines.
func eolOnly(src hashline.Source, f File, i int, h Hunk, where, dominant string) (Placed, *Failure) {
	n, k := src.LineCount(), len(h.Old)
	if k > n {
		return Placed{}, &Failure{Hunk: i, Kind: editblock.KindNotFound, Err: result.Errorf(result.NoMatch, "%s changes the end of the file, but the file has only %d lines.", capital(where), n)}
	}
	for j, want := range h.Old {
		c := src.Line(n - k + j).Content
		if n-k+j == 0 {
			_, c = hashline.StripBOM(c)
		}
		if c != want {
			return Placed{}, &Failure{Hunk: i, Kind: editblock.KindNotFound, Err: result.Errorf(result.NoMatch, "%s changes the end of the file, but its lines are not the file's last lines.", capital(where))}
		}
	}
	p := Placed{Hunk: i, Splice: hashline.Splice{Start: n - 1}, Start: n - k + 1, End: n}
	fixNoEOL(src, &p, h, dominant)
	return p, nil
}

// hiddenSource is src with its first n lines hidden: each reads as a line
// no hunk line can equal or resemble (a NUL), so nothing matches there
// while line numbers stay the file's.
type hiddenSource struct {
	src hashline.Source
	n   int
}

func (h hiddenSource) LineCount() int { return h.src.LineCount() }
func (h hiddenSource) Line(i int) lines.Line {
	if i < h.n {
		return lines.Line{Content: "\x00", Term: "\n"}
	}
	return h.src.Line(i)
}
