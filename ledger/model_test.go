package ledger

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The reference model: the document is a slice of line identities, and each
// session keeps flags per identity. Shifting is free (identities move with
// the slice), and a replaced line simply gets a new identity, so the model
// states the rules directly, line by line, with none of the ledger's range
// arithmetic.

const (
	fRead uint8 = 1 << iota
	fAuthored
	fStale
)

type mRecord struct {
	rev   Rev
	agent string
	kind  Kind
	shown Range
	ids   map[int]bool
}

type mEntry struct {
	flags         map[int]uint8 // line identity → flags
	created, seen bool
	records       []mRecord
}

type model struct {
	ids        []int
	nextID     int
	rev        Rev
	versions   map[Rev][]int // the identities of every revision's text
	nLog       int           // change log entries appended so far
	nLogAt     map[Rev]int   // nLog when the revision became final
	entries    map[string]*mEntry
	maxRecords int
	maxLog     int
}

func (m *model) fresh(n int) []int {
	out := make([]int, n)
	for i := range out {
		m.nextID++
		out[i] = m.nextID
	}
	return out
}

func (m *model) entry(s string) *mEntry {
	e := m.entries[s]
	if e == nil {
		e = &mEntry{flags: map[int]uint8{}}
		m.entries[s] = e
	}
	return e
}

func (m *model) pos() map[int]int {
	p := make(map[int]int, len(m.ids))
	for i, id := range m.ids {
		p[id] = i + 1
	}
	return p
}

func (m *model) linesOf(ids map[int]bool, pos map[int]int) []Range {
	var ls []int
	for id := range ids {
		if p, ok := pos[id]; ok {
			ls = append(ls, p)
		}
	}
	slices.Sort(ls)
	return toRanges(ls)
}

func (m *model) trim(e *mEntry) {
	if over := len(e.records) - m.maxRecords; over > 0 {
		e.records = slices.Clone(e.records[over:])
	}
}

func (m *model) finishRev(rev Rev) {
	m.rev = rev
	m.versions[rev] = slices.Clone(m.ids)
	m.nLogAt[rev] = m.nLog
}

// mappable reports whether the ledger must still map from rev: the log
// keeps at least its bound minus the rest of a cut event (at most 2 here).
func (m *model) mappable(rev Rev) bool {
	at, ok := m.nLogAt[rev]
	return ok && m.nLog-at <= m.maxLog-2
}

func (m *model) record(kind Kind, s, agent string, rev Rev, r Range) {
	ver := m.versions[rev]
	if len(ver) == 0 {
		m.entry(s).seen = true
		return
	}
	shown := r.Clamp(len(ver))
	if shown.Empty() {
		return
	}
	e := m.entry(s)
	e.seen = true
	ids := map[int]bool{}
	for l := shown.Start; l <= shown.End; l++ {
		ids[ver[l-1]] = true
	}
	live := m.pos()
	for id := range ids {
		if _, ok := live[id]; !ok {
			continue
		}
		if kind == KindAuthored {
			e.flags[id] = fAuthored
		} else if e.flags[id]&fAuthored == 0 {
			e.flags[id] = fRead
		}
	}
	if n := len(e.records); kind == KindAuthored && n > 0 {
		if last := &e.records[n-1]; last.kind == KindAuthored && last.rev == rev && last.shown == shown && last.agent == "" {
			last.agent = agent
			return
		}
	}
	// The same lines of the same revision shown again, as the same kind to
	// the same agent, are the record seen again: it moves to the end.
	if i := slices.IndexFunc(e.records, func(o mRecord) bool {
		return o.rev == rev && o.kind == kind && o.agent == agent && o.shown == shown
	}); i >= 0 {
		e.records = slices.Delete(slices.Clone(e.records), i, i+1)
	}
	e.records = append(e.records, mRecord{rev, agent, kind, shown, ids})
	m.trim(e)
}

