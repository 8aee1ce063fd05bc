package hashline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/textdoc"
)

// The reference model: the edit semantics written over whole line lists, the
// simple way (walk every old line, emit what the ops say, then apply the byte
// rules to the whole list), sharing no code with the planner.

type refLine struct {
	l     lines.Line
	model bool // written by an op
	orig  int  // old 0-based index, -1 for op lines
}

// refResult is what the model predicts for a valid batch.
type refResult struct {
	text    string
	out     []refLine
	touched []bool
}

func refEdit(text string, bomOpt bool, dom string, ops []Op) refResult {
	old := lines.Split(text)
	n := len(old)
	hasBOM := bomOpt && n > 0 && strings.HasPrefix(old[0].Content, "\uFEFF")
	orig := func(i int) lines.Line {
		l := old[i]
		if hasBOM && i == 0 {
			l.Content = strings.TrimPrefix(l.Content, "\uFEFF")
		}
		return l
	}
	ins := map[int][]string{} // before old line g (g == n: at the end)
	repl := map[int]Op{}
	covered := make([]bool, n)
	for _, op := range ops {
		switch op.Type {
		case InsertAfter:
			ins[op.Start] = op.Content
		case InsertBefore:
			ins[op.Start-1] = op.Content
		case ReplaceLine, ReplaceRange:
			repl[op.Start-1] = op
			fallthrough
		default:
			for i := op.Start - 1; i < op.End; i++ {
				covered[i] = true
			}
		}
	}
	var out []refLine
	emit := func(g int) {
		for _, c := range ins[g] {
			out = append(out, refLine{lines.Line{Content: c, Term: dom}, true, -1})
		}
	}
	for i := range n {
		emit(i)
		if op, ok := repl[i]; ok {
			for j, c := range op.Content {
				t := dom
				if j == len(op.Content)-1 {
					t = old[op.End-1].Term
				}
				out = append(out, refLine{lines.Line{Content: c, Term: t}, true, -1})
			}
		}
		if !covered[i] {
			out = append(out, refLine{orig(i), false, i})
		}
	}
	emit(n)

	// The mark goes in front of the first line.
	if hasBOM && len(out) > 0 {
		out[0].l.Content = "\uFEFF" + out[0].l.Content
	}
	// Final newline: kept absent, except that an empty last line keeps one,
	// and no line but the last goes without.
	if n > 0 && old[n-1].Term == "" && len(out) > 0 {
		for k := range out[:len(out)-1] {
			if out[k].l.Term == "" {
				out[k].l.Term = dom
			}
		}
		last := &out[len(out)-1].l
		if last.Content != "" {
			last.Term = ""
		} else if last.Term == "" {
			last.Term = dom
		}
	}
	touched := make([]bool, len(out))
	for k, r := range out {
		touched[k] = r.model || r.l != old[r.orig]
	}
	// A bare CR then an empty LF line: one of them takes CRLF, the later
	// one unless only the earlier was touched.
	for k := 0; k+1 < len(out); k++ {
		if out[k].l.Term == "\r" && out[k+1].l.Content == "" && out[k+1].l.Term == "\n" {
			if !touched[k+1] && touched[k] {
				out[k].l.Term = "\r\n"
			} else {
				out[k+1].l.Term = "\r\n"
				touched[k+1] = true
			}
		}
	}
	var b strings.Builder
	for _, r := range out {
		b.WriteString(r.l.Content + r.l.Term)
	}
	return refResult{b.String(), out, touched}
}

// refOverlap is the overlap rule, pairwise.
func refOverlap(ops []Op) bool {
	gap := func(op Op) int {
		switch op.Type {
		case InsertAfter:
			return op.Start
		case InsertBefore:
			return op.Start - 1
		}
		return -1
	}
	for i := range ops {
		for j := i + 1; j < len(ops); j++ {
			a, b := ops[i], ops[j]
			if max(a.Start, b.Start) <= min(a.End, b.End) {
				return true
			}
			if ga, gb := gap(a), gap(b); ga >= 0 && ga == gb {
				return true
			}
		}
	}
	return false
}

