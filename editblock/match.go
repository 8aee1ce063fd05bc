package editblock

import (
	"fmt"
	"iter"
	"strings"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
)

// Match is where a block applies and what it changes.
type Match struct {
	// Splice is what to change, in the file's 0-based line coordinates: the
	// lines between the anchor and any shared trailing lines, plus lines
	// whose terminator the byte rules of hashline.PlanEdits touch.
	Splice hashline.Splice
	// Plan is the one-splice plan (Plan.Splices == []Splice{Splice}), for
	// the apply path shared with hashline edits: Written is what the
	// ledger records as authored, Window the region to show.
	Plan hashline.Plan
	// Start and End are the 1-based inclusive lines of the file the EDIT
	// half matched (anchor, replaced lines and any trailing context): the
	// lines the model vouches for, which the guard checks. For a pure
	// insertion these are the anchor lines.
	Start, End int
	// NoOp says the block changes nothing (both halves are the same):
	// nothing to apply, not an error.
	NoOp bool
}

// Diagnostic kinds.
const (
	KindWhitespace = "whitespace_mismatch" // matches one place only when whitespace is ignored
	KindNear       = "near_match"          // no match; Line is the closest region
	KindNotFound   = "not_found"
	KindAmbiguous  = "ambiguous" // matches several places; Lines names them
	KindExists     = "exists"    // a create block (empty EDIT half) for a file that has lines
	KindInvalid    = "invalid"   // a block line holds a line terminator (a block not made by the Parser)
)

// Diagnostic says why a block does not apply, in words a model can act on.
type Diagnostic struct {
	Kind string
	// Line is the 1-based line of the closest match or of the first place
	// matched, 0 if none.
	Line int
	// Lines are the first lines of the places an ambiguous block matches
	// (at most maxListed); nil for other kinds.
	Lines   []int
	Message string
}

// ErrorKind maps the diagnosis to the agent-facing error kind of PROTOCOL
// section 5.
func (d *Diagnostic) ErrorKind() result.Kind {
	switch d.Kind {
	case KindAmbiguous:
		return result.AmbiguousMatch
	case KindExists:
		return result.Exists
	case KindInvalid:
		return result.InvalidEdit
	}
	return result.NoMatch
}

// Err returns the diagnosis as a result error.
func (d *Diagnostic) Err() *result.Error { return result.Errorf(d.ErrorKind(), "%s", d.Message) }

// maxListed is how many places an ambiguous diagnosis names.
const maxListed = 5

// MatchBlock finds where b applies in src and plans the change, or says why
// it does not apply; exactly one of the two results is meaningful (a failed
// match returns the zero Match).
//
// The EDIT half must match exactly one place, comparing line contents only
// (terminators never matter; whitespace inside lines does). That is the
// protocol's rule (the anchor, the lines both halves share, locates the
// edit and the old lines must follow it) made slightly kinder: an anchor
// that occurs twice is fine when the anchor and the old lines together occur
// once, since the place is then not in doubt. For a pure insertion the EDIT
// half is the anchor.
//
// The change keeps the anchor and any trailing lines both halves share
// untouched; it replaces the lines between with the new ones by the byte
// rules of hashline.PlanEdits: new lines take dominant ("" means "\n"), the
// last new line takes the last replaced line's terminator, a file without a
// final newline keeps that state. A byte-order mark at the start of src's
// line 1 is ignored for matching and kept in front of the file.
//
// Create blocks (empty EDIT half) match only an empty file. Cost: one pass
// over the lines comparing one line of the block by length first, O(n) with
// no allocation per line; diagnosing a failure takes another pass or two.
func MatchBlock(src hashline.Source, b Block, dominant string) (Match, *Diagnostic) {
	switch dominant {
	case "\n", "\r\n", "\r":
	default:
		dominant = "\n"
	}
	for _, half := range [][]string{b.Old, b.New} {
		for _, l := range half {
			if strings.ContainsAny(l, "\r\n") {
				return Match{}, &Diagnostic{Kind: KindInvalid, Message: fmt.Sprintf("A line of %s for %s, %q, holds a line break inside it (a lone carriage return ends a line, as editors read it): send it as lines of their own.", b.words().Ours, b.Path, l)}
			}
		}
	}
	v := newView(src)
	switch {
	case b.IsCreate():
		return matchCreate(v, b, dominant)
	case b.IsNoOp():
		return Match{NoOp: true}, nil
	}
	count, at := findExact(v, b.Old)
	switch {
	case count == 1:
		return planAt(v, b, at[0], dominant)
	case count > 1:
		return Match{}, ambiguous(b, count, at)
	}
	return Match{}, diagnose(v, b)
}

