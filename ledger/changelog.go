package ledger

// The change log: how lines of older revisions map to the current text, for
// reads recorded late and for ref resolution (PROTOCOL section 7).

import (
	"sort"
)

// appendLog adds a change, dropping the oldest beyond the bound. Dropping
// from the front of the slice keeps appends amortised O(1); append
// reallocates, and releases the dropped prefix, once capacity runs out.
func (l *Ledger) appendLog(d *docState, le logEntry) {
	d.log = append(d.log, le)
	if len(d.log) <= l.maxLog {
		return
	}
	drop := len(d.log) - l.maxLog
	d.base = d.log[drop-1].ToRev
	// The rest of a dropped event's changes cannot map anything any more.
	for drop < len(d.log) && d.log[drop].ToRev <= d.base {
		drop++
	}
	d.log = d.log[drop:]
}

// firstAfter is the index of the first log entry whose ToRev > rev.
func (d *docState) firstAfter(rev Rev) int {
	return sort.Search(len(d.log), func(i int) bool { return d.log[i].ToRev > rev })
}

// totalAt is the line count at rev; false if the log does not reach rev.
func (d *docState) totalAt(rev Rev) (int, bool) {
	if rev < d.base || rev > d.rev {
		return 0, false
	}
	if i := d.firstAfter(rev); i < len(d.log) {
		return d.log[i].oldTotal, true
	}
	return d.total, true
}

// mapSince moves lines of revision rev to the current text.
func (d *docState) mapSince(rev Rev, s *RangeSet) {
	for i := d.firstAfter(rev); i < len(d.log) && !s.IsEmpty(); i++ {
		s.Shift(d.log[i].Change)
	}
}

// MapLine maps line of revision rev of doc to the current text. ok is false if
// the line was replaced since, did not exist, or rev is outside what the
// change log reaches (too old, or not yet seen).
func (l *Ledger) MapLine(doc DocKey, rev Rev, line int) (cur int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil || !d.shaped {
		return 0, false
	}
	total, ok := d.totalAt(rev)
	if !ok || line < 1 || line > total {
		return 0, false
	}
	for i := d.firstAfter(rev); i < len(d.log); i++ {
		if line, ok = d.log[i].Change.MapLine(line); !ok {
			return 0, false
		}
	}
	return line, true
}

// Source is one view the session was shown that covers a line: its
// revision, and where that line is now (OK false: changed or deleted since).
type Source struct {
	Rev  Rev
	Line int
	OK   bool
}

// Sources are the views of doc that session was shown covering line, oldest
// first, each with that line mapped to the current text: what a ref to line
// may have been copied from (PROTOCOL section 7). Views the change log no
// longer reaches are left out: nothing can be said of them.
func (l *Ledger) Sources(session string, doc DocKey, line int) []Source {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil || !d.shaped {
		return nil
	}
	e := d.sessions[session]
	if e == nil {
		return nil
	}
	var out []Source
	for i := range e.records {
		r := &e.records[i]
		if !r.shown.Contains(line) || r.rev < d.base {
			continue
		}
		cur, ok := line, true
		for k := d.firstAfter(r.rev); k < len(d.log) && ok; k++ {
			cur, ok = d.log[k].Change.MapLine(cur)
		}
		if !ok {
			cur = 0
		}
		out = append(out, Source{Rev: r.rev, Line: cur, OK: ok})
	}
	return out
}

// Shown lists what session was shown of doc, at which revision: its reads
// and the lines it wrote, oldest first. Pass them to MapLine; revisions the
// change log no longer reaches are left out.
func (l *Ledger) Shown(session string, doc DocKey) []Shown {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil {
		return nil
	}
	e := d.sessions[session]
	if e == nil {
		return nil
	}
	out := make([]Shown, 0, len(e.records))
	for i := range e.records {
		if r := &e.records[i]; r.rev >= d.base {
			out = append(out, Shown{r.rev, r.shown, r.kind, r.sums})
		}
	}
	return out
}

// Log returns doc's change log, oldest first, and the oldest revision it maps
// from.
func (l *Ledger) Log(doc DocKey) (base Rev, log []LogEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil {
		return 0, nil
	}
	log = make([]LogEntry, len(d.log))
	for i, le := range d.log {
		log[i] = le.LogEntry
	}
	return d.base, log
}
