package engine

import (
	"slices"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// resolve maps a ref L:H to a line of the current text (protocol, "Ref
// resolution across versions").
//
// An agent names a line by a number it holds in some frame, and which one is
// unknown: a revision it was shown, that revision with the agent's own later
// edits applied (agents renumber their memory after their own edits, not
// after the user's typing, which they do not see), or the current text. A
// frame counts when its line L has hash H. Every counting frame names a line
// of the current text, found by following the change log; one that changed
// or vanished since makes the ref stale, frames that name different lines
// make it ambiguous. The agreed line must also be the only line with hash H
// within L ± S, S the net lines inserted and deleted since the oldest
// counting frame: that bound holds for any frame built from those changes,
// including ones not modelled here. The file is never searched for the hash.
//
// A ref to line L of the current text that the session was shown at the
// current revision is not resolved to L regardless: an agent that still
// holds an older view where L held the same content (a "}" the window of its
// last edit showed again) may mean that line, and the simulated agent that
// keeps the numbers it was shown lands on the wrong line under that rule.
// resolver resolves the refs of one write against one text: the session's
// frames and the change log are gathered once.
type resolver struct {
	e       *Env
	session string
	d       workspace.Doc
	doc     ledger.DocKey
	log     []ledger.LogEntry
	frames  []frame
}

func (e *Env) newResolver(session string, d workspace.Doc) *resolver {
	r := &resolver{e: e, session: session, d: d, doc: ledger.DocKey(d.Key)}
	shown := e.Ledger.Shown(session, r.doc)
	_, r.log = e.Ledger.Log(r.doc)
	if k := len(r.log); k > 0 && r.log[k-1].ToRev != d.Rev {
		// The ledger has not caught up with this text (it always does before a
		// revision is served); nothing can be mapped, so only an exact ref holds.
		r.log, shown = nil, nil
	}
	r.frames = framesOf(shown)
	return r
}

func (r *resolver) resolve(raw string) (line int, remapped bool, err error) {
	e, session, d, doc, log := r.e, r.session, r.d, r.doc, r.log
	ref, err := hashline.ParseRef(raw)
	if err != nil {
		return 0, false, result.Wrap(result.InvalidRef, err, err.Error())
	}
	L, H := ref.Line, ref.Hash
	n := d.Snap.LineCount()
	curOK := L <= n && lineHash(d.Snap, L) == H
	// The current text counts as a frame for a line the session knows there
	// (read or written by it, unchanged since), or when no other frame
	// counts (a ref from elsewhere). A line it never saw (the user's new
	// "}") is not what a ref from one of its views names.
	curKnown := curOK && e.Ledger.Check(session, doc, []ledger.Range{{Start: L, End: L}}).Clear()

	var named []int
	gone := false
	oldest := d.Rev
	if curKnown {
		named = append(named, L)
	}
	frames := r.frames
	for fi, f := range frames {
		i0 := firstAfter(log, f.rev)
		reach := 0 // how far the agent's own edits can have moved a line
		for _, le := range log[i0:] {
			if le.Author == session {
				reach += abs(le.Change.New - le.Change.Old)
			}
		}
		old, kept := e.WS.SnapshotAt(d.Key, f.rev)
		for l0 := max(1, L-reach); l0 <= L+reach; l0++ {
			if !f.lines.Contains(l0) {
				continue
			}
			// What line l0 held when shown: the ledger kept its hash with
			// what was shown, else the text is kept; if neither, it may
			// have been H.
			h, known := f.hash(l0)
			if !known && kept {
				if l0 > old.LineCount() {
					continue
				}
				h, known = lineHash(old, l0), true
			}
			if known && h != H {
				continue
			}
			cur, alive, rewritten, counts := follow(log[i0:], session, l0, L, frames[fi+1:])
			switch {
			case !counts:
			case !alive || rewritten && lineHash(d.Snap, cur) != H:
				// A counting frame's line changed or vanished (or, its text no
				// longer kept, it may have counted); or the session rewrote
				// it and it holds another text now.
				gone = true
			case known && !rewritten || lineHash(d.Snap, cur) == H:
				// A surviving line kept its content: its hash then and now agree.
				if !slices.Contains(named, cur) {
					named = append(named, cur)
				}
				oldest = min(oldest, f.rev)
			}
		}
	}
	if curOK && !curKnown && len(named) == 0 && !gone {
		named = append(named, L)
	}
	if gone || len(named) == 0 {
		return 0, false, &refError{kind: result.StaleRef, ref: ref}
	}
	slices.Sort(named)
	if len(named) > 1 {
		return 0, false, &refError{kind: result.AmbiguousRef, ref: ref, candidates: named}
	}
	c := named[0]
	s := 0
	for _, le := range log[firstAfter(log, oldest):] {
		s += abs(le.Change.New - le.Change.Old)
	}
	// Other lines with the same hash near L that the session saw make the
	// ref ambiguous; lines it never saw cannot be what any of its frames
	// names.
	lo, hi := max(1, L-s), min(n, L+s)
	unread := ledger.NewRangeSet(e.Ledger.Check(session, doc, []ledger.Range{{Start: lo, End: hi}}).Unread...)
	same := []int{c}
	for i := lo; i <= hi; i++ {
		if i != c && lineHash(d.Snap, i) == H && !unread.Contains(i) {
			same = append(same, i)
		}
	}
	if len(same) > 1 {
		slices.Sort(same)
		return 0, false, &refError{kind: result.AmbiguousRef, ref: ref, candidates: same}
	}
	return c, c != L, nil
}

// frame is what a session was shown of one revision.
type frame struct {
	rev   ledger.Rev
	lines ledger.RangeSet // everything shown at rev
	reads ledger.RangeSet // what reads of their own showed at rev
	shown []ledger.Shown  // the ranges shown, with the hashes of their lines when kept
}

// hash is the line hash line held when shown, if the ledger kept it.
func (f *frame) hash(line int) (string, bool) {
	for _, s := range f.shown {
		if sum, ok := s.Sum(line); ok {
			return hashline.HashOfSum(sum), true
		}
	}
	return "", false
}

// framesOf groups shown ranges by revision.
func framesOf(shown []ledger.Shown) []frame {
	var out []frame
	for _, s := range shown {
		i := slices.IndexFunc(out, func(f frame) bool { return f.rev == s.Rev })
		if i < 0 {
			out = append(out, frame{rev: s.Rev})
			i = len(out) - 1
		}
		out[i].lines.Add(s.Range)
		out[i].shown = append(out[i].shown, s)
		if s.Kind == ledger.KindRead {
			out[i].reads.Add(s.Range)
		}
	}
	return out
}

// follow carries line l0 of a shown revision through the changes since:
// where it is now (alive false if it changed or vanished), whether the
// session itself rewrote it in place since (an own change that replaced as
// many lines as it wrote: the line is where it was, its text the
// session's, so a ref to it holds if that text is the ref's: a line edited
// A, B, then A again by the session is still the line its first read
// showed), and whether a frame of the agent counts it as line L. The
// frames:
//   - the shown revision as shown (l0 == L). Agents keep editing by the
//     numbers of a read whatever edit answers showed since, so only a newer
//     read of the line retires this frame for it;
//   - the shown revision with all of the agent's own later edits applied:
//     each own edit moves the line in the agent's numbering as it moved it
//     in the text; other changes move it only in the text. An agent that
//     renumbers takes a newer answer's numbers for the lines it shows, so
//     once any later frame shows the line again this one no longer counts.
func follow(log []ledger.LogEntry, session string, l0, L int, newer []frame) (cur int, alive, rewritten, counts bool) {
	p, v := l0, l0
	alive = true
	asShown, renumbered := true, true // the frames still speak for the line
	edge := false                     // v may be one off: the line vanished where an own edit began
	for i, le := range log {
		ch := le.Change
		np, ok := ch.MapLine(p)
		if !ok && alive && le.Author == session && ch.Old == ch.New {
			// Rewritten by the session in place: line for line, it is
			// where it was.
			np, ok, rewritten = p, true, true
		}
		if !ok {
			// The line changed or vanished. The agent does not know and keeps
			// numbering it by its own edits: follow where it was (the start of
			// the change).
			alive, np = false, ch.Start
			edge = edge || le.Author == session
		} else if !alive && p == ch.Start {
			edge = edge || le.Author == session
		}
		if le.Author == session {
			v += np - p
		}
		p = np
		if i+1 < len(log) && log[i+1].ToRev == le.ToRev {
			continue // the rest of the same event comes first
		}
		for len(newer) > 0 && newer[0].rev <= le.ToRev {
			switch {
			case newer[0].rev != le.ToRev:
			case alive && newer[0].lines.Contains(p):
				renumbered = false
				asShown = asShown && !newer[0].reads.Contains(p)
			case !alive && readsGap(newer[0].reads, p, le.Total):
				// A line that vanished is followed where it was: a newer read
				// of that place showed the agent it is gone. (An edit's
				// window there need not: the agent may not notice a line
				// missing from it.)
				renumbered, asShown = false, false
			}
			newer = newer[1:]
		}
	}
	counts = asShown && l0 == L || renumbered && (v == L || edge && abs(v-L) <= 1)
	if !alive {
		return 0, false, false, counts
	}
	return p, true, rewritten, counts
}

// readsGap reports whether a read showed the place before line p of a text
// of total lines: the lines on both sides of it, or the one side there is.
func readsGap(reads ledger.RangeSet, p, total int) bool {
	before := p == 1 || reads.Contains(p-1)
	after := p > total || reads.Contains(p)
	return before && after && (p > 1 || p <= total)
}

// firstAfter is the index of the first log entry past rev.
func firstAfter(log []ledger.LogEntry, rev ledger.Rev) int {
	i, _ := slices.BinarySearchFunc(log, rev, func(le ledger.LogEntry, r ledger.Rev) int {
		if le.ToRev <= r {
			return -1
		}
		return 1
	})
	return i
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
