// Package textdoc holds immutable document snapshots with a line index, and
// the project's one position mapper between LSP positions (UTF-16, UTF-8 or
// UTF-32 units) and lines/byte columns. Lines follow the LSP rule of package
// lines. It has no LSP types, so the CLI, the server and the engines share it.
//
// A Snapshot is never modified: Apply returns a new one that shares all
// untouched parts of the line index with the old, so a small change costs
// O(size of change + log n) and old versions stay valid for concurrent readers.
package textdoc

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/sightline-lsp/sightline/linediff"
	"github.com/sightline-lsp/sightline/lines"
)

// ErrBadPosition is wrapped by the errors for positions past the end of the
// document and for ranges whose end lies before their start.
var ErrBadPosition = errors.New("bad position")

// Pos is a 0-based LSP-style position; Char counts in the Encoding of the call.
type Pos struct{ Line, Char uint32 }

// Range is an LSP-style range, End exclusive.
type Range struct{ Start, End Pos }

// Change is one entry of an LSP didChange: Range == nil replaces the whole
// document (full sync).
type Change struct {
	Range *Range
	Text  string
}

// LineChange says that old lines [Start, Start+Old) were replaced by new lines
// [Start, Start+New) (0-based). It is minimised: lines equal (content and
// terminator) at both ends of the affected region are left out, so typing on
// line 10 gives {10, 1, 1}, and a change that changes nothing gives none.
type LineChange struct{ Start, Old, New int }

// Snapshot is one immutable version of a document. All methods are safe for
// concurrent use.
type Snapshot struct {
	root *node // nil for the empty document
	sh   shape
	text atomic.Pointer[string] // whole text, built on first use
	// owned estimates the bytes this snapshot added over the one it was
	// made from (all of them for New): what keeping it costs while that one
	// is kept too.
	owned int
	// aliased: the leaves alias the cached text (New, a rebuild), so
	// forgetting it frees nothing.
	aliased bool
	// origin is the text New built the first snapshot of this line from,
	// which the leaves it has not changed still alias ("" for NewOwned):
	// WriteTo hands on runs of those leaves as they lie in it, uncopied.
	origin string
}

// MaxLen is the largest document in bytes: the line index keeps offsets in
// uint32. New panics beyond it; Apply fails a change that could exceed it.
const MaxLen int64 = math.MaxUint32

// Owned estimates the bytes of memory this snapshot holds beyond the
// snapshot it was derived from (for New, its whole text and line index): the
// cost of keeping it as an earlier revision. For a change it counts the text
// and the nodes the change copied: a leaf (its lines' text and 4 bytes a
// line) and one node per level.
func (s *Snapshot) Owned() int { return s.owned }

// New returns a snapshot of text. It costs O(len(text)); the lines alias text,
// and the index adds about 8 bytes a line. It panics when text is longer
// than MaxLen.
func New(text string) *Snapshot { return newShaped(text, defaultShape()) }

func newShaped(text string, sh shape) *Snapshot { return newText(text, sh, false) }

// NewOwned is New for a document that will live long and change: every leaf
// holds its own copy of its lines (one more pass over the text), so once
// changes have replaced some leaves, the rest do not keep the whole
// original text alive. Editor buffers are built this way; a document read
// for one call is built by New.
func NewOwned(text string) *Snapshot { return newText(text, defaultShape(), true) }

// newText makes a snapshot of text, its leaves aliasing text or, when own,
// each a copy of its part.
func newText(text string, sh shape, own bool) *Snapshot {
	if int64(len(text)) > MaxLen {
		panic(fmt.Sprintf("textdoc: a document of %d bytes is over MaxLen", len(text)))
	}
	return newFromRun(run{text, lines.AppendEnds(nil, text)}, sh, own)
}

