package hashline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
)

// BOM is the UTF-8 byte-order mark.
const BOM = "\uFEFF"

// StripBOM splits a leading byte-order mark off s. Hashes and shown content
// of line 1 are of the line without it.
func StripBOM(s string) (bom, rest string) {
	if strings.HasPrefix(s, BOM) {
		return BOM, s[len(BOM):]
	}
	return "", s
}

// WindowContext is how many lines around each change Plan.Window shows
// (PROTOCOL section 6: the edited region ±5 lines).
const WindowContext = 5

// Source is the text a plan is made against: lines by the LSP rule, 0-based.
// *textdoc.Snapshot satisfies it.
type Source interface {
	LineCount() int
	Line(i int) lines.Line
}

// Splice says that the old lines [Start, Start+Old) (0-based, in the
// coordinates of the Source the plan was made from) become New. Old == 0 is a
// pure insertion before old line Start.
type Splice struct {
	Start, Old int
	New        []lines.Line
}

// LineRange is a 1-based inclusive range of lines, as agents see them.
type LineRange struct{ Start, End int }

// Options are the facts about the document that a plan needs besides its
// lines.
type Options struct {
	// Dominant is the terminator new lines take ("\n", "\r\n" or "\r"; ""
	// means "\n"): textdoc.Snapshot.Dominant of the document.
	Dominant string
	// BOM says that line 1 of the Source begins with a byte-order mark that
	// is not part of the line as agents see it (a disk file read raw). The
	// mark then stays at the start of the file whatever happens to line 1.
	// Leave it false when the Source has no mark (an editor buffer, or a
	// disk file whose mark the caller strips and passes to Render).
	BOM bool
}

// Plan is the outcome of a batch: what to change and what it touched.
type Plan struct {
	// Splices are ascending and separated by at least one untouched line
	// (touching ones are merged), all in the old coordinates.
	Splices []Splice
	// Targets are the lines the guard checks, 1-based in the old text: the
	// replaced and deleted lines and the anchor line of each insert,
	// ascending, merged.
	Targets []LineRange
	// Written are the lines whose content the edits wrote, 1-based in the
	// new text, ascending, merged: what the ledger records as authored.
	Written []LineRange
	// Window is each changed region ±WindowContext lines, 1-based in the new
	// text, ascending, merged: what the answer shows with fresh refs.
	Window []LineRange
	// OldLines and NewLines are the line counts before and after.
	OldLines, NewLines int
}

