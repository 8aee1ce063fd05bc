// Package ledger is the per-session read ledger: which lines of each document
// a session has been shown (read), has written (authored), or has seen but
// which changed since (stale), kept in step with every change of the text.
// The edit guard asks it whether a write may proceed, and ref resolution asks
// it which revisions a session was shown and where their lines are now.
//
// Lines are 1-based and inclusive throughout. The package knows nothing of
// LSP: callers pass line changes already converted and minimised.
package ledger

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Rev is a document revision, supplied by the caller and increasing with every
// content change of a document. It is an alias so that callers' int64
// revisions pass without conversion.
type Rev = int64

// DocKey names a document; the caller passes a normalised URI.
type DocKey string

// State is what a session knows of a document as a whole.
type State string

// The states, in increasing precedence.
const (
	NeverRead     State = "never_read"
	PartialRead   State = "partial_read"
	FullyRead     State = "fully_read"
	Stale         State = "stale"
	ModelAuthored State = "model_authored"
)

// Kind tells how a session came to be shown lines.
type Kind string

// The record kinds.
const (
	KindRead     Kind = "read"
	KindAuthored Kind = "authored"
	// KindWindow is lines shown as part of another answer (an edit's window,
	// fresh refs, lines an auto-expand returned): they count as read, but
	// only a read retires what older reads showed of the same lines (see
	// ref resolution).
	KindWindow Kind = "window"
)

// Defaults for zero Options.
const (
	DefaultMaxRecords   = 256
	DefaultMaxChangeLog = 1024
)

// Options configure a Ledger. Zero values get the defaults.
type Options struct {
	// MaxRecords bounds the read history per (session, document).
	MaxRecords int
	// MaxChangeLog bounds the change log per document; revisions older than
	// the log reaches can no longer be mapped to the current text.
	MaxChangeLog int
	// Now is the clock for record times.
	Now func() time.Time
	// OnDirty is told whenever a (session, document) entry changed, for
	// write-behind persistence and for refreshing editor surfaces. It is
	// called after the ledger's lock is released, so it may call back into the
	// ledger; calls from concurrent operations may arrive in any order.
	OnDirty func(session string, doc DocKey)
}

// Record is one entry of a session's history on a document: lines shown to it
// by a read, or written by it.
type Record struct {
	Rev   Rev       `json:"rev"`
	Time  time.Time `json:"time"`
	Agent string    `json:"agent,omitempty"`
	Kind  Kind      `json:"kind"`
	// Range is what was shown, in lines of revision Rev.
	Range Range `json:"range"`
	// Lines are the current lines still holding what was shown: they move
	// with the text, and lines changed since drop out.
	Lines []Range `json:"lines"`
}

// Shown is a range of lines a session was shown at one revision.
type Shown struct {
	Rev   Rev   `json:"rev"`
	Range Range `json:"range"`
	Kind  Kind  `json:"kind"`
	// Sums are the hashes (hashline.Sum) of the lines shown, Range.Start's
	// first; nil when the ledger was not told them. Shared: read only.
	Sums []uint32 `json:"-"`
}

// Sum is the hash of line of s (in the lines of revision s.Rev), if known.
func (s Shown) Sum(line int) (uint32, bool) {
	if len(s.Sums) != s.Range.Len() || !s.Range.Contains(line) {
		return 0, false
	}
	return s.Sums[line-s.Range.Start], true
}

// SumFunc gives the hash (hashline.Sum) of a line (1-based) of the text a
// record is made at: what the ledger keeps of the lines it is told were
// shown, so that a ref copied from them is checked against what was shown
// whether or not that text is kept anywhere.
type SumFunc func(line int) uint32

// DocView is a session's ledger of one document. Its slices are copies.
type DocView struct {
	Doc        DocKey   `json:"doc"`
	State      State    `json:"state"`
	TotalLines int      `json:"totalLines"`
	Rev        Rev      `json:"rev"`
	Read       []Range  `json:"read"`
	Authored   []Range  `json:"authored"`
	Stale      []Range  `json:"stale"`
	Unread     []Range  `json:"unread"`
	Records    []Record `json:"records,omitempty"` // oldest first
}

