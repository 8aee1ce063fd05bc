package ledger

import (
	"slices"
	"time"
)

// Snapshots of one (session, document) for write-behind persistence.

// Export snapshots session's ledger of doc; false if there is none.
func (l *Ledger) Export(session string, doc DocKey) (Entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil {
		return Entry{}, false
	}
	e := d.sessions[session]
	if e == nil {
		return Entry{}, false
	}
	return l.exportLocked(d, e), true
}

// exportLocked is Export of entry e of document d; l.mu is held.
func (l *Ledger) exportLocked(d *docState, e *entry) Entry {
	out := Entry{
		TotalLines: d.total,
		Created:    e.created,
		Seen:       e.seen,
		Read:       e.read.Ranges(),
		Authored:   e.authored.Ranges(),
		Stale:      e.stale.Ranges(),
	}
	// Every call of a session that reads a document exports its records
	// (a CLI call's one write): their lines are copied into one slice.
	n := 0
	for i := range e.records {
		n += e.records[i].lines.NumRanges()
	}
	out.Records = make([]Record, 0, len(e.records))
	lines := make([]Range, 0, n)
	for i := range e.records {
		r := &e.records[i]
		// Records with no current lines help neither hover nor refs after a
		// restart (their revisions will be unmappable).
		if r.lines.IsEmpty() {
			continue
		}
		at := len(lines)
		lines = append(lines, r.lines.rs...)
		out.Records = append(out.Records, Record{Rev: r.rev, Time: r.time, Agent: r.agent, Kind: r.kind, Range: r.shown, Lines: lines[at:len(lines):len(lines)]})
	}
	return out
}

// Import restores session's ledger of doc from a snapshot taken on the same
// content, now at revision rev; it replaces any entry the session has. The
// snapshot is not trusted: ranges are clamped to the document and made
// disjoint (stale over authored over read, the safe order). Records are
// restated at rev, one per run of their current lines, since the content is
// the same and older revisions cannot be mapped.
//
// The document may have changed since rev (the restore was computed while
// edits went on): the snapshot then moves through the changes the log has
// since rev, as Moved moves it (lines that replaced lines the session had
// seen are stale). When the log does not reach rev, or its line count there
// is not the snapshot's, nothing is imported: unread is the safe answer.
func (l *Ledger) Import(session string, doc DocKey, rev Rev, in Entry) {
	l.ImportShown(session, doc, rev, in, nil)
}

// ImportShown is Import, with the hashes of the lines of the text at rev
// (sum, called under the ledger's lock) kept with the records restated, as
// RecordShown keeps them.
func (l *Ledger) ImportShown(session string, doc DocKey, rev Rev, in Entry, sum SumFunc) {
	l.mu.Lock()
	var dirty dirtyList
	d := l.docFor(doc)
	in, sum, ok := l.restate(d, doc, rev, in, sum, &dirty)
	if !ok {
		l.unlockAndNotify(dirty)
		return
	}
	if old := d.sessions[session]; old != nil {
		delete(d.sessions, session)
		delete(l.bySession[session], doc)
	}
	e := l.entryFor(d, doc, session)
	e.created = in.Created
	e.stale = clampedSet(in.Stale, d.total)
	e.authored = clampedSet(in.Authored, d.total)
	e.authored.RemoveAll(e.stale.rs)
	e.read = clampedSet(in.Read, d.total)
	e.read.RemoveAll(e.authored.rs)
	e.read.RemoveAll(e.stale.rs)
	e.seen = in.Seen || in.Created || !e.read.IsEmpty() || !e.authored.IsEmpty() || !e.stale.IsEmpty()
	l.restateRecords(d, e, in.Records, sum, nil)
	l.trimRecords(e)
	dirty.add(session, doc)
	l.unlockAndNotify(dirty)
}