func (m *model) change(ch Change, author string, to Rev) {
	if author != "" {
		m.entry(author).seen = true
	}
	old := m.ids[ch.Start-1 : ch.Start-1+ch.Old]
	added := m.fresh(ch.New)
	for s, e := range m.entries {
		hadSeen := false
		for _, id := range old {
			if e.flags[id] != 0 {
				hadSeen = true
			}
			delete(e.flags, id)
		}
		for _, id := range added {
			switch {
			case s == author:
				e.flags[id] = fAuthored
			case hadSeen:
				e.flags[id] = fStale
			}
		}
		if s == author && ch.New > 0 {
			e.records = append(e.records, mRecord{to, "", KindAuthored, Range{ch.Start, ch.Start + ch.New - 1}, idSet(added)})
		}
	}
	m.ids = slices.Concat(m.ids[:ch.Start-1], added, m.ids[ch.Start-1+ch.Old:])
	pos := m.pos()
	for _, e := range m.entries {
		// Records made at this revision are restated in its text.
		var out []mRecord
		for _, r := range e.records {
			if r.rev != to {
				out = append(out, r)
				continue
			}
			for _, run := range m.linesOf(r.ids, pos) {
				p := r
				p.shown = run
				p.ids = map[int]bool{}
				for l := run.Start; l <= run.End; l++ {
					p.ids[m.ids[l-1]] = true
				}
				out = append(out, p)
			}
		}
		e.records = out
		m.trim(e)
	}
	m.nLog++
}