// Decision answers the edit guard's question for some target lines.
type Decision struct {
	Unread     []Range `json:"unread,omitempty"`     // target lines neither read nor authored (nor stale)
	Stale      []Range `json:"stale,omitempty"`      // target lines changed since the session saw them
	OtherStale []Range `json:"otherStale,omitempty"` // stale lines outside the targets: a warning, not a block
}

// Clear reports whether the targets may be written without reading first.
func (d Decision) Clear() bool { return len(d.Unread) == 0 && len(d.Stale) == 0 }

// Entry is a JSON-serialisable snapshot of one (session, document), for
// persistence. It describes the text as it was when exported; Import it only
// onto the same content, or Moved through the changes since.
type Entry struct {
	TotalLines int      `json:"totalLines"`
	Created    bool     `json:"created,omitempty"`
	Seen       bool     `json:"seen,omitempty"`
	Read       []Range  `json:"read,omitempty"`
	Authored   []Range  `json:"authored,omitempty"`
	Stale      []Range  `json:"stale,omitempty"`
	Records    []Record `json:"records,omitempty"`
}

// EntryKey names one (session, document) entry.
type EntryKey struct {
	Session string
	Doc     DocKey
}

// LogEntry is one change in a document's change log. Several entries may
// share a ToRev (one editor change event with several edits); they apply in
// order, and every one after the first has FromRev == ToRev.
type LogEntry struct {
	FromRev Rev    `json:"fromRev"`
	ToRev   Rev    `json:"toRev"`
	Change  Change `json:"change"`
	// Author is the session that made the change, "" for anyone else: ref
	// resolution follows an agent that renumbers by its own edits.
	Author string `json:"author,omitempty"`
	// Total is the document's line count after the change.
	Total int `json:"total"`
}

// Ledger holds the ledgers of all sessions. It is safe for concurrent use.
type Ledger struct {
	maxRecords int
	maxLog     int
	now        func() time.Time
	onDirty    func(string, DocKey)

	mu        sync.Mutex
	docs      map[DocKey]*docState
	bySession map[string]map[DocKey]*entry
	followed  int64 // the number of the last step applied (Follow)
}

// docState is what the ledger knows of one document, shared by all sessions.
type docState struct {
	// shaped is false for a document known only from MarkCreated, before
	// its line count was given.
	shaped bool
	total  int
	rev    Rev
	// base is the oldest revision the log maps from: every change after it
	// is in log.
	base     Rev
	log      []logEntry
	sessions map[string]*entry
}

type logEntry struct {
	LogEntry
	oldTotal int // line count before the change: the count at FromRev
}

// entry is one session's ledger of one document. read, authored and stale
// are disjoint.
type entry struct {
	read, authored, stale RangeSet
	created               bool
	seen                  bool // the session read or wrote something here
	records               []record
}

type record struct {
	rev   Rev
	time  time.Time
	agent string
	kind  Kind
	shown Range
	lines RangeSet
	sums  []uint32 // of the lines shown (Shown.Sums); nil when not told
}

