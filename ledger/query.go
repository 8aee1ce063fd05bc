package ledger

// Queries: views of a session's ledger and the edit guard's question.

import "slices"

// state applies the precedence of PROTOCOL section 3.
func (e *entry) state(total int) State {
	switch {
	case e.created:
		return ModelAuthored
	case !e.stale.IsEmpty():
		return Stale
	case e.seen && e.read.Len()+e.authored.Len() >= total:
		return FullyRead
	case e.seen:
		return PartialRead
	}
	return NeverRead
}

// Doc returns session's ledger of doc. A document the session never touched
// is never_read, all unread.
func (l *Ledger) Doc(session string, doc DocKey) DocView {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil {
		return DocView{Doc: doc, State: NeverRead, Read: []Range{}, Authored: []Range{}, Stale: []Range{}, Unread: []Range{}}
	}
	return l.view(doc, d, d.sessions[session])
}

func (l *Ledger) view(key DocKey, d *docState, e *entry) DocView {
	v := DocView{Doc: key, State: NeverRead, TotalLines: d.total, Rev: d.rev}
	if e == nil {
		v.Read, v.Authored, v.Stale, v.Unread = []Range{}, []Range{}, []Range{}, []Range{}
		if d.total > 0 {
			v.Unread = []Range{{1, d.total}}
		}
		return v
	}
	v.State = e.state(d.total)
	v.Read = e.read.Ranges()
	v.Authored = e.authored.Ranges()
	v.Stale = e.stale.Ranges()
	v.Unread = gaps(d.total, &e.read, &e.authored, &e.stale)
	if len(e.records) > 0 {
		// One backing array for all records' lines: one allocation, not one
		// per record. Capped subslices keep an append by the caller from
		// running into the next record's lines.
		n := 0
		for i := range e.records {
			n += e.records[i].lines.NumRanges()
		}
		buf := make([]Range, 0, n)
		v.Records = make([]Record, len(e.records))
		for i := range e.records {
			r := &e.records[i]
			a := len(buf)
			buf = append(buf, r.lines.rs...)
			v.Records[i] = Record{Rev: r.rev, Time: r.time, Agent: r.agent, Kind: r.kind, Range: r.shown, Lines: buf[a:len(buf):len(buf)]}
		}
	}
	return v
}

// Summary is a session's ledger of one document in numbers: what a code lens
// or a status line needs, in constant time however fragmented the ranges.
type Summary struct {
	State         State `json:"state"`
	TotalLines    int   `json:"totalLines"`
	ReadLines     int   `json:"readLines"`
	AuthoredLines int   `json:"authoredLines"`
	StaleLines    int   `json:"staleLines"`
	StaleRanges   int   `json:"staleRanges"`
	UnreadLines   int   `json:"unreadLines"`
}

// Summarize returns session's ledger of doc in numbers, without copying ranges.
func (l *Ledger) Summarize(session string, doc DocKey) Summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil {
		return Summary{State: NeverRead}
	}
	e := d.sessions[session]
	if e == nil {
		return Summary{State: NeverRead, TotalLines: d.total, UnreadLines: d.total}
	}
	return Summary{
		State:         e.state(d.total),
		TotalLines:    d.total,
		ReadLines:     e.read.Len(),
		AuthoredLines: e.authored.Len(),
		StaleLines:    e.stale.Len(),
		StaleRanges:   e.stale.NumRanges(),
		UnreadLines:   d.total - e.read.Len() - e.authored.Len() - e.stale.Len(),
	}
}

// Docs returns session's ledger of every document it touched, sorted by key.
func (l *Ledger) Docs(session string) []DocView {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.bySession[session]
	keys := make([]DocKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]DocView, len(keys))
	for i, k := range keys {
		out[i] = l.view(k, l.docs[k], m[k])
	}
	return out
}

// Sessions returns the sessions that touched doc, sorted.
func (l *Ledger) Sessions(doc DocKey) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil {
		return nil
	}
	out := make([]string, 0, len(d.sessions))
	for s := range d.sessions {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Check answers the edit guard for writing targets of doc: which target lines
// the session has not read or written, which changed since it saw them, and
// which other lines changed since. Targets are clamped to the document. A
// document the session created is always clear.
func (l *Ledger) Check(session string, doc DocKey, targets []Range) Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	var e *entry
	if d != nil {
		e = d.sessions[session]
	}
	if e != nil && e.created {
		return Decision{}
	}
	var ts RangeSet
	for _, t := range targets {
		if d != nil && d.shaped {
			t = t.Clamp(d.total)
		} else {
			t.Start = max(t.Start, 1) // unknown length: assume the lines exist
		}
		ts.Add(t)
	}
	var dec Decision
	if e == nil {
		dec.Unread = ts.Ranges()
		return dec
	}
	var known RangeSet
	for _, t := range ts.rs {
		dec.Stale = append(dec.Stale, e.stale.Intersect(t)...)
		known.Clear()
		known.AddAll(e.read.Intersect(t))
		known.AddAll(e.authored.Intersect(t))
		known.AddAll(e.stale.Intersect(t))
		dec.Unread = append(dec.Unread, known.Missing(t)...)
	}
	for _, s := range e.stale.rs {
		dec.OtherStale = append(dec.OtherStale, ts.Missing(s)...)
	}
	return dec
}

// Entries lists every (session, document) entry, sorted, for flushing.
func (l *Ledger) Entries() []EntryKey {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []EntryKey
	for s, m := range l.bySession {
		for k := range m {
			out = append(out, EntryKey{s, k})
		}
	}
	slices.SortFunc(out, func(a, b EntryKey) int {
		if a.Session != b.Session {
			if a.Session < b.Session {
				return -1
			}
			return 1
		}
		switch {
		case a.Doc < b.Doc:
			return -1
		case a.Doc > b.Doc:
			return 1
		}
		return 0
	})
	return out
}