// newFromRun makes a snapshot of the lines of r, which it keeps, or copies
// leaf by leaf when own.
func newFromRun(r run, sh shape, own bool) *Snapshot {
	u := update{sh: sh, own: own}
	root := u.build(r)
	if own {
		// The copies are what it holds; the text, not cached, can go.
		return &Snapshot{root: root, sh: sh, owned: len(r.text) + u.bytes}
	}
	s := &Snapshot{root: root, sh: sh, owned: len(r.text) + u.bytes, aliased: true, origin: r.text}
	s.text.Store(&r.text)
	return s
}

// LineCount returns the number of lines by the LSP rule: "a\nb\n" and "a\nb"
// have 2, "" has 0.
func (s *Snapshot) LineCount() int {
	if s.root == nil {
		return 0
	}
	return s.root.nLines
}

// Len returns the document's length in bytes.
func (s *Snapshot) Len() int {
	if s.root == nil {
		return 0
	}
	return s.root.nBytes
}

// Line returns line i (0-based) in O(log n). Like a slice index, it panics
// when i is outside [0, LineCount()): callers check LineCount first.
func (s *Snapshot) Line(i int) lines.Line {
	s.checkLine(i, s.LineCount()-1)
	return s.root.line(i)
}

// LineStart returns the byte offset at which line i starts; i == LineCount()
// gives Len(). It panics when i is outside [0, LineCount()].
func (s *Snapshot) LineStart(i int) int {
	s.checkLine(i, s.LineCount())
	if s.root == nil {
		return 0
	}
	return s.root.lineStart(i)
}

func (s *Snapshot) checkLine(i, last int) {
	if i < 0 || i > last {
		panic(fmt.Sprintf("textdoc: line %d out of range [0,%d]", i, last))
	}
}

// EndsWithTerm reports whether the last line has a terminator, i.e. whether
// an editor shows an empty line after the last counted one.
func (s *Snapshot) EndsWithTerm() bool {
	n := s.LineCount()
	return n > 0 && s.root.line(n-1).Term != ""
}

// Text returns the whole text. The first call on a snapshot made by Apply
// costs O(n); the result is cached.
func (s *Snapshot) Text() string {
	if p := s.text.Load(); p != nil {
		return *p
	}
	var b strings.Builder // one allocation, no copy to a string
	b.Grow(s.Len())
	if s.root != nil {
		s.root.walk(0, s.root.nLines, func(lf *node, from, to int) bool {
			b.WriteString(lf.bytes(from, to))
			return true
		})
	}
	t := b.String()
	s.text.Store(&t) // a racing caller stores an equal string: harmless
	return t
}

// ReleaseText forgets the cached whole text (built by Text), so a snapshot
// kept as an earlier revision costs its lines only; Text rebuilds it if it is
// asked for again.
func (s *Snapshot) ReleaseText() {
	if !s.aliased {
		s.text.Store(nil)
	}
}

// AppendText appends lines [from, to) with their terminators to dst. It
// panics unless 0 <= from <= to <= LineCount().
func (s *Snapshot) AppendText(dst []byte, from, to int) []byte {
	s.checkRange(from, to)
	if from == to {
		return dst
	}
	s.root.walk(from, to, func(lf *node, from, to int) bool {
		dst = append(dst, lf.bytes(from, to)...)
		return true
	})
	return dst
}

// writeChunk is the most WriteTo hands a writer at once: leaves are
// gathered into writes of this size (a leaf alone is about a kilobyte, too
// small a write for a file), and no more of the text is copied at a time.
const writeChunk = 256 << 10

// Equal reports whether the snapshot's text is text, without building it:
// a snapshot made by edits holds its text in pieces, and Text would keep a
// whole copy of it.
func (s *Snapshot) Equal(text string) bool {
	if s.Len() != len(text) {
		return false
	}
	if p := s.text.Load(); p != nil {
		return *p == text
	}
	if s.root == nil {
		return true // both empty
	}
	off, same := 0, true
	s.root.walk(0, s.root.nLines, func(lf *node, from, to int) bool {
		b := lf.bytes(from, to)
		same = text[off:off+len(b)] == b
		off += len(b)
		return same
	})
	return same
}