// PlanEdits turns a batch of resolved ops into splices of src, or refuses the
// whole batch: everything is validated before anything is produced, and a
// refused batch yields a zero Plan.
//
// Every op refers to the original numbering (the batch applies "bottom to
// top"), so all splices are in original coordinates. Ops must not overlap: two
// ops whose target lines intersect (replaced or deleted lines, and the anchor
// line of an insert, PROTOCOL section 4), or two inserts into the same gap
// between lines (insert_after k and insert_after k; insert_after k and
// insert_before k+1), are refused as result.Overlap naming both edits and the
// lines, because their order or meaning would be a guess. Adjacent ops are
// fine: insert_after 4 and replace_line 5 put the inserted lines before the
// replacement.
//
// Bytes: every line that no op names keeps its content and terminator byte
// for byte, except in the rare cases below where keeping them would change
// the line structure. New lines take opts.Dominant, except:
//   - replacing lines: the last new line takes the last replaced line's
//     terminator, so replacing the last line keeps the final-newline state;
//   - the final-newline state of the file is kept: inserting after the last
//     line of a file without a final newline gives that line opts.Dominant and
//     leaves the last inserted line without one; deleting the last lines of
//     such a file takes the terminator off the new last line. An empty last
//     line keeps (or takes) a terminator, though: without one it would be no
//     line at all, and the model asked for a line;
//   - with opts.BOM, the mark moves to whatever line becomes the first, and
//     is dropped when every line is deleted;
//   - a line ending in a bare "\r" followed by an empty line ending in "\n"
//     would read as one "\r\n" line break, losing a line. Where an edit makes
//     such neighbours, the new (or, failing that, the empty) line's terminator
//     becomes "\r\n".
//
// The lines whose bytes change only by these rules become part of the
// splices; they are not in Written. The new text's lines, split by the LSP
// rule, are exactly the plan's: Render's text has Plan.NewLines lines.
//
// Cost: O(ops × log(ops) + lines written), plus O(log n) per Source.Line call
// (a few per op); never O(file).
func PlanEdits(src Source, ops []Op, opts Options) (Plan, error) {
	dom := opts.Dominant
	switch dom {
	case "":
		dom = "\n"
	case "\n", "\r\n", "\r":
	default:
		return Plan{}, fmt.Errorf("hashline: bad dominant terminator %q", dom)
	}
	n := src.LineCount()
	for _, op := range ops {
		if err := checkOp(op, n); err != nil {
			return Plan{}, err
		}
	}
	if err := checkOverlap(ops); err != nil {
		return Plan{}, err
	}

	ws := make([]work, 0, len(ops))
	for _, op := range ops {
		ws = append(ws, opWork(src, op, dom))
	}
	slices.SortFunc(ws, func(a, b work) int {
		// At one start, an insertion (Old == 0) goes before the lines it
		// precedes.
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.old, b.old))
	})
	ws = mergeWorks(ws)
	if opts.BOM && n > 0 && strings.HasPrefix(src.Line(0).Content, BOM) {
		ws = fixBOM(src, ws)
	}
	ws = fixFinalNewline(src, ws, dom)
	ws = fixJoins(src, ws)

	splices := make([]Splice, len(ws))
	for i, w := range ws {
		splices[i] = Splice{Start: w.start, Old: w.old, New: w.new}
	}
	p := NewPlan(n, splices, targets(ops))
	p.Written = nil
	delta := 0
	for _, w := range ws {
		ns := w.start + delta
		for j, m := range w.model {
			if m {
				p.Written = addRange(p.Written, ns+j+1, ns+j+1)
			}
		}
		delta += len(w.new) - w.old
	}
	return p, nil
}

// NewPlan makes the plan of splices (ascending, non-overlapping, in the
// coordinates of a text of oldLines lines) with targets as the guard's lines:
// the line counts, the window, and every new line as Written. Planners other
// than PlanEdits (write modes, edit blocks, patches) build their plans with
// it, so every write answers the same questions the same way.
func NewPlan(oldLines int, splices []Splice, targets []LineRange) Plan {
	p := Plan{Splices: splices, Targets: targets, OldLines: oldLines, NewLines: oldLines}
	for _, sp := range splices {
		p.NewLines += len(sp.New) - sp.Old
	}
	for _, r := range p.Regions() {
		lo, hi := max(r.Start-1-WindowContext, 0), min(r.End+WindowContext, p.NewLines)
		if r.End >= r.Start {
			p.Written = addRange(p.Written, r.Start, r.End)
		}
		if lo < hi {
			p.Window = addRange(p.Window, lo+1, hi)
		}
	}
	return p
}

// Regions are the lines of the new text each splice wrote, 1-based, one per
// splice in order; a pure deletion is the empty range {k+1, k} after the
// line k it follows. Together with the line counts they say all of the new
// text that differs from the old.
func (p Plan) Regions() []LineRange {
	out := make([]LineRange, len(p.Splices))
	delta := 0
	for i, sp := range p.Splices {
		ns := sp.Start + delta
		out[i] = LineRange{ns + 1, ns + len(sp.New)}
		delta += len(sp.New) - sp.Old
	}
	return out
}

// Identity reports whether the plan changes nothing in src, the text it was
// made against: every splice writes back exactly the lines it replaces.
// O(lines spliced).
func (p Plan) Identity(src Source) bool {
	for _, sp := range p.Splices {
		if sp.Old != len(sp.New) {
			return false
		}
		for j, l := range sp.New {
			if src.Line(sp.Start+j) != l {
				return false
			}
		}
	}
	return true
}