// MergeShown adds to session's ledger of doc what in (the entry another
// process wrote, of the text at rev) holds and it lacks, as MergeEntries
// merges two entries: a line either was shown or wrote counts, and the
// records it lacks are restated at the document's revision, as
// ImportShown restates them. Nothing the session's ledger holds is
// dropped, so a read recorded meanwhile stays. out is the session's entry
// after (Export's); extra reports that it holds something in lacks (what
// this process recorded that the other had not), so it is for this
// process to write; ok is false when in could not be placed on the
// document (see Import): nothing was merged.
func (l *Ledger) MergeShown(session string, doc DocKey, rev Rev, in Entry, sum SumFunc) (out Entry, extra, ok bool) {
	l.mu.Lock()
	var dirty dirtyList
	d := l.docFor(doc)
	in, sum, ok = l.restate(d, doc, rev, in, sum, &dirty)
	if !ok {
		l.unlockAndNotify(dirty)
		return Entry{}, false, false
	}
	e := l.entryFor(d, doc, session)
	// What in says, as Import would set it: the ledger's entry adds
	// something to it when the merge differs.
	authored := clampedSet(in.Authored, d.total)
	read := clampedSet(in.Read, d.total)
	read.RemoveAll(authored.rs)
	stale := clampedSet(in.Stale, d.total)
	stale.RemoveAll(authored.rs)
	stale.RemoveAll(read.rs)
	theirs := struct{ read, authored, stale RangeSet }{read.Clone(), authored.Clone(), stale.Clone()}
	authored.AddAll(e.authored.rs)
	read.AddAll(e.read.rs)
	read.RemoveAll(authored.rs)
	stale.AddAll(e.stale.rs)
	stale.RemoveAll(authored.rs)
	stale.RemoveAll(read.rs)
	extra = !authored.Equal(&theirs.authored) || !read.Equal(&theirs.read) || !stale.Equal(&theirs.stale) ||
		(e.created && !in.Created)
	changed := !authored.Equal(&e.authored) || !read.Equal(&e.read) || !stale.Equal(&e.stale) || (in.Created && !e.created)
	e.authored, e.read, e.stale = authored, read, stale
	e.created = e.created || in.Created
	e.seen = e.seen || in.Seen || e.created || !read.IsEmpty() || !authored.IsEmpty() || !stale.IsEmpty()
	type id struct {
		t     int64
		agent string
		kind  Kind
		r     Range
	}
	idOf := func(t time.Time, agent string, kind Kind, r Range) id {
		if kind != KindAuthored {
			kind = KindRead // as restated
		}
		return id{t.UnixNano(), agent, kind, r}
	}
	had := make(map[id]bool, len(e.records))
	for _, r := range e.records {
		had[idOf(r.time, r.agent, r.kind, r.shown)] = true
	}
	inHas := make(map[id]bool, len(in.Records))
	for _, r := range in.Records {
		inHas[idOf(r.Time, r.Agent, r.Kind, r.Range)] = true
	}
	for _, r := range e.records {
		if !inHas[idOf(r.time, r.agent, r.kind, r.shown)] {
			extra = true
			break
		}
	}
	if n := l.restateRecords(d, e, in.Records, sum, func(r Record) bool { return had[idOf(r.Time, r.Agent, r.Kind, r.Range)] }); n > 0 {
		changed = true
		slices.SortStableFunc(e.records, func(x, y record) int { return x.time.Compare(y.time) })
		l.trimRecords(e)
	}
	if changed {
		dirty.add(session, doc)
	}
	out = l.exportLocked(d, e)
	l.unlockAndNotify(dirty)
	return out, extra, true
}

// restate gives in (an entry of the text at rev) as of the document's
// revision, moved through the changes since rev; ok is false when the log
// does not reach rev or its line count there is not in's. l.mu is held.
func (l *Ledger) restate(d *docState, doc DocKey, rev Rev, in Entry, sum SumFunc, dirty *dirtyList) (Entry, SumFunc, bool) {
	if !d.shaped {
		l.shape(d, doc, rev, in.TotalLines, dirty)
	}
	if rev == d.rev {
		return in, sum, true
	}
	total, ok := d.totalAt(rev)
	if !ok || total != in.TotalLines {
		return in, nil, false
	}
	var since []Change
	for i := d.firstAfter(rev); i < len(d.log); i++ {
		since = append(since, d.log[i].Change)
	}
	return in.Moved(since, d.total), nil, true // the records are restated at d.rev, another text
}

// clampedSet is rs clamped to a document of total lines.
func clampedSet(rs []Range, total int) RangeSet {
	var s RangeSet
	for _, r := range rs {
		s.Add(r.Clamp(total))
	}
	return s
}

// restateRecords appends to e the records of rs (skip says which not),
// one per run of their current lines, at the document's revision, with
// the hashes of their lines when sum is given; it returns how many were
// added. l.mu is held.
func (l *Ledger) restateRecords(d *docState, e *entry, rs []Record, sum SumFunc, skip func(Record) bool) int {
	// Every call of a session that reads a document imports its records
	// (a CLI call's restore): they are appended to room made once (with
	// the record of the call that restores them), and a record's line set
	// (one run) is cut from one slice, its capacity its length, so that
	// growing it copies it out.
	e.records = slices.Grow(e.records, len(rs)+1)
	runs := make([]Range, 0, len(rs))
	var lines RangeSet
	added := 0
	for _, r := range rs {
		if skip != nil && skip(r) {
			continue
		}
		kind := r.Kind
		if kind != KindAuthored {
			kind = KindRead
		}
		lines.rs, lines.n = lines.rs[:0], 0
		for _, x := range r.Lines {
			lines.Add(x.Clamp(d.total))
		}
		for _, x := range lines.rs {
			var sums []uint32
			if sum != nil {
				sums = make([]uint32, 0, x.Len())
				for i := x.Start; i <= x.End; i++ {
					sums = append(sums, sum(i))
				}
			}
			runs = append(runs, x)
			one := RangeSet{rs: runs[len(runs)-1 : len(runs) : len(runs)], n: x.Len()}
			e.records = append(e.records, record{rev: d.rev, time: r.Time, agent: r.Agent, kind: kind, shown: x, lines: one, sums: sums})
			added++
		}
	}
	return added
}