// WriteTo writes the whole text to w in chunks of whole leaves, without
// building it: the one way a snapshot is streamed (to a file, a hash, a
// comparison). Leaves that lie side by side in the text New read (all of a
// file read from disk, all but the changed ones after an edit) are handed
// on as they lie, uncopied; the others are gathered into a buffer. It
// implements io.WriterTo.
func (s *Snapshot) WriteTo(w io.Writer) (int64, error) {
	if s.root == nil {
		return 0, nil
	}
	var written int64
	var err error
	var buf []byte
	emit := func(p []byte) bool {
		var n int
		n, err = w.Write(p)
		written += int64(n)
		return err == nil
	}
	flush := func() bool {
		if len(buf) == 0 {
			return true
		}
		ok := emit(buf)
		buf = buf[:0]
		return ok
	}
	// The buffer grows with what is gathered (doubling from 4 KB, up to a
	// chunk): after an edit, that is the changed leaves and the short runs
	// beside them, not a chunk.
	gather := func(b string) bool {
		if len(buf)+len(b) > writeChunk && !flush() {
			return false
		}
		if need := len(buf) + len(b); need > cap(buf) {
			grown := make([]byte, len(buf), max(min(max(2*cap(buf), 4<<10), writeChunk), need))
			copy(grown, buf)
			buf = grown
		}
		buf = append(buf, b...)
		return true
	}
	// run is the part of origin the last leaves lay in, [from, to).
	origin, base := s.origin, uintptr(unsafe.Pointer(unsafe.StringData(s.origin)))
	from, to := 0, 0
	passRun := func() bool {
		r := origin[from:to]
		from, to = 0, 0
		if len(r) < writeChunk/4 {
			return gather(r)
		}
		if !flush() {
			return false
		}
		for len(r) > 0 {
			n := min(len(r), writeChunk)
			if !emit(unsafe.Slice(unsafe.StringData(r), n)) {
				return false
			}
			r = r[n:]
		}
		return true
	}
	s.root.walk(0, s.root.nLines, func(lf *node, lo, hi int) bool {
		b := lf.bytes(lo, hi)
		if p := uintptr(unsafe.Pointer(unsafe.StringData(b))); len(b) > 0 && len(b) <= len(origin) && p >= base && p-base <= uintptr(len(origin)-len(b)) {
			off := int(p - base)
			if off == to && to > from {
				to += len(b)
				return true
			}
			if to > from && !passRun() {
				return false
			}
			from, to = off, off+len(b)
			return true
		}
		if to > from && !passRun() {
			return false
		}
		return gather(b)
	})
	if err == nil && to > from {
		passRun()
	}
	if err == nil {
		flush()
	}
	return written, err
}

// Lines iterates over lines [from, to) with their 0-based indexes, O(log n)
// to start and O(1) per line. It panics unless 0 <= from <= to <= LineCount().
func (s *Snapshot) Lines(from, to int) iter.Seq2[int, lines.Line] {
	s.checkRange(from, to)
	return func(yield func(int, lines.Line) bool) {
		if from == to {
			return
		}
		i := from
		s.root.walk(from, to, func(lf *node, from, to int) bool {
			for k := from; k < to; k++ {
				if !yield(i, lf.at(k)) {
					return false
				}
				i++
			}
			return true
		})
	}
}

func (s *Snapshot) checkRange(from, to int) {
	if from < 0 || from > to || to > s.LineCount() {
		panic(fmt.Sprintf("textdoc: line range [%d,%d) out of range [0,%d]", from, to, s.LineCount()))
	}
}

// LineCol maps an LSP position to a line and a byte column in that line's
// content. A Char past the end of the line clamps to the end of its content
// (the LSP rule); a Char inside a character rounds down to its start.
// Line == LineCount() is the end of the document and gives (LineCount(), 0);
// a larger Line is an error wrapping ErrBadPosition.
func (s *Snapshot) LineCol(p Pos, enc Encoding) (line, byteCol int, err error) {
	if !enc.Valid() {
		return 0, 0, fmt.Errorf("textdoc: invalid %v", enc)
	}
	n := s.LineCount()
	if int64(p.Line) > int64(n) {
		return 0, 0, fmt.Errorf("%w: line %d is past the end of the document (%d lines)", ErrBadPosition, p.Line, n)
	}
	if int(p.Line) == n {
		return n, 0, nil
	}
	return int(p.Line), ByteCol(s.root.line(int(p.Line)).Content, p.Char, enc), nil
}