// Span is the smallest range holding every window, or false when the plan
// leaves an empty text.
func (p Plan) Span() (LineRange, bool) {
	if len(p.Window) == 0 {
		return LineRange{}, false
	}
	return LineRange{p.Window[0].Start, p.Window[len(p.Window)-1].End}, true
}

// work is a splice being planned; model[j] says whether new[j] was written by
// an op (true) or carried along by a byte rule (false).
type work struct {
	start, old int
	new        []lines.Line
	model      []bool
}

func (w *work) end() int { return w.start + w.old }

// describe names an op for messages: "edits[3] (insert_after line 12)".
func describe(op Op) string {
	switch {
	case op.Type == InsertAfter || op.Type == InsertBefore:
		return fmt.Sprintf("edits[%d] (%s line %d)", op.Index, op.Type, op.Start)
	case op.Start == op.End:
		return fmt.Sprintf("edits[%d] (%s, line %d)", op.Index, op.Type, op.Start)
	}
	return fmt.Sprintf("edits[%d] (%s, lines %d-%d)", op.Index, op.Type, op.Start, op.End)
}

// checkOp validates an op against a document of n lines. Ops made by Edit.Op
// from resolved refs pass; this guards against callers building them by hand.
func checkOp(op Op, n int) error {
	sp, ok := specOf(op.Type)
	where := fmt.Sprintf("edits[%d] (%s)", op.Index, op.Type)
	switch {
	case !ok:
		return result.Errorf(result.InvalidEdit, "edits[%d]: unknown type %q (want one of %s)", op.Index, op.Type, typeList())
	case op.Start < 1 || op.End > n || op.Start > op.End:
		return result.Errorf(result.InvalidEdit, "%s: lines %d-%d are not within the document's lines 1-%d", where, op.Start, op.End, n)
	case !sp.isRange && op.Start != op.End:
		return result.Errorf(result.InvalidEdit, "%s: names one line, got lines %d-%d", where, op.Start, op.End)
	case sp.content && len(op.Content) == 0:
		return result.Errorf(result.InvalidEdit, "%s: no new lines (\"\" is one empty line; use a delete op to remove lines)", where)
	case !sp.content && op.Content != nil:
		return result.Errorf(result.InvalidEdit, "%s: takes no new content", where)
	case op.Terms != nil && len(op.Terms) != len(op.Content):
		return result.Errorf(result.InvalidEdit, "%s: %d line breaks for %d new lines", where, len(op.Terms), len(op.Content))
	}
	for _, t := range op.Terms {
		if t != "\n" && t != "\r\n" {
			return result.Errorf(result.InvalidEdit, "%s: a new line's line break is %q", where, t)
		}
	}
	for _, c := range op.Content {
		if strings.ContainsAny(c, "\r\n") {
			return result.Errorf(result.InvalidEdit, "%s: a content line holds a line terminator", where)
		}
	}
	return nil
}

// checkOverlap refuses a batch in which two ops target a common line or two
// inserts share a gap. O(k log k).
func checkOverlap(ops []Op) error {
	byStart := make([]int, len(ops)) // indexes into ops
	for i := range byStart {
		byStart[i] = i
	}
	slices.SortFunc(byStart, func(a, b int) int {
		return cmp.Or(cmp.Compare(ops[a].Start, ops[b].Start), cmp.Compare(ops[a].Index, ops[b].Index))
	})
	// Sorted by start, an op overlaps an earlier one exactly when it starts
	// at or before the furthest end seen so far.
	reach := -1 // index into ops of the op reaching furthest
	for _, i := range byStart {
		if reach >= 0 && ops[i].Start <= ops[reach].End {
			a, b := ops[reach], ops[i]
			if b.Index < a.Index {
				a, b = b, a
			}
			lo, hi := max(a.Start, b.Start), min(a.End, b.End)
			at := fmt.Sprintf("line %d", lo)
			if hi > lo {
				at = fmt.Sprintf("lines %d-%d", lo, hi)
			}
			return result.Errorf(result.Overlap,
				"%s and %s both target %s: each line may be named by one edit only. Combine them into one edit.",
				describe(a), describe(b), at)
		}
		if reach < 0 || ops[i].End > ops[reach].End {
			reach = i
		}
	}

	// Gap g is between old lines g and g+1 (1-based); g == 0 is before line 1.
	type ins struct{ gap, i int }
	var gaps []ins
	for i, op := range ops {
		switch op.Type {
		case InsertAfter:
			gaps = append(gaps, ins{op.Start, i})
		case InsertBefore:
			gaps = append(gaps, ins{op.Start - 1, i})
		}
	}
	slices.SortFunc(gaps, func(a, b ins) int {
		return cmp.Or(cmp.Compare(a.gap, b.gap), cmp.Compare(ops[a.i].Index, ops[b.i].Index))
	})
	for j := 1; j < len(gaps); j++ {
		if gaps[j].gap == gaps[j-1].gap {
			a, b := ops[gaps[j-1].i], ops[gaps[j].i]
			return result.Errorf(result.Overlap,
				"%s and %s both insert between lines %d and %d, so their order is ambiguous. Put the lines in one edit.",
				describe(a), describe(b), gaps[j].gap, gaps[j].gap+1)
		}
	}
	return nil
}