func idSet(ids []int) map[int]bool {
	out := make(map[int]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

func (m *model) replace(to Rev, total int) {
	m.nLog += m.maxLog // the log restarts: nothing before maps
	m.ids = m.fresh(total)
	for _, e := range m.entries {
		hadSeen := len(e.flags) > 0
		e.flags = map[int]uint8{}
		e.created = false
		if hadSeen {
			for _, id := range m.ids {
				e.flags[id] = fStale
			}
		}
	}
	m.finishRev(to)
}

func (m *model) markCreated(s string) {
	e := m.entry(s)
	e.created, e.seen = true, true
	if len(m.ids) == 0 {
		return
	}
	e.flags = map[int]uint8{}
	for _, id := range m.ids {
		e.flags[id] = fAuthored
	}
	e.records = append(e.records, mRecord{m.rev, "", KindAuthored, Range{1, len(m.ids)}, idSet(m.ids)})
	m.trim(e)
}

// reimport is what Export followed by Import does to records: restated at
// the current revision, one per run of current lines.
func (m *model) reimport(s string) {
	e := m.entries[s]
	if e == nil {
		return
	}
	pos := m.pos()
	var out []mRecord
	for _, r := range e.records {
		for _, run := range m.linesOf(r.ids, pos) {
			p := r
			p.rev = m.rev
			p.shown = run
			p.ids = map[int]bool{}
			for l := run.Start; l <= run.End; l++ {
				p.ids[m.ids[l-1]] = true
			}
			out = append(out, p)
		}
	}
	e.records = out
	m.trim(e)
}

func (m *model) sets(e *mEntry) (read, authored, stale, unread []Range) {
	var r, a, st, u []int
	for i, id := range m.ids {
		switch f := e.flags[id]; f {
		case fRead:
			r = append(r, i+1)
		case fAuthored:
			a = append(a, i+1)
		case fStale:
			st = append(st, i+1)
		case 0:
			u = append(u, i+1)
		default:
			panic(fmt.Sprintf("model: flags %b not disjoint", f))
		}
	}
	return toRanges(r), toRanges(a), toRanges(st), toRanges(u)
}

func (m *model) state(e *mEntry) State {
	read, authored, stale, _ := m.sets(e)
	switch {
	case e.created:
		return ModelAuthored
	case len(stale) > 0:
		return Stale
	case e.seen && countLines(read)+countLines(authored) == len(m.ids):
		return FullyRead
	case e.seen:
		return PartialRead
	}
	return NeverRead
}

func (m *model) mapLine(rev Rev, line int) (int, bool) {
	ver := m.versions[rev]
	if line < 1 || line > len(ver) {
		return 0, false
	}
	p, ok := m.pos()[ver[line-1]]
	return p, ok
}

func sameRanges(a, b []Range) bool {
	return (len(a) == 0 && len(b) == 0) || slices.Equal(a, b)
}

var sessions = []string{"a", "b", "c"}

// TestLedgerAgainstModel drives the ledger and the model with the same random
// reads, writes, own and foreign changes (replacements, insertions,
// deletions, multi-change events), reloads, creations, resets and
// persistence round trips, and compares everything observable after each.
func TestLedgerAgainstModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxRecords := rapid.IntRange(1, 10).Draw(t, "maxRecords")
		maxLog := rapid.IntRange(3, 12).Draw(t, "maxLog")
		l := New(Options{MaxRecords: maxRecords, MaxChangeLog: maxLog})
		m := &model{versions: map[Rev][]int{}, nLogAt: map[Rev]int{}, entries: map[string]*mEntry{}, maxRecords: maxRecords, maxLog: maxLog}
		total := rapid.IntRange(0, 30).Draw(t, "total")
		m.ids = m.fresh(total)
		m.finishRev(1)
		l.SetTotal(doc, 1, total)

		genRangeIn := func(t *rapid.T, n int) Range {
			a := rapid.IntRange(-2, n+3).Draw(t, "start")
			return Range{a, a + rapid.IntRange(-1, 12).Draw(t, "len")}
		}
		// A revision to read at: mostly the current one, sometimes an older one
		// the log must still reach.
		pickRev := func(t *rapid.T) Rev {
			var revs []Rev
			for r := range m.versions {
				if m.mappable(r) {
					revs = append(revs, r)
				}
			}
			slices.Sort(revs)
			if len(revs) == 0 || rapid.IntRange(0, 2).Draw(t, "older") > 0 {
				return m.rev
			}
			return rapid.SampledFrom(revs).Draw(t, "rev")
		}
		newRev := func(t *rapid.T) Rev { return m.rev + Rev(rapid.IntRange(1, 3).Draw(t, "revStep")) }
		genChange := func(t *rapid.T) Change {
			n := len(m.ids)
			start := rapid.IntRange(1, n+1).Draw(t, "chStart")
			old := rapid.IntRange(0, min(6, n-start+1)).Draw(t, "chOld")
			lo := 0
			if old == 0 {
				lo = 1 // minimised: never an empty change
			}
			return Change{start, old, rapid.IntRange(lo, 6).Draw(t, "chNew")}
		}

		t.Repeat(map[string]func(*rapid.T){
			"read": func(t *rapid.T) {
				s := rapid.SampledFrom(sessions).Draw(t, "session")
				rev := pickRev(t)
				r := genRangeIn(t, len(m.versions[rev]))
				agent := rapid.SampledFrom([]string{"", "coder", "orchestrator"}).Draw(t, "agent")
				l.RecordRead(s, agent, doc, rev, r)
				m.record(KindRead, s, agent, rev, r)
			},
			"author": func(t *rapid.T) {
				s := rapid.SampledFrom(sessions).Draw(t, "session")
				rev := pickRev(t)
				r := genRangeIn(t, len(m.versions[rev]))
				agent := rapid.SampledFrom([]string{"", "coder"}).Draw(t, "agent")
				l.RecordAuthored(s, agent, doc, rev, r)
				m.record(KindAuthored, s, agent, rev, r)
			},
			"change": func(t *rapid.T) {
				// "z" writes without ever having read: its entry starts with the edit.
				author := rapid.SampledFrom([]string{"", "", "a", "b", "c", "z"}).Draw(t, "author")
				from, to := m.rev, newRev(t)
				for i := range rapid.IntRange(1, 3).Draw(t, "changes") {
					ch := genChange(t)
					newTotal := len(m.ids) + ch.New - ch.Old
					if i > 0 {
						from = to
					}
					l.ApplyChange(doc, from, to, ch, author, newTotal)
					m.change(ch, author, to)
				}
				m.finishRev(to)
			},
			"reload": func(t *rapid.T) {
				to, n := newRev(t), rapid.IntRange(0, 30).Draw(t, "newTotal")
				l.Replace(doc, to, n)
				m.replace(to, n)
			},
			"sameLines": func(t *rapid.T) {
				to := newRev(t)
				l.SetTotal(doc, to, len(m.ids))
				m.nLog++
				m.finishRev(to)
			},
			"tail": func(t *rapid.T) {
				to, n := newRev(t), rapid.IntRange(0, len(m.ids)+5).Draw(t, "newTotal")
				l.SetTotal(doc, to, n)
				if n != len(m.ids) {
					mn := min(n, len(m.ids))
					m.change(Change{mn + 1, len(m.ids) - mn, n - mn}, "", to)
				} else {
					m.nLog++
				}
				m.finishRev(to)
			},
			"create": func(t *rapid.T) {
				s := rapid.SampledFrom(sessions).Draw(t, "session")
				l.MarkCreated(s, doc)
				m.markCreated(s)
			},
			"reset": func(t *rapid.T) {
				s := rapid.SampledFrom(sessions).Draw(t, "session")
				l.ResetSession(s)
				delete(m.entries, s)
			},
			"persist": func(t *rapid.T) {
				s := rapid.SampledFrom(sessions).Draw(t, "session")
				e, ok := l.Export(s, doc)
				if ok != (m.entries[s] != nil) {
					t.Fatalf("Export ok = %v", ok)
				}
				if ok {
					l.Import(s, doc, m.rev, e)
					m.reimport(s)
				}
			},
			"": func(t *rapid.T) {
				compare(t, l, m)
			},
		})
	})
}