// Pos maps a line and a byte column to an LSP position. It never fails: line
// clamps to [0, LineCount()], byteCol to the line's content (0 on line
// LineCount()), and a byteCol inside a character rounds down to its start.
// It panics on an invalid Encoding.
func (s *Snapshot) Pos(line, byteCol int, enc Encoding) Pos {
	n := s.LineCount()
	line = min(max(line, 0), n)
	if line == n {
		return Pos{Line: uint32(n)}
	}
	content := s.root.line(line).Content
	b := runeStart(content, min(max(byteCol, 0), len(content)))
	return Pos{Line: uint32(line), Char: CharCount(content[:b], enc)}
}

// Offset maps an LSP position to a byte offset in the document, with the
// rules of LineCol.
func (s *Snapshot) Offset(p Pos, enc Encoding) (int, error) {
	line, col, err := s.LineCol(p, enc)
	if err != nil {
		return 0, err
	}
	return s.LineStart(line) + col, nil
}

// PosAt maps a byte offset to an LSP position. The offset clamps to
// [0, Len()]; an offset inside a line terminator maps to the end of the line's
// content, and Len() to the end of the last line (or to (LineCount(), 0) when
// the document ends with a terminator).
func (s *Snapshot) PosAt(offset int, enc Encoding) Pos {
	if offset >= s.Len() {
		n := s.LineCount()
		if n == 0 || s.EndsWithTerm() {
			return Pos{Line: uint32(n)}
		}
		return s.Pos(n-1, s.Len(), enc)
	}
	line, col := s.root.lineAt(max(offset, 0))
	return s.Pos(line, col, enc)
}

// Apply applies changes in order, each to the text left by the ones before,
// as LSP didChange does, and returns the new snapshot with the LineChanges
// that turn the old lines into the new, in order, each relative to the text
// the ones before it left: one per incremental change that changed something,
// and one per hunk of the line diff for a full-text change. A
// position past the end of the document clamps to the end, as VS Code does.
// A range whose end lies before its start fails the whole call (wrapping
// ErrBadPosition) and leaves nothing changed. When nothing changes, Apply
// returns s itself.
func (s *Snapshot) Apply(changes []Change, enc Encoding) (*Snapshot, []LineChange, error) {
	if !enc.Valid() {
		return nil, nil, fmt.Errorf("textdoc: invalid %v", enc)
	}
	cur := s
	var out []LineChange
	owned := 0
	for i, c := range changes {
		next, lcs, err := cur.applyOne(c, enc)
		if err != nil {
			return nil, nil, fmt.Errorf("textdoc: change %d: %w", i, err)
		}
		out = append(out, lcs...)
		if next != cur {
			owned += next.owned
		}
		cur = next
	}
	if cur != s {
		cur.owned = owned
	}
	return cur, out, nil
}