// opWork turns one op into a work, before the byte rules that look at
// neighbours.
func opWork(src Source, op Op, dom string) work {
	var w work
	switch op.Type {
	case ReplaceLine, ReplaceRange:
		w = work{start: op.Start - 1, old: op.End - op.Start + 1}
		w.new = newLines(op, dom)
		if last := src.Line(op.End - 1).Term; op.Terms == nil || last == "" {
			w.new[len(w.new)-1].Term = last
		}
	case DeleteLine, DeleteRange:
		w = work{start: op.Start - 1, old: op.End - op.Start + 1}
	case InsertAfter:
		w = work{start: op.Start, new: newLines(op, dom)}
	case InsertBefore:
		w = work{start: op.Start - 1, new: newLines(op, dom)}
	}
	w.model = make([]bool, len(w.new))
	for j := range w.model {
		w.model[j] = true
	}
	return w
}

func newLines(op Op, dom string) []lines.Line {
	ls := make([]lines.Line, len(op.Content))
	for j, c := range op.Content {
		ls[j] = lines.Line{Content: c, Term: dom}
		if op.Terms != nil {
			ls[j].Term = op.Terms[j]
		}
	}
	return ls
}

// mergeWorks joins sorted works that touch (one ends where the next starts),
// so every work has untouched neighbours and the byte rules can look at them
// through the Source.
func mergeWorks(ws []work) []work {
	if len(ws) < 2 {
		return ws
	}
	out := ws[:1]
	for _, w := range ws[1:] {
		last := &out[len(out)-1]
		if last.end() == w.start {
			last.old += w.old
			last.new = append(last.new, w.new...)
			last.model = append(last.model, w.model...)
			continue
		}
		out = append(out, w)
	}
	return out
}

// carry returns an old line taken into a work with new bytes.
func (w *work) carryFront(l lines.Line) {
	w.start--
	w.old++
	w.new = slices.Insert(w.new, 0, l)
	w.model = slices.Insert(w.model, 0, false)
}

func (w *work) carryBack(l lines.Line) {
	w.old++
	w.new = append(w.new, l)
	w.model = append(w.model, false)
}

// fixBOM keeps the byte-order mark in front of the new first line.
func fixBOM(src Source, ws []work) []work {
	if len(ws) == 0 || ws[0].start != 0 {
		return ws // line 1 is untouched and keeps its mark
	}
	w := &ws[0]
	n := src.LineCount()
	switch {
	case len(w.new) > 0:
		// Only op lines are in the work yet, so the mark is not doubled.
		w.new[0].Content = BOM + w.new[0].Content
		if w.old == 0 {
			// An insertion before line 1: the old line 1 gives up its mark.
			l := src.Line(0)
			_, l.Content = StripBOM(l.Content)
			w.carryBack(l)
		}
	case w.old < n:
		// The first lines are deleted: the first survivor takes the mark.
		l := src.Line(w.old)
		l.Content = BOM + l.Content
		w.carryBack(l)
	}
	// (Every line deleted: the mark goes too; a file holding only a mark
	// would show one empty line.)
	return mergeWorks(ws)
}