// New returns an empty ledger.
func New(opts Options) *Ledger {
	l := &Ledger{
		maxRecords: opts.MaxRecords,
		maxLog:     opts.MaxChangeLog,
		now:        opts.Now,
		onDirty:    opts.OnDirty,
		docs:       make(map[DocKey]*docState),
		bySession:  make(map[string]map[DocKey]*entry),
	}
	if l.maxRecords <= 0 {
		l.maxRecords = DefaultMaxRecords
	}
	if l.maxLog <= 0 {
		l.maxLog = DefaultMaxChangeLog
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// dirtyList collects entries changed under the lock, to report after it.
// MaxRecords is how many records an entry keeps (Options.MaxRecords).
func (l *Ledger) MaxRecords() int { return l.maxRecords }

type dirtyList []EntryKey

func (d *dirtyList) add(session string, doc DocKey) { *d = append(*d, EntryKey{session, doc}) }

func (l *Ledger) unlockAndNotify(dirty dirtyList) {
	l.mu.Unlock()
	if l.onDirty == nil {
		return
	}
	for _, k := range dirty {
		l.onDirty(k.Session, k.Doc)
	}
}

func (l *Ledger) docFor(key DocKey) *docState {
	d := l.docs[key]
	if d == nil {
		d = &docState{sessions: make(map[string]*entry)}
		l.docs[key] = d
	}
	return d
}

func (l *Ledger) entryFor(d *docState, key DocKey, session string) *entry {
	e := d.sessions[session]
	if e == nil {
		e = &entry{}
		d.sessions[session] = e
		m := l.bySession[session]
		if m == nil {
			m = make(map[DocKey]*entry)
			l.bySession[session] = m
		}
		m[key] = e
	}
	return e
}

// shape gives a document its first line count. Sessions that created it
// before it was counted get all its lines as authored.
func (l *Ledger) shape(d *docState, key DocKey, rev Rev, total int, dirty *dirtyList) {
	d.shaped = true
	d.total, d.rev, d.base, d.log = max(total, 0), rev, rev, nil
	for s, e := range d.sessions {
		if e.created {
			l.authorAll(d, e)
			dirty.add(s, key)
		}
	}
}

// authorAll marks every current line authored (a created document).
func (l *Ledger) authorAll(d *docState, e *entry) {
	if d.total == 0 {
		return
	}
	all := Range{1, d.total}
	e.read.Clear()
	e.stale.Clear()
	e.authored.Clear()
	e.authored.Add(all)
	l.addRecord(e, record{rev: d.rev, time: l.now(), kind: KindAuthored, shown: all, lines: NewRangeSet(all)})
}

func (l *Ledger) addRecord(e *entry, r record) {
	e.records = append(e.records, r)
	l.trimRecords(e)
}

func (l *Ledger) trimRecords(e *entry) {
	if over := len(e.records) - l.maxRecords; over > 0 {
		clear(e.records[:over]) // release the dropped line sets
		e.records = e.records[over:]
	}
}

// SetTotal tells the document's line count at rev: on first sight, or when a
// new revision kept every line (only a final terminator changed). A different
// count on a known document is taken as lines cut from or added at the end;
// use ApplyChange or Replace when lines changed elsewhere.
func (l *Ledger) SetTotal(doc DocKey, rev Rev, total int) {
	l.mu.Lock()
	var dirty dirtyList
	l.setTotal(doc, rev, total, &dirty)
	l.unlockAndNotify(dirty)
}

func (l *Ledger) setTotal(doc DocKey, rev Rev, total int, dirty *dirtyList) {
	total = max(total, 0)
	d := l.docFor(doc)
	switch {
	case !d.shaped:
		l.shape(d, doc, rev, total, dirty)
	case rev > d.rev:
		// Log even an identity change, so reads at the old revision still map.
		l.apply(d, doc, d.rev, rev, tailChange(d.total, total), "", total, dirty)
	case total != d.total:
		// Same revision, different text: the log no longer describes it.
		l.apply(d, doc, d.rev, d.rev, tailChange(d.total, total), "", total, dirty)
		d.log, d.base = nil, d.rev
	}
}

// tailChange is the change that takes a text of from lines to one of to
// lines by cutting or appending at the end.
func tailChange(from, to int) Change {
	m := min(from, to)
	return Change{Start: m + 1, Old: from - m, New: to - m}
}

// ApplyChange moves every session's ledger of doc along with one change of
// its text, made by session author ("" for anyone else: the user, another
// process, the disk). The replaced lines leave every set; the new lines are
// authored for the author, stale for sessions that had seen any replaced
// line, unread for the rest. Several changes of one editor event share toRev
// and are applied in order.
//
// A change that does not fit what the ledger knows (unknown document, fromRev
// other than the current revision, lines out of range, a newTotal that does
// not add up) is handled as Replace: safe, never optimistic.
func (l *Ledger) ApplyChange(doc DocKey, fromRev, toRev Rev, ch Change, author string, newTotal int) {
	l.mu.Lock()
	var dirty dirtyList
	l.applyChange(doc, fromRev, toRev, ch, author, newTotal, &dirty)
	l.unlockAndNotify(dirty)
}

func (l *Ledger) applyChange(doc DocKey, fromRev, toRev Rev, ch Change, author string, newTotal int, dirty *dirtyList) {
	d := l.docFor(doc)
	switch {
	case !d.shaped:
		l.shape(d, doc, toRev, newTotal, dirty)
	case fromRev != d.rev || toRev < fromRev || ch.Start < 1 || ch.Old < 0 || ch.New < 0 ||
		ch.Start+ch.Old-1 > d.total || newTotal != d.total+ch.New-ch.Old:
		l.replace(d, doc, toRev, newTotal, dirty)
	default:
		l.apply(d, doc, fromRev, toRev, ch, author, newTotal, dirty)
	}
}

func (l *Ledger) apply(d *docState, key DocKey, from, to Rev, ch Change, author string, newTotal int, dirty *dirtyList) {
	if author != "" {
		l.entryFor(d, key, author).seen = true
	}
	replaced := Range{ch.Start, ch.Start + ch.Old - 1}
	added := Range{ch.Start, ch.Start + ch.New - 1}
	for s, e := range d.sessions {
		hadSeen := e.read.Overlaps(replaced) || e.authored.Overlaps(replaced) || e.stale.Overlaps(replaced)
		e.read.Shift(ch)
		e.authored.Shift(ch)
		e.stale.Shift(ch)
		for i := range e.records {
			e.records[i].lines.Shift(ch)
		}
		switch {
		case author != "" && s == author:
			if !added.Empty() {
				e.authored.Add(added)
				e.records = append(e.records, record{rev: to, time: l.now(), kind: KindAuthored, shown: added, lines: NewRangeSet(added)})
			}
		case hadSeen:
			e.stale.Add(added)
		}
		resplit(e, to)
		l.trimRecords(e)
		dirty.add(s, key)
	}
	l.appendLog(d, logEntry{LogEntry{from, to, ch, author, newTotal}, d.total})
	d.total, d.rev = newTotal, to
}

// resplit restates records made at rev in terms of the text now at rev. Only
// a later change of the same editor event (same toRev) can move such lines;
// a record whose lines it split becomes one record per piece, so that its
// Range stays exactly what the session was shown at rev.
func resplit(e *entry, rev Rev) {
	for i := 0; i < len(e.records); i++ {
		r := &e.records[i]
		if r.rev != rev {
			continue
		}
		switch n := r.lines.NumRanges(); {
		case n == 1:
			if r.lines.rs[0].Len() != r.shown.Len() {
				r.sums = nil // which lines went is not kept
			}
			r.shown = r.lines.rs[0]
		case n == 0:
			e.records = slices.Delete(e.records, i, i+1)
			i--
		default:
			parts := make([]record, n)
			for k, x := range r.lines.rs {
				parts[k] = *r
				parts[k].shown = x
				parts[k].sums = nil
				parts[k].lines = NewRangeSet(x)
			}
			e.records = slices.Replace(e.records, i, i+1, parts...)
			i += n - 1
		}
	}
}

// Replace tells that doc's content was replaced wholesale with an unknown
// diff (a reload whose old text is gone). Nothing can be mapped across it:
// the change log restarts at toRev, records keep their history but no current
// lines, and a created document stops counting as model_authored (it is no
// longer the text the session wrote). Every line becomes stale for each
// session that had seen any line, since its content may be anywhere in the
// new text; it is unread for sessions that had seen nothing.
func (l *Ledger) Replace(doc DocKey, toRev Rev, newTotal int) {
	l.mu.Lock()
	var dirty dirtyList
	l.replaceDoc(doc, toRev, newTotal, &dirty)
	l.unlockAndNotify(dirty)
}

func (l *Ledger) replaceDoc(doc DocKey, toRev Rev, newTotal int, dirty *dirtyList) {
	d := l.docFor(doc)
	if !d.shaped {
		l.shape(d, doc, toRev, newTotal, dirty)
	} else {
		l.replace(d, doc, toRev, newTotal, dirty)
	}
}

func (l *Ledger) replace(d *docState, key DocKey, toRev Rev, newTotal int, dirty *dirtyList) {
	newTotal = max(newTotal, 0)
	for s, e := range d.sessions {
		hadSeen := !e.read.IsEmpty() || !e.authored.IsEmpty() || !e.stale.IsEmpty()
		e.read.Clear()
		e.authored.Clear()
		e.stale.Clear()
		for i := range e.records {
			e.records[i].lines.Clear()
		}
		e.created = false
		if hadSeen {
			e.stale.Add(Range{1, newTotal})
		}
		dirty.add(s, key)
	}
	d.total, d.rev, d.base, d.log = newTotal, toRev, toRev, nil
}

// RecordRead records that session was shown lines r of doc at revision rev.
// r is clamped to the document; if rev is older than the current revision,
// the lines are mapped through the change log and lines changed since do not
// count. A revision the ledger has not seen yet is taken as the current one,
// so callers must apply changes before showing the new text. The lines join
// `read` (authored lines stay authored) and leave `stale`. Reading an empty
// document counts as reading all of it.
func (l *Ledger) RecordRead(session, agent string, doc DocKey, rev Rev, r Range) {
	l.record(KindRead, session, agent, doc, rev, r, nil)
}

// RecordWindow records lines shown as part of another answer (KindWindow),
// as RecordRead does.
func (l *Ledger) RecordWindow(session, agent string, doc DocKey, rev Rev, r Range) {
	l.record(KindWindow, session, agent, doc, rev, r, nil)
}

// RecordAuthored records that session wrote lines r of doc at revision rev
// (as RecordRead for clamping and mapping). ApplyChange already marks the
// author's lines; this adds the agent, or marks lines written some other way.
func (l *Ledger) RecordAuthored(session, agent string, doc DocKey, rev Rev, r Range) {
	l.record(KindAuthored, session, agent, doc, rev, r, nil)
}

// RecordShown records lines r of doc shown at revision rev as kind (read,
// window or authored, as RecordRead, RecordWindow and RecordAuthored do),
// and keeps the hashes sum gives of the lines shown (called for each, under
// the ledger's lock: it must not call the ledger).
func (l *Ledger) RecordShown(kind Kind, session, agent string, doc DocKey, rev Rev, r Range, sum SumFunc) {
	l.record(kind, session, agent, doc, rev, r, sum)
}

// RecordShownRanges records the ranges rs of doc shown by one answer (an
// outline's signature lines), as RecordShown does each, under one lock:
// an answer that shows hundreds of lines apart costs one pass over the
// entry's records, not one per range.
func (l *Ledger) RecordShownRanges(kind Kind, session, agent string, doc DocKey, rev Rev, rs []Range, sum SumFunc) {
	l.mu.Lock()
	var dirty dirtyList
	// Each entry told of once, not once per range.
	defer func() { slices.SortFunc(dirty, compareEntryKeys); l.unlockAndNotify(slices.Compact(dirty)) }()
	var seen map[recordKey]bool
	if d := l.docFor(doc); d.shaped && sum != nil {
		// The records shown again are dropped in one pass (their hashes
		// are taken again): none is left to look for.
		seen = map[recordKey]bool{}
		if e := d.sessions[session]; e != nil {
			again := make(map[recordKey]bool, len(rs))
			for _, r := range rs {
				again[recordKey{min(rev, d.rev), kind, agent, r}] = true
			}
			e.records = slices.DeleteFunc(e.records, func(o record) bool { return again[recordKey{o.rev, o.kind, o.agent, o.shown}] })
		}
	}
	for _, r := range rs {
		l.recordLocked(kind, session, agent, doc, rev, r, sum, &dirty, seen)
	}
}

func compareEntryKeys(a, b EntryKey) int {
	if c := strings.Compare(a.Session, b.Session); c != 0 {
		return c
	}
	return strings.Compare(string(a.Doc), string(b.Doc))
}

// recordKey is what makes two records the same record seen again.
type recordKey struct {
	rev   Rev
	kind  Kind
	agent string
	shown Range
}

func (l *Ledger) record(kind Kind, session, agent string, key DocKey, rev Rev, r Range, sum SumFunc) {
	l.mu.Lock()
	var dirty dirtyList
	defer func() { l.unlockAndNotify(dirty) }()
	l.recordLocked(kind, session, agent, key, rev, r, sum, &dirty, nil)
}

// recordLocked is record under the ledger's lock. seen, when not nil, holds
// the keys of the entry's records that may be shown again, so a record
// not among them is not looked for.
func (l *Ledger) recordLocked(kind Kind, session, agent string, key DocKey, rev Rev, r Range, sum SumFunc, dirtyp *dirtyList, seen map[recordKey]bool) {
	dirty := *dirtyp
	defer func() { *dirtyp = dirty }()
	d := l.docFor(key)
	if !d.shaped {
		// Never counted: the document has at least the lines shown.
		l.shape(d, key, rev, max(r.End, 0), &dirty)
	}
	if rev > d.rev {
		sum = nil // the hashes are of a text the ledger has not seen
	}
	rev = min(rev, d.rev)
	totalAt, mappable := d.totalAt(rev)
	shown := Range{max(r.Start, 1), r.End}
	if mappable {
		shown = r.Clamp(totalAt)
	}
	if shown.Empty() {
		if mappable && totalAt == 0 {
			l.entryFor(d, key, session).seen = true
			dirty.add(session, key)
		}
		return
	}
	lines := NewRangeSet(shown)
	if mappable {
		d.mapSince(rev, &lines)
	} else {
		lines.Clear()
	}
	e := l.entryFor(d, key, session)
	e.seen = true
	for _, x := range lines.rs {
		e.stale.Remove(x)
		if kind == KindAuthored {
			e.read.Remove(x)
			e.authored.Add(x)
		} else {
			e.read.AddAll(e.authored.Missing(x))
		}
	}
	dirty.add(session, key)
	var sums []uint32
	if sum != nil {
		sums = make([]uint32, 0, shown.Len())
		for i := shown.Start; i <= shown.End; i++ {
			sums = append(sums, sum(i))
		}
	}
	// ApplyChange already recorded the author's lines without an agent: name it.
	if n := len(e.records); kind == KindAuthored && n > 0 {
		if last := &e.records[n-1]; last.kind == KindAuthored && last.rev == rev && last.shown == shown && last.agent == "" {
			last.agent = agent
			if sums != nil {
				last.sums = sums
			}
			return
		}
	}
	// The same lines of the same text shown again, as the same kind, to
	// the same agent, are the record seen again: it moves to the end with
	// its new time (and keeps its hashes), rather than pushing the
	// session's other records out of the bounded history.
	if seen != nil && !seen[recordKey{rev, kind, agent, shown}] {
		// Never shown before: nothing to move.
	} else if i := slices.IndexFunc(e.records, func(o record) bool {
		return o.rev == rev && o.kind == kind && o.agent == agent && o.shown == shown
	}); i >= 0 {
		if sums == nil {
			sums = e.records[i].sums
		}
		e.records = slices.Delete(e.records, i, i+1)
	}
	l.addRecord(e, record{rev: rev, time: l.now(), agent: agent, kind: kind, shown: shown, lines: lines, sums: sums})
}

// MarkCreated records that session created doc: it is model_authored for the
// session, and all its current lines are authored (if it has not been counted
// yet, all its lines once it is).
func (l *Ledger) MarkCreated(session string, doc DocKey) {
	l.mu.Lock()
	var dirty dirtyList
	d := l.docFor(doc)
	e := l.entryFor(d, doc, session)
	e.created, e.seen = true, true
	if d.shaped {
		l.authorAll(d, e)
	}
	dirty.add(session, doc)
	l.unlockAndNotify(dirty)
}

// DocInfo returns what the ledger knows of doc's text: its line count and
// current revision.
func (l *Ledger) DocInfo(doc DocKey) (total int, rev Rev, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.docs[doc]
	if d == nil || !d.shaped {
		return 0, 0, false
	}
	return d.total, d.rev, true
}

// ResetSession forgets everything session read and wrote.
func (l *Ledger) ResetSession(session string) {
	l.mu.Lock()
	var dirty dirtyList
	for key := range l.bySession[session] {
		if d := l.docs[key]; d != nil {
			delete(d.sessions, session)
			if !d.shaped && len(d.sessions) == 0 {
				delete(l.docs, key)
			}
		}
		dirty.add(session, key)
	}
	delete(l.bySession, session)
	l.unlockAndNotify(dirty)
}

// Forget drops doc and every session's ledger of it (the file was deleted).
func (l *Ledger) Forget(doc DocKey) {
	l.mu.Lock()
	var dirty dirtyList
	if d := l.docs[doc]; d != nil {
		for s := range d.sessions {
			if m := l.bySession[s]; m != nil {
				delete(m, doc)
				if len(m) == 0 {
					delete(l.bySession, s)
				}
			}
			dirty.add(s, doc)
		}
		delete(l.docs, doc)
	}
	l.unlockAndNotify(dirty)
}