func (s *Snapshot) applyOne(c Change, enc Encoding) (*Snapshot, []LineChange, error) {
	if c.Range == nil {
		if int64(len(c.Text)) > MaxLen {
			return nil, nil, fmt.Errorf("a text of %d bytes is over MaxLen", len(c.Text))
		}
		return s.replaceAll(c.Text)
	}
	if int64(s.Len())+int64(len(c.Text)) > MaxLen {
		return nil, nil, fmt.Errorf("%d bytes inserted into %d could be over MaxLen", len(c.Text), s.Len())
	}
	sl, sc := s.clampedLineCol(c.Range.Start, enc)
	el, ec := s.clampedLineCol(c.Range.End, enc)
	if el < sl || el == sl && ec < sc {
		return nil, nil, fmt.Errorf("%w: range end %d:%d before start %d:%d",
			ErrBadPosition, c.Range.End.Line, c.Range.End.Char, c.Range.Start.Line, c.Range.Start.Char)
	}
	// The affected region is lines [rs, re): its new text is the start line's
	// prefix, the change text, and the end line's suffix with its terminator,
	// re-split by the line rule.
	n := s.LineCount()
	rs, re := sl, n
	var prefix, suffix, term string
	if sl < n {
		prefix = s.root.line(sl).Content[:sc]
	}
	if el < n {
		l := s.root.line(el)
		suffix, term, re = l.Content[ec:], l.Term, el+1
	}
	region := prefix + c.Text + suffix + term
	// A bare "\r" ending the line before the region and a "\n" starting it
	// become one CRLF: re-split that line with the region. (The region's end
	// needs no such care: it keeps the old terminator of its last line, or
	// reaches the end of the document.)
	if rs > 0 && strings.HasPrefix(region, "\n") {
		if prev := s.root.line(rs - 1); prev.Term == "\r" {
			region = prev.Content + prev.Term + region
			rs--
		}
	}
	// A change that starts at the beginning of a line puts what it inserts
	// before that line: trim identical lines off the end first, so a line
	// inserted above its own duplicate ("}" above "}") is the new one, and the
	// old line keeps its identity (the ledger's ranges and refs follow it).
	next, lc, changed := s.replaceLines(rs, re, run{region, lines.AppendEnds(nil, region)}, sc == 0 && rs == sl)
	if !changed {
		return s, nil, nil
	}
	return next, []LineChange{lc}, nil
}

// clampedLineCol is LineCol for Apply: positions past the end clamp to the end
// of the document, and the end of a document without a final terminator is
// expressed as the end of its last line, so an insertion there extends that
// line instead of starting a new one.
func (s *Snapshot) clampedLineCol(p Pos, enc Encoding) (int, int) {
	n := s.LineCount()
	if int64(p.Line) >= int64(n) {
		if n > 0 {
			if l := s.root.line(n - 1); l.Term == "" {
				return n - 1, len(l.Content)
			}
		}
		return n, 0
	}
	return int(p.Line), ByteCol(s.root.line(int(p.Line)).Content, p.Char, enc)
}

// replaceLines replaces lines [rs, re) with the lines of repl (which it may
// keep), after trimming the lines that did not change off both ends (the end
// first when suffixFirst).
func (s *Snapshot) replaceLines(rs, re int, repl run, suffixFirst bool) (*Snapshot, LineChange, bool) {
	oldN, newN := re-rs, len(repl.ends)
	pre, suf := 0, 0
	trimPre := func() {
		for pre < oldN-suf && pre < newN-suf && s.root.line(rs+pre) == repl.at(pre) {
			pre++
		}
	}
	trimSuf := func() {
		for suf < oldN-pre && suf < newN-pre && s.root.line(re-1-suf) == repl.at(newN-1-suf) {
			suf++
		}
	}
	if suffixFirst {
		trimSuf()
		trimPre()
	} else {
		trimPre()
		trimSuf()
	}
	lc := LineChange{Start: rs + pre, Old: oldN - pre - suf, New: newN - pre - suf}
	if lc.Old == 0 && lc.New == 0 {
		return s, LineChange{}, false
	}
	ins := repl.sub(pre, newN-suf)
	// A few lines left of a large region (most of it equal to the old
	// lines) must not keep the region alive.
	borrowed := 2*len(ins.text) < len(repl.text)
	u := update{sh: s.sh}
	root := u.replace(s.root, lc.Start, lc.Start+lc.Old, ins, borrowed)
	return &Snapshot{root: root, sh: s.sh, owned: u.bytes, origin: s.origin}, lc, true
}