// view is a Source as the matcher reads it: line contents, the byte-order
// mark off line 1.
type view struct {
	src hashline.Source
	n   int
	bom bool
}

func newView(src hashline.Source) view {
	v := view{src: src, n: src.LineCount()}
	v.bom = v.n > 0 && strings.HasPrefix(src.Line(0).Content, hashline.BOM)
	return v
}

func (v view) at(i int) string {
	c := v.src.Line(i).Content
	if i == 0 && v.bom {
		c = c[len(hashline.BOM):]
	}
	return c
}

// lineSeq is a Source that walks its lines in O(1) each (*textdoc.Snapshot
// does; its Line is O(log n)).
type lineSeq interface {
	Lines(from, to int) iter.Seq2[int, lines.Line]
}

// each calls fn with every line's content in order until fn returns false.
func (v view) each(fn func(i int, c string) bool) {
	if ls, ok := v.src.(lineSeq); ok && v.n > 0 {
		for i, l := range ls.Lines(0, v.n) {
			c := l.Content
			if i == 0 && v.bom {
				c = c[len(hashline.BOM):]
			}
			if !fn(i, c) {
				return
			}
		}
		return
	}
	for i := range v.n {
		if !fn(i, v.at(i)) {
			return
		}
	}
}

// findExact counts the places where old occurs and returns the first
// maxListed of them (0-based first lines). It scans for old's longest line,
// the rarest in practice, and checks the others only there.
func findExact(v view, old []string) (int, []int) {
	key := 0
	for j, l := range old {
		if len(l) > len(old[key]) {
			key = j
		}
	}
	k, m := old[key], len(old)
	count := 0
	var at []int
	v.each(func(i int, c string) bool {
		if len(c) != len(k) || c != k {
			return true
		}
		p := i - key
		if p < 0 || p+m > v.n {
			return true
		}
		for j, l := range old {
			if j != key && v.at(p+j) != l {
				return true
			}
		}
		count++
		if len(at) < maxListed {
			at = append(at, p)
		}
		return true
	})
	return count, at
}

// planAt plans b at its only place p (0-based first line of the EDIT half).
func planAt(v view, b Block, p int, dominant string) (Match, *Diagnostic) {
	k := b.Anchor()
	s := 0 // trailing lines both halves share after the anchor
	for s < len(b.Old)-k && s < len(b.New)-k && b.Old[len(b.Old)-1-s] == b.New[len(b.New)-1-s] {
		s++
	}
	r, add := len(b.Old)-k-s, b.New[k:len(b.New)-s]
	first := p + k + 1 // 1-based first line after the anchor
	var op hashline.Op
	switch {
	case r > 0 && len(add) > 0:
		op = hashline.Op{Type: hashline.ReplaceRange, Start: first, End: first + r - 1, Content: add}
	case r > 0:
		op = hashline.Op{Type: hashline.DeleteRange, Start: first, End: first + r - 1}
	case k > 0:
		op = hashline.Op{Type: hashline.InsertAfter, Start: first - 1, End: first - 1, Content: add}
	default: // only shared trailing lines: the new ones go before them
		op = hashline.Op{Type: hashline.InsertBefore, Start: first, End: first, Content: add}
	}
	pl, err := hashline.PlanEdits(v.src, []hashline.Op{op}, hashline.Options{Dominant: dominant, BOM: v.bom})
	if err != nil || len(pl.Splices) != 1 {
		// Unreachable for a block that matched; kept so a bug cannot apply
		// half a plan.
		return Match{}, &Diagnostic{Kind: KindInvalid, Message: fmt.Sprintf("The edit block for %s could not be planned: %v", b.Path, err)}
	}
	return Match{Splice: pl.Splices[0], Plan: pl, Start: p + 1, End: p + len(b.Old)}, nil
}