// Moved returns the snapshot moved through changes its text went through
// while no ledger watched it (a file edited between two CLI calls): each
// change is applied as ApplyChange applies a change by someone else. Ranges
// shift with the text; the lines that replaced lines the session had seen
// become stale, other new lines are unread. Changes follow one another (each
// relative to the text the previous one left) and must end at newTotal
// lines; if they do not fit, every line is stale for a session that had seen
// any (as Replace), the safe answer.
func (in Entry) Moved(changes []Change, newTotal int) Entry {
	read, authored, stale := NewRangeSet(in.Read...), NewRangeSet(in.Authored...), NewRangeSet(in.Stale...)
	lines := make([]RangeSet, len(in.Records))
	for i, r := range in.Records {
		lines[i] = NewRangeSet(r.Lines...)
	}
	out := in
	out.TotalLines = newTotal
	total := in.TotalLines
	fits := true
	for _, ch := range changes {
		if ch.Start < 1 || ch.Old < 0 || ch.New < 0 || ch.Start+ch.Old-1 > total {
			fits = false
			break
		}
		replaced := Range{ch.Start, ch.Start + ch.Old - 1}
		hadSeen := read.Overlaps(replaced) || authored.Overlaps(replaced) || stale.Overlaps(replaced)
		read.Shift(ch)
		authored.Shift(ch)
		stale.Shift(ch)
		for i := range lines {
			lines[i].Shift(ch)
		}
		if hadSeen {
			stale.Add(Range{ch.Start, ch.Start + ch.New - 1})
		}
		total += ch.New - ch.Old
	}
	if !fits || total != newTotal {
		seen := !read.IsEmpty() || !authored.IsEmpty() || !stale.IsEmpty()
		out.Read, out.Authored, out.Stale, out.Records, out.Created = nil, nil, nil, nil, false
		if seen && newTotal > 0 {
			out.Stale = []Range{{1, newTotal}}
		}
		return out
	}
	out.Read, out.Authored, out.Stale = read.Ranges(), authored.Ranges(), stale.Ranges()
	out.Records = nil
	for i, r := range in.Records {
		if !lines[i].IsEmpty() {
			r.Lines = lines[i].Ranges()
			out.Records = append(out.Records, r)
		}
	}
	return out
}

// MergeEntries is what two processes knew of one session's ledger of the
// same text (a and b, of as many lines): a line either was shown or wrote
// counts. Authored wins over read, and both over stale (a line one process
// saw change but the other was shown as it is now). The records are a's
// and those of b's that a lacks, the newest maxRecords of them (all when
// maxRecords <= 0). Entries of other texts are not merged: a is returned.
func MergeEntries(a, b Entry, maxRecords int) Entry {
	if a.TotalLines != b.TotalLines {
		return a
	}
	authored := NewRangeSet(a.Authored...)
	authored.AddAll(b.Authored)
	read := NewRangeSet(a.Read...)
	read.AddAll(b.Read)
	read.RemoveAll(authored.rs)
	stale := NewRangeSet(a.Stale...)
	stale.AddAll(b.Stale)
	stale.RemoveAll(authored.rs)
	stale.RemoveAll(read.rs)
	out := Entry{TotalLines: a.TotalLines, Created: a.Created || b.Created, Seen: a.Seen || b.Seen,
		Read: read.Ranges(), Authored: authored.Ranges(), Stale: stale.Ranges()}
	out.Records = slices.Clone(a.Records)
	type id struct {
		t     int64
		agent string
		kind  Kind
		r     Range
	}
	idOf := func(r Record) id { return id{r.Time.UnixNano(), r.Agent, r.Kind, r.Range} }
	had := make(map[id][]Record, len(a.Records))
	for _, r := range a.Records {
		had[idOf(r)] = append(had[idOf(r)], r)
	}
	for _, r := range b.Records {
		if !slices.ContainsFunc(had[idOf(r)], r.same) {
			out.Records = append(out.Records, r)
		}
	}
	slices.SortStableFunc(out.Records, func(x, y Record) int { return x.Time.Compare(y.Time) })
	if over := len(out.Records) - maxRecords; maxRecords > 0 && over > 0 {
		out.Records = out.Records[over:]
	}
	return out
}

// same reports whether two records are one (read back from two processes'
// entries: the revision is each process's own).
func (r Record) same(o Record) bool {
	return r.Time.Equal(o.Time) && r.Agent == o.Agent && r.Kind == o.Kind && r.Range == o.Range && slices.Equal(r.Lines, o.Lines)
}
