package hashline

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/textdoc"
)

// headerName is a diff header's name: quoted as git quotes it when it
// holds a character that would break the header's line (a control
// character, a line separator, bytes that are not UTF-8) or starts with a
// quote; patch readers unquote it.
func headerName(prefix, name string) string {
	if strings.HasPrefix(name, `"`) || !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(prefix + name)
	}
	return prefix + name
}

// UnifiedDiff returns the unified diff ("--- a/name", "+++ b/name", hunks)
// from src to src with splices applied, or "" when there are none. It is built
// from the splices themselves, with context lines read from src, so it costs
// O(splices × context + lines changed), not O(file). Hunks whose context
// touches are merged, as diff -u does. Lines are shown without their
// terminators; a last line without one is followed by "\ No newline at end
// of file", so a change of the final-newline state shows. A splice that only
// moves a terminator shows as the line removed and added unchanged.
func UnifiedDiff(name string, src Source, splices []Splice, context int) string {
	if len(splices) == 0 {
		return ""
	}
	context = max(context, 0)
	n := src.LineCount()
	var b strings.Builder
	b.WriteString("--- " + headerName("a/", name) + "\n+++ " + headerName("b/", name) + "\n")

	// The new text's last line is new iff the last splice reaches the end of
	// the file and adds lines; the old last line shows its own state.
	lastSp := splices[len(splices)-1]
	newLastIsNew := lastSp.Start+lastSp.Old == n && len(lastSp.New) > 0

	writeLine := func(prefix byte, content string, noEOL bool) {
		b.WriteByte(prefix)
		b.WriteString(content)
		b.WriteByte('\n')
		if noEOL {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
	context1 := func(i int) {
		l := src.Line(i)
		writeLine(' ', l.Content, i == n-1 && l.Term == "")
	}

	delta := 0 // new minus old line count before the current hunk
	for i := 0; i < len(splices); {
		// The hunk takes splices i..j-1.
		lo := max(splices[i].Start-context, 0)
		hi := min(splices[i].Start+splices[i].Old+context, n)
		hunkDelta := len(splices[i].New) - splices[i].Old
		j := i + 1
		for j < len(splices) && splices[j].Start-context <= hi {
			hi = min(splices[j].Start+splices[j].Old+context, n)
			hunkDelta += len(splices[j].New) - splices[j].Old
			j++
		}
		b.WriteString("@@ -" + hunkRange(lo, hi-lo) + " +" + hunkRange(lo+delta, hi-lo+hunkDelta) + " @@\n")
		pos := lo
		for k := i; k < j; k++ {
			s := splices[k]
			for ; pos < s.Start; pos++ {
				context1(pos)
			}
			for o := s.Start; o < s.Start+s.Old; o++ {
				l := src.Line(o)
				writeLine('-', l.Content, o == n-1 && l.Term == "")
			}
			for m, l := range s.New {
				writeLine('+', l.Content, k == len(splices)-1 && newLastIsNew && m == len(s.New)-1 && l.Term == "")
			}
			pos = s.Start + s.Old
		}
		for ; pos < hi; pos++ {
			context1(pos)
		}
		delta += hunkDelta
		i = j
	}
	return b.String()
}

// hunkRange formats one side of a hunk header from a 0-based start and a
// count: "l,s" with 1-based l, "l" alone when s is 1, and for an empty side
// the line before it ("0,0" at the top), as diff -u does.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

// Changes returns the plan as edits of s, the snapshot it was planned
// against: one textdoc.Change per splice, ascending, non-overlapping, with
// ranges in line/character units of enc, all in the coordinates of s, as the
// edits of one LSP TextDocumentEdit are. (Snapshot.Apply applies changes one
// after the other, as didChange does: feed it these in reverse order, or use
// Plan.Apply.)
//
// A splice reaching the end of a document without a final newline ends at
// the end of the last line's content, a position every client accepts,
// rather than at (LineCount, 0).
func (p Plan) Changes(s *textdoc.Snapshot, enc textdoc.Encoding) []textdoc.Change {
	n := s.LineCount()
	out := make([]textdoc.Change, len(p.Splices))
	for i, sp := range p.Splices {
		end := textdoc.Pos{Line: uint32(sp.Start + sp.Old)}
		if sp.Start+sp.Old == n && n > 0 {
			if last := s.Line(n - 1); last.Term == "" {
				end = s.Pos(n-1, len(last.Content), enc)
			}
		}
		size := 0
		for _, l := range sp.New {
			size += l.Len()
		}
		var b strings.Builder
		b.Grow(size)
		for _, l := range sp.New {
			b.WriteString(l.Content)
			b.WriteString(l.Term)
		}
		out[i] = textdoc.Change{
			Range: &textdoc.Range{Start: textdoc.Pos{Line: uint32(sp.Start)}, End: end},
			Text:  b.String(),
		}
	}
	return out
}

// Apply applies the plan to s, the snapshot it was planned against, through
// Snapshot.Apply (bottom to top, so each change's positions still hold), and
// returns the new snapshot and the LineChanges, each relative to the text
// before it (the last splice's first).
func (p Plan) Apply(s *textdoc.Snapshot) (*textdoc.Snapshot, []textdoc.LineChange, error) {
	cs := p.Changes(s, textdoc.UTF8)
	slices.Reverse(cs)
	return s.Apply(cs, textdoc.UTF8)
}

// ByteSplice replaces Del bytes at Off with Ins.
type ByteSplice struct {
	Off, Del int
	Ins      string
}

// ByteSplices returns the plan as byte splices of s, the snapshot it was
// planned against, ascending: Changes in bytes (what a history keeps of a
// write). ok is false if a change does not map to s.
func (p Plan) ByteSplices(s *textdoc.Snapshot) (out []ByteSplice, ok bool) {
	for _, c := range p.Changes(s, textdoc.UTF8) {
		from, err := s.Offset(c.Range.Start, textdoc.UTF8)
		if err != nil {
			return nil, false
		}
		to, err := s.Offset(c.Range.End, textdoc.UTF8)
		if err != nil || to < from {
			return nil, false
		}
		out = append(out, ByteSplice{Off: from, Del: to - from, Ins: c.Text})
	}
	return out, true
}

// compile-time check: snapshots are Sources.
var _ Source = (*textdoc.Snapshot)(nil)

// linesSource is a Source over a line list, for callers holding plain text.
type linesSource []lines.Line

func (ls linesSource) LineCount() int        { return len(ls) }
func (ls linesSource) Line(i int) lines.Line { return ls[i] }

// TextSource returns a Source over text, split by the LSP rule (O(len(text))).
func TextSource(text string) Source { return linesSource(lines.Split(text)) }