// matchCreate handles an empty EDIT half: it fills an empty file.
func matchCreate(v view, b Block, dominant string) (Match, *Diagnostic) {
	if v.n > 0 {
		return Match{}, &Diagnostic{Kind: KindExists, Message: fmt.Sprintf(
			"%s already exists (%d lines), and a block with an empty EDIT half creates a file. To change it, put the lines to replace, with a few unchanged lines around them, in the EDIT half.",
			b.Path, v.n)}
	}
	if len(b.New) == 0 {
		return Match{NoOp: true}, nil
	}
	ls := make([]lines.Line, len(b.New))
	for i, c := range b.New {
		ls[i] = lines.Line{Content: c, Term: dominant}
	}
	sp := hashline.Splice{New: ls}
	n := len(ls)
	pl := hashline.Plan{
		Splices:  []hashline.Splice{sp},
		Written:  []hashline.LineRange{{Start: 1, End: n}},
		Window:   []hashline.LineRange{{Start: 1, End: n}},
		NewLines: n,
	}
	return Match{Splice: sp, Plan: pl}, nil
}

// ambiguous describes a block whose EDIT half matches count places.
func ambiguous(b Block, count int, at []int) *Diagnostic {
	d := &Diagnostic{Kind: KindAmbiguous, Line: at[0] + 1}
	for _, p := range at {
		d.Lines = append(d.Lines, p+1)
	}
	where := "lines " + listLines(d.Lines)
	if count > len(at) {
		where = fmt.Sprintf("%d places, first at lines %s", count, listLines(d.Lines))
	}
	var what string
	verb, it, so := "matches", "it", "it matches"
	w := b.words()
	switch {
	case b.Anchor() == len(b.Old) && len(b.Old) == 1 && b.Words == nil: // a pure insertion: the EDIT half is the anchor
		what = fmt.Sprintf("The anchor %s for %s", quote(b.Old[0]), b.Path)
	case b.Anchor() == len(b.Old) && len(b.Old) > 1:
		what = fmt.Sprintf("%s (%d lines starting %s)", w.Anchor, len(b.Old), quote(b.Old[0]))
	case len(b.Old) == 1:
		what = fmt.Sprintf(w.Line, quote(b.Old[0]))
	default:
		what = fmt.Sprintf("%s (%d lines starting %s)", w.Lines, len(b.Old), quote(b.Old[0]))
		verb, it, so = "match", "them", "they match"
	}
	d.Message = fmt.Sprintf("%s %s %s; add more unchanged lines before or after %s so %s one place.", what, verb, where, it, so)
	return d
}

// listLines formats 12 / 12 and 40 / 12, 40 and 77.
func listLines(ls []int) string {
	var b strings.Builder
	for i, l := range ls {
		switch {
		case i == 0:
		case i == len(ls)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprint(&b, l)
	}
	return b.String()
}

// quote shows a line in a message: in backticks, shortened; Go-quoted when
// backticks or control characters would garble it.
func quote(s string) string {
	const max = 80
	cut := false
	if len(s) > max {
		i := max - 3
		for i > 0 && s[i]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			i--
		}
		s, cut = s[:i], true
	}
	q := "`" + s + "`"
	if strings.ContainsAny(s, "`\t\x00\x1b") || s == "" || strings.TrimSpace(s) != s {
		q = fmt.Sprintf("%q", s)
	}
	if cut {
		q += "…"
	}
	return q
}