// checkPlan verifies a successful plan of ops on text against the reference
// model and the plan's own invariants; it returns a description of the first
// failure.
func checkPlan(text string, opts Options, ops []Op, p Plan) error {
	dom := opts.Dominant
	if dom == "" {
		dom = "\n"
	}
	snap := textdoc.New(text)
	got := Render(snap, "", p.Splices)
	ref := refEdit(text, opts.BOM, dom, ops)
	if got != ref.text {
		return fmt.Errorf("Render = %q, reference %q", got, ref.text)
	}
	// The same through a plain line list (the slow path of Render).
	if slow := Render(TextSource(text), "", p.Splices); slow != got {
		return fmt.Errorf("Render over a line list = %q, over a snapshot %q", slow, got)
	}
	// The new text splits into exactly the plan's lines.
	split := lines.Split(got)
	if len(split) != p.NewLines || len(split) != len(ref.out) {
		return fmt.Errorf("new text has %d lines, plan says %d, reference %d", len(split), p.NewLines, len(ref.out))
	}
	for k, l := range split {
		if l != ref.out[k].l {
			return fmt.Errorf("new line %d = %q, reference %q", k, l, ref.out[k].l)
		}
	}
	// Splices: ascending, separated by an untouched line, within the text.
	end := -1
	for _, s := range p.Splices {
		if s.Start <= end || s.Old < 0 || s.Start+s.Old > p.OldLines || s.Old == 0 && len(s.New) == 0 {
			return fmt.Errorf("bad splices %+v", p.Splices)
		}
		end = s.Start + s.Old
	}
	// NewLine: untouched old lines map to their place, the others to none.
	maps := map[int]int{}
	for k, r := range ref.out {
		if r.orig >= 0 && !ref.touched[k] {
			maps[r.orig] = k
		}
	}
	for i := range p.OldLines {
		k, ok := NewLine(i, p.Splices)
		want, wantOK := maps[i]
		if ok != wantOK || ok && k != want {
			return fmt.Errorf("NewLine(%d) = %d,%v, want %d,%v", i, k, ok, want, wantOK)
		}
	}
	// Written: exactly the op lines.
	var written []LineRange
	for k, r := range ref.out {
		if r.model {
			written = addRange(written, k+1, k+1)
		}
	}
	if !slices.Equal(written, p.Written) {
		return fmt.Errorf("Written = %v, want %v", p.Written, written)
	}
	// Window: inside the text, covering every written line.
	for _, w := range p.Window {
		if w.Start < 1 || w.End > p.NewLines || w.Start > w.End {
			return fmt.Errorf("Window %v outside 1-%d", p.Window, p.NewLines)
		}
	}
	for _, r := range written {
		if !covered(p.Window, r.Start) || !covered(p.Window, r.End) {
			return fmt.Errorf("Window %v misses written %v", p.Window, r)
		}
	}
	// Targets: the ops' lines.
	var tg []LineRange
	sorted := slices.Clone(ops)
	slices.SortFunc(sorted, func(a, b Op) int { return a.Start - b.Start })
	for _, op := range sorted {
		tg = addRange(tg, op.Start, op.End)
	}
	if !slices.Equal(tg, p.Targets) {
		return fmt.Errorf("Targets = %v, want %v", p.Targets, tg)
	}
	// Changes through the snapshot, in every encoding, give the same text.
	for _, enc := range []textdoc.Encoding{textdoc.UTF16, textdoc.UTF8, textdoc.UTF32} {
		cs := p.Changes(snap, enc)
		slices.Reverse(cs)
		next, _, err := snap.Apply(cs, enc)
		if err != nil {
			return fmt.Errorf("Apply(%v): %v", enc, err)
		}
		if next.Text() != got {
			return fmt.Errorf("Changes(%v) applied = %q, Render %q", enc, next.Text(), got)
		}
		if next.LineCount() != p.NewLines {
			return fmt.Errorf("Changes(%v) applied: %d lines, plan %d", enc, next.LineCount(), p.NewLines)
		}
	}
	next, _, err := p.Apply(snap)
	if err != nil || next.Text() != got {
		return fmt.Errorf("Plan.Apply = %v, %v", next, err)
	}
	if snap.Text() != text {
		return fmt.Errorf("the old snapshot changed")
	}
	return nil
}

func covered(rs []LineRange, line int) bool {
	for _, r := range rs {
		if r.Start <= line && line <= r.End {
			return true
		}
	}
	return false
}

// NewLine maps the old 0-based line old to its 0-based line in the new text.
// It reports false when the line is part of a splice: replaced, deleted, or
// rewritten by a byte rule (a terminator or the mark moved). O(len(splices)).
func NewLine(old int, splices []Splice) (int, bool) {
	delta := 0
	for _, s := range splices {
		if old < s.Start {
			break
		}
		if old < s.Start+s.Old {
			return 0, false
		}
		delta += len(s.New) - s.Old
	}
	return old + delta, true
}
