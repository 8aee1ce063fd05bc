package ledger

// Snapshots of one (session, document) for write-behind persistence.

func (r *record) export() Record {
	return Record{Rev: r.rev, Time: r.time, Agent: r.agent, Kind: r.kind, Range: r.shown, Lines: r.lines.Ranges()}
}

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
	out := Entry{
		TotalLines: d.total,
		Created:    e.created,
		Seen:       e.seen,
		Read:       e.read.Ranges(),
		Authored:   e.authored.Ranges(),
		Stale:      e.stale.Ranges(),
	}
	for i := range e.records {
		// Records with no current lines help neither hover nor refs after a
		// restart (their revisions will be unmappable).
		if !e.records[i].lines.IsEmpty() {
			out.Records = append(out.Records, e.records[i].export())
		}
	}
	return out, true
}

// Import restores session's ledger of doc from a snapshot taken on the same
// content, now at revision rev; it replaces any entry the session has. The
// snapshot is not trusted: ranges are clamped to the document and made
// disjoint (stale over authored over read, the safe order). Records are
// restated at rev, one per run of their current lines, since the content is
// the same and older revisions cannot be mapped.
func (l *Ledger) Import(session string, doc DocKey, rev Rev, in Entry) {
	l.mu.Lock()
	var dirty dirtyList
	d := l.docFor(doc)
	if !d.shaped {
		l.shape(d, doc, rev, in.TotalLines, &dirty)
	}
	if old := d.sessions[session]; old != nil {
		delete(d.sessions, session)
		delete(l.bySession[session], doc)
	}
	e := l.entryFor(d, doc, session)
	e.created = in.Created
	clamped := func(rs []Range) RangeSet {
		var s RangeSet
		for _, r := range rs {
			s.Add(r.Clamp(d.total))
		}
		return s
	}
	e.stale = clamped(in.Stale)
	e.authored = clamped(in.Authored)
	e.authored.RemoveAll(e.stale.rs)
	e.read = clamped(in.Read)
	e.read.RemoveAll(e.authored.rs)
	e.read.RemoveAll(e.stale.rs)
	e.seen = in.Seen || in.Created || !e.read.IsEmpty() || !e.authored.IsEmpty() || !e.stale.IsEmpty()
	for _, r := range in.Records {
		kind := r.Kind
		if kind != KindAuthored {
			kind = KindRead
		}
		lines := clamped(r.Lines)
		for _, x := range lines.rs {
			e.records = append(e.records, record{rev: d.rev, time: r.Time, agent: r.Agent, kind: kind, shown: x, lines: NewRangeSet(x)})
		}
	}
	l.trimRecords(e)
	dirty.add(session, doc)
	l.unlockAndNotify(dirty)
}