func compare(t *rapid.T, l *Ledger, m *model) {
	if got, want := l.Sessions(doc), slices.Sorted(maps.Keys(m.entries)); !slices.Equal(got, want) && len(got)+len(want) > 0 {
		t.Fatalf("Sessions = %v, model %v", got, want)
	}
	pos := m.pos()
	for _, s := range append(slices.Clone(sessions), "z") {
		v := l.Doc(s, doc)
		if v.TotalLines != len(m.ids) || v.Rev != m.rev {
			t.Fatalf("%s: total %d rev %d, model %d %d", s, v.TotalLines, v.Rev, len(m.ids), m.rev)
		}
		e := m.entries[s]
		if e == nil {
			if v.State != NeverRead || len(v.Read)+len(v.Authored)+len(v.Stale)+len(v.Records) > 0 ||
				!sameRanges(v.Unread, toRanges(seq(len(m.ids)))) {
				t.Fatalf("%s: untouched view %+v", s, v)
			}
			if sum := l.Summarize(s, doc); sum != (Summary{State: NeverRead, TotalLines: len(m.ids), UnreadLines: len(m.ids)}) {
				t.Fatalf("%s: untouched Summarize %+v", s, sum)
			}
			continue
		}
		read, authored, stale, unread := m.sets(e)
		for _, c := range []struct {
			name      string
			got, want []Range
		}{{"read", v.Read, read}, {"authored", v.Authored, authored}, {"stale", v.Stale, stale}, {"unread", v.Unread, unread}} {
			if !sameRanges(c.got, c.want) {
				t.Fatalf("%s: %s = %v, model %v", s, c.name, c.got, c.want)
			}
		}
		if st := m.state(e); v.State != st {
			t.Fatalf("%s: state %s, model %s", s, v.State, st)
		}
		want := Summary{State: v.State, TotalLines: len(m.ids), ReadLines: countLines(read), AuthoredLines: countLines(authored),
			StaleLines: countLines(stale), StaleRanges: len(stale), UnreadLines: countLines(unread)}
		if sum := l.Summarize(s, doc); sum != want {
			t.Fatalf("%s: Summarize = %+v, model %+v", s, sum, want)
		}
		if len(v.Records) != len(e.records) {
			t.Fatalf("%s: %d records, model %d\n%+v", s, len(v.Records), len(e.records), v.Records)
		}
		for i, r := range v.Records {
			mr := e.records[i]
			if r.Rev != mr.rev || r.Kind != mr.kind || r.Range != mr.shown || r.Agent != mr.agent || !sameRanges(r.Lines, m.linesOf(mr.ids, pos)) {
				t.Fatalf("%s: record %d = %+v, model %+v lines %v", s, i, r, mr, m.linesOf(mr.ids, pos))
			}
		}
		checkSources(t, l, m, s, e)
	}
	checkMapLine(t, l, m)
	checkGuard(t, l, m)
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func checkMapLine(t *rapid.T, l *Ledger, m *model) {
	for rev, ver := range m.versions {
		l.mu.Lock()
		total, ok := l.docs[doc].totalAt(rev)
		l.mu.Unlock()
		if ok && total != len(ver) || !ok && m.mappable(rev) {
			t.Fatalf("line count at %d = %d %v, model %d", rev, total, ok, len(ver))
		}
		for line := 0; line <= len(ver)+1; line++ {
			got, ok := l.MapLine(doc, rev, line)
			want, wok := m.mapLine(rev, line)
			if ok && (!wok || got != want) {
				t.Fatalf("MapLine(%d, %d) = %d, model %d %v", rev, line, got, want, wok)
			}
			if !ok && wok && m.mappable(rev) {
				t.Fatalf("MapLine(%d, %d) unmapped, model %d", rev, line, want)
			}
		}
	}
}

// checkSources: for every line, the views the ledger reports are records
// that cover it, in order, each mapped exactly as the model maps it; none
// the model can still map is missing (the ledger may reach a little further
// back than the model's conservative bound).
func checkSources(t *rapid.T, l *Ledger, m *model, s string, e *mEntry) {
	for line := 1; line <= len(m.ids)+1; line++ {
		got := l.Sources(s, doc, line)
		i := 0
		for _, r := range e.records {
			if !r.shown.Contains(line) {
				continue
			}
			p, ok := m.mapLine(r.rev, line)
			if !ok {
				p = 0
			}
			want := Source{Rev: r.rev, Line: p, OK: ok}
			if i < len(got) && got[i] == want {
				i++
				continue
			}
			if m.mappable(r.rev) {
				t.Fatalf("%s: Sources(%d) = %v lacks %v", s, line, got, want)
			}
		}
		if i != len(got) {
			t.Fatalf("%s: Sources(%d) = %v: %v is no record the model knows", s, line, got, got[i])
		}
	}
}

func checkGuard(t *rapid.T, l *Ledger, m *model) {
	n := len(m.ids)
	targets := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Range {
		a := rapid.IntRange(0, n+3).Draw(t, "ts")
		return Range{a, a + rapid.IntRange(-1, 8).Draw(t, "tl")}
	}), 0, 3).Draw(t, "targets")
	inTarget := map[int]bool{}
	for _, tr := range targets {
		tr = tr.Clamp(n)
		for x := tr.Start; x <= tr.End; x++ {
			inTarget[x] = true
		}
	}
	for _, s := range sessions {
		d := l.Check(s, doc, targets)
		e := m.entries[s]
		var unread, stale, other []int
		if e == nil || !e.created {
			for i, id := range m.ids {
				var f uint8
				if e != nil {
					f = e.flags[id]
				}
				switch {
				case inTarget[i+1] && f == 0:
					unread = append(unread, i+1)
				case inTarget[i+1] && f == fStale:
					stale = append(stale, i+1)
				case !inTarget[i+1] && f == fStale:
					other = append(other, i+1)
				}
			}
		}
		if !sameRanges(d.Unread, toRanges(unread)) || !sameRanges(d.Stale, toRanges(stale)) || !sameRanges(d.OtherStale, toRanges(other)) {
			t.Fatalf("%s: Check(%v) = %+v, model unread %v stale %v other %v", s, targets, d, toRanges(unread), toRanges(stale), toRanges(other))
		}
	}
}

// TestModelCatchesBugs makes sure the model comparison is not vacuous: a
// ledger that forgets to mark foreign changes stale must fail it.
func TestModelSanity(t *testing.T) {
	l := New(Options{})
	m := &model{versions: map[Rev][]int{}, nLogAt: map[Rev]int{}, entries: map[string]*mEntry{}, maxRecords: 256, maxLog: 1024}
	m.ids = m.fresh(10)
	m.finishRev(1)
	l.SetTotal(doc, 1, 10)
	l.RecordRead("a", "", doc, 1, Range{1, 10})
	m.record(KindRead, "a", "", 1, Range{1, 10})
	l.ApplyChange(doc, 1, 2, Change{3, 2, 1}, "", 9)
	m.change(Change{3, 2, 1}, "", 2)
	m.finishRev(2)
	read, _, stale, _ := m.sets(m.entries["a"])
	if !slices.Equal(read, rs(1, 2, 4, 9)) || !slices.Equal(stale, rs(3, 3)) {
		t.Fatalf("model: read %v stale %v", read, stale)
	}
	v := l.Doc("a", doc)
	if !slices.Equal(v.Read, read) || !slices.Equal(v.Stale, stale) {
		t.Fatalf("ledger: %+v", v)
	}
}