// fixFinalNewline keeps the final-newline state of a file that has none:
// only the works reaching the end of the file can change it.
func fixFinalNewline(src Source, ws []work, dom string) []work {
	n := src.LineCount()
	if n == 0 || len(ws) == 0 || ws[len(ws)-1].end() != n || src.Line(n-1).Term != "" {
		return ws
	}
	w := &ws[len(ws)-1]
	if len(w.new) == 0 {
		// Deleting the last lines: the new last line loses its terminator,
		// unless it is empty (it would vanish) or there is none.
		if w.start > 0 {
			if l := src.Line(w.start - 1); l.Content != "" {
				l.Term = ""
				w.carryFront(l)
			}
		}
		return mergeWorks(ws)
	}
	if w.old == 0 {
		// Inserting after the last line: it is no longer last and takes a
		// terminator.
		l := src.Line(n - 1)
		l.Term = dom
		w.carryFront(l)
	}
	// Only this work can hold the old last line, and the mark rule may have
	// carried it in ahead of other lines: every line but the last gets a
	// terminator.
	for j := range w.new[:len(w.new)-1] {
		if w.new[j].Term == "" {
			w.new[j].Term = dom
		}
	}
	last := &w.new[len(w.new)-1]
	if last.Content != "" {
		last.Term = ""
	} else if last.Term == "" {
		last.Term = dom
	}
	return mergeWorks(ws)
}

// joins reports whether a line ending in term followed by next would read as
// one "\r\n" line break.
func joins(term string, next lines.Line) bool {
	return term == "\r" && next.Content == "" && next.Term == "\n"
}

// fixJoins breaks every bare-"\r"-then-empty-"\n"-line pair that the works
// create (see PlanEdits). Works are merged and have untouched neighbours.
func fixJoins(src Source, ws []work) []work {
	n := src.LineCount()
	out := ws[:0]
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		for {
			if len(w.new) > 0 && w.start > 0 && joins(src.Line(w.start-1).Term, w.new[0]) {
				w.new[0].Term = "\r\n"
			}
			for j := 1; j < len(w.new); j++ {
				if joins(w.new[j-1].Term, w.new[j]) {
					w.new[j].Term = "\r\n"
				}
			}
			if w.end() >= n {
				break
			}
			next := src.Line(w.end())
			if len(w.new) > 0 {
				if last := &w.new[len(w.new)-1]; joins(last.Term, next) {
					last.Term = "\r\n"
				}
				break
			}
			// A deletion between two untouched lines: carry the empty one.
			if w.start == 0 || !joins(src.Line(w.start-1).Term, next) {
				break
			}
			next.Term = "\r\n"
			w.carryBack(next)
			if i+1 < len(ws) && ws[i+1].start == w.end() {
				i++
				w.old += ws[i].old
				w.new = append(w.new, ws[i].new...)
				w.model = append(w.model, ws[i].model...)
			}
			// Check the grown work again: it has new neighbours.
		}
		out = append(out, w)
	}
	return out
}

// targets returns the guard's lines of ops, merged.
func targets(ops []Op) []LineRange {
	rs := make([]LineRange, len(ops))
	for i, op := range ops {
		rs[i] = LineRange{op.Start, op.End}
	}
	slices.SortFunc(rs, func(a, b LineRange) int { return cmp.Compare(a.Start, b.Start) })
	var out []LineRange
	for _, r := range rs {
		out = addRange(out, r.Start, r.End)
	}
	return out
}

// addRange appends [lo, hi] to rs (ascending by start), merging it with the
// last range when they overlap or touch.
func addRange(rs []LineRange, lo, hi int) []LineRange {
	if k := len(rs); k > 0 && lo <= rs[k-1].End+1 {
		rs[k-1].End = max(rs[k-1].End, hi)
		return rs
	}
	return append(rs, LineRange{lo, hi})
}