// replaceAll handles a full-sync change. Editors that sync full text send
// the whole document for every keystroke: rebuilding the snapshot each time
// would make every kept revision cost the whole text, and tell the ledger
// that everything between the first and last difference changed. Instead
// the new lines are diffed against the old (common prefix and suffix first,
// then a minimal line diff, lines compared exactly), and the hunks applied
// as line changes: unchanged lines keep their identity and share structure,
// and only the changed lines are copied, so the new text itself is not kept.
// A change that rewrites most of the document is rebuilt whole instead.
func (s *Snapshot) replaceAll(text string) (*Snapshot, []LineChange, error) {
	nr := run{text, lines.AppendEnds(nil, text)}
	oldN, newN := s.LineCount(), len(nr.ends)
	// The common prefix and suffix, a leaf at a time where whole leaves
	// are equal, then a line at a time.
	pre := 0
	if oldN > 0 && newN > 0 {
		s.root.walk(0, oldN, func(lf *node, from, to int) bool {
			if sameLines(lf, from, to, &nr, pre) {
				pre += to - from
				return true
			}
			for i := from; i < to && pre < newN && nr.at(pre) == lf.at(i); i++ {
				pre++
			}
			return false
		})
	}
	suf := 0
	if pre < oldN && pre < newN {
		s.root.walkBack(func(lf *node) bool {
			n := len(lf.ends)
			if suf+n <= oldN-pre && suf+n <= newN-pre && sameLines(lf, 0, n, &nr, newN-suf-n) {
				suf += n
				return true
			}
			for i := n - 1; i >= 0 && suf < oldN-pre && suf < newN-pre && nr.at(newN-1-suf) == lf.at(i); i-- {
				suf++
			}
			return false
		})
	}
	if oldN-pre-suf == 0 && newN-pre-suf == 0 {
		return s, nil, nil
	}
	hunks := s.diffMiddle(&nr, pre, oldN-suf, newN-suf)
	inserted := 0
	for _, h := range hunks {
		inserted += len(nr.bytes(h.B, h.B+h.Ins)) + h.Ins*endSize
	}
	lcs := make([]LineChange, len(hunks))
	for i, h := range hunks {
		// Each change applies to the text the ones before it left, where
		// the hunk starts at its line of the new text.
		lcs[i] = LineChange{Start: h.B, Old: h.Del, New: h.Ins}
	}
	if inserted > len(text)/2 {
		// Rewritten: its own copy, since the new text is the change's
		// (a whole message of the editor's) and need not outlive it.
		return newFromRun(nr, s.sh, true), lcs, nil
	}
	u := update{sh: s.sh}
	root := s.root
	for _, h := range hunks {
		// Borrowed: the tree copies what it keeps of the new text.
		root = u.replace(root, h.B, h.B+h.Del, nr.sub(h.B, h.B+h.Ins), true)
	}
	return &Snapshot{root: root, sh: s.sh, owned: u.bytes, origin: s.origin}, lcs, nil
}

// diffMiddle diffs old lines [pre, oldEnd) against lines [pre, newEnd) of nr
// and returns hunks in whole-document coordinates. Lines are numbered by
// exact content (an interning map), so equal numbers mean equal lines: no
// hash collision can hide a change.
func (s *Snapshot) diffMiddle(nr *run, pre, oldEnd, newEnd int) []linediff.Hunk {
	if pre == oldEnd || pre == newEnd {
		return []linediff.Hunk{{A: pre, Del: oldEnd - pre, B: pre, Ins: newEnd - pre}}
	}
	ids := make(map[lines.Line]uint32)
	id := func(l lines.Line) uint32 {
		v, ok := ids[l]
		if !ok {
			v = uint32(len(ids))
			ids[l] = v
		}
		return v
	}
	a := make([]uint32, 0, oldEnd-pre)
	for _, l := range s.Lines(pre, oldEnd) {
		a = append(a, id(l))
	}
	b := make([]uint32, 0, newEnd-pre)
	for k := pre; k < newEnd; k++ {
		b = append(b, id(nr.at(k)))
	}
	hs := linediff.Diff(a, b)
	for i := range hs {
		hs[i].A += pre
		hs[i].B += pre
	}
	return hs
}
