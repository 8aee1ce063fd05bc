// Package statedb keeps the in-memory ledger and its database in step: it
// restores a document's persisted reads the first time the document is seen
// (that document's entries only, loaded then), and writes changed entries
// behind, off the request path. A document whose
// bytes changed since (edited while no sightline process watched it) is
// diffed line by line against the line hashes kept with each entry, and its
// reads are moved through the changes, as the server does for didChange.
package statedb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/linediff"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// Sync connects one ledger to one database.
type Sync struct {
	db  *store.DB
	l   *ledger.Ledger
	ws  *workspace.Workspace
	log *zap.Logger

	mu sync.Mutex
	// seen are the documents whose entries were restored or are being
	// restored: the channel is closed once the restore is done, so a
	// second caller waits for the first instead of deciding without them.
	seen  map[workspace.Key]chan struct{}
	dirty map[key]struct{}
	// saved is each entry as the database holds it (restored or written by
	// this process): a dirty entry that encodes the same is not written
	// again, so a process that only looks (sightline ledger) writes nothing.
	saved map[key]savedEntry
	// inDB is each entry's bytes as this process last read them from the
	// database or wrote them there: a flush that finds others merges with
	// them (another process wrote the entry since; see merge).
	inDB map[key]savedEntry
	// views describe documents the ledger knows that the workspace does not
	// hold (a CLI range read: see RestoreView); stats are the file stats to
	// save, the last one of each document.
	views    map[workspace.Key]View
	stats    map[string]store.FileStat
	notice   string // the database was recovered at open ("" if not)
	flushErr error  // the last write-behind's failure, nil once one succeeds
	// replaced says the database file was deleted or replaced while open,
	// and when that was noticed: said in answers for replacedTold.
	replaced   string
	replacedAt time.Time
	// served, when not nil, are the sessions whose entries restores import
	// (OnlyServed); restored keeps how each document was restored, so a
	// session served later is restored then. A session's entry of a
	// document is known here when both are.
	served   map[string]bool
	restored map[workspace.Key]restoreArgs
	// views' revisions: a view's entries are taken in at it (Refresh).
	viewRevs map[workspace.Key]int64

	// refreshMu orders Refresh and the flush's moves of mark, where this
	// process stands in the entries others write (store.Mark).
	refreshMu sync.Mutex
	mark      store.Mark
	watching  bool // Watch was called: Refresh takes changes in
	// later are the entries not taken in yet: the document was changing
	// (see takeIn); tried again at the next Refresh.
	later map[key]store.Entry
	// kick asks Run's write-behind to write now (Kick), not at its next
	// tick: holds one request, so requests made meanwhile make one write.
	kick chan struct{}
	// flushMu makes flushes one at a time: a flush takes the dirty entries
	// before it writes them, so a second flush (Close's) that did not wait
	// for the first would find nothing to write and close the database
	// under the first one's write, which would then be lost.
	flushMu sync.Mutex
}

// restoreArgs is what a document's restore was given.
type restoreArgs struct {
	rev        int64
	fileHash   func() string
	lineHashes func() []uint32
	sum        ledger.SumFunc
}

// OnlyServed makes restores import the entries of the sessions served
// (Serve), not those of every session that ever read the document: a
// process of one call needs its own session's, and entries do not expire,
// so every other one would cost each command that reads the file. The
// others stay as the database holds them, and follow the changes made
// meanwhile when a process of their session restores them, by the line
// hashes of both texts (as after a change made while no sightline ran).
func (s *Sync) OnlyServed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.served == nil {
		s.served, s.restored = map[string]bool{}, map[workspace.Key]restoreArgs{}
	}
}

// Serve restores session's entries from now on (OnlyServed), and those of
// the documents restored before, at once: a call serves its session before
// it records anything. It does nothing when every session is restored.
func (s *Sync) Serve(session string) {
	s.mu.Lock()
	if s.served == nil || s.served[session] {
		s.mu.Unlock()
		return
	}
	s.served[session] = true
	docs := maps.Clone(s.restored)
	s.mu.Unlock()
	for k, a := range docs {
		s.importEntries(k, a, session)
	}
}

// replacedTold is how long answers say that the database was replaced.
const replacedTold = 10 * time.Minute

// Replaced says that the database file was deleted or replaced while this
// process had it open, for a while after it was noticed; else "".
func (s *Sync) Replaced() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replaced == "" || time.Since(s.replacedAt) > replacedTold {
		return ""
	}
	return s.replaced
}

// checkFile notices the database file deleted or replaced under this
// process and opens the one now at its path (creating it if none), so that
// what is written from now on is kept; what the lost file held is gone.
func (s *Sync) checkFile() {
	if !s.db.Replaced() {
		return
	}
	msg := fmt.Sprintf("The state database %s was deleted or replaced while sightline had it open: the history, audit and saved reads it held are gone. A new database was opened at that path; what is recorded from now on is kept.", s.db.Path())
	if err := s.db.Reopen(); err != nil {
		msg = fmt.Sprintf("The state database %s was deleted or replaced while sightline had it open, and a new one could not be opened (%v): the history, audit and reads recorded are lost when this process stops. Make the state folder usable, then restart the language server.", s.db.Path(), err)
	}
	s.log.Error("state database replaced", zap.String("path", s.db.Path()), zap.String("message", msg))
	s.mu.Lock()
	s.replaced, s.replacedAt = msg, time.Now()
	s.mu.Unlock()
}

// Notice says what was done to open the database (a corrupt one recreated),
// or "".
func (s *Sync) Notice() string { return s.notice }

// Err returns why the last write to the database failed, or nil if it
// succeeded: reads recorded since are in memory only.
func (s *Sync) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushErr
}

func (s *Sync) setErr(err error) {
	s.mu.Lock()
	s.flushErr = err
	s.mu.Unlock()
}

// View is what the database needs of a document's text when no snapshot of
// it is held: its file hash, its line count and its packed line hashes (nil
// when the database keeps them already, under the file hash).
type View struct {
	FileHash   string
	TotalLines int
	LineHashes []byte
}

// restoreTimeout bounds the query for a document's entries, made the first
// time the document is seen (a second caller waits as long for it).
const restoreTimeout = 2 * time.Second

type key struct {
	session string
	doc     workspace.Key
}

type savedEntry struct {
	fileHash string
	data     []byte
}

// Open opens the database in dir. Entries are loaded per document when the
// document is first seen: a process that touches one file (a CLI call) does
// not pay for every file the workspace's sessions ever read. A corrupt
// database is moved aside and recreated with the entries that could still be
// read; Notice then says so. A locked one fails with store.ErrLocked.
func Open(ctx context.Context, dir string, log *zap.Logger) (*Sync, error) {
	db, err := store.Open(dir)
	notice := ""
	if errors.Is(err, store.ErrCorrupt) {
		log.Error("ledger database corrupt; moving it aside", zap.String("dir", dir), zap.Error(err))
		var aside string
		var kept int
		db, aside, kept, err = store.Recover(dir)
		if err == nil {
			notice = fmt.Sprintf("The ledger database in %s was corrupt: it was moved to %s and a new one created, keeping the %d saved document entries that could still be read.", dir, filepath.Base(aside), kept)
		}
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, fmt.Errorf("statedb: %w", err)
	}
	return &Sync{db: db, log: log, notice: notice, seen: make(map[workspace.Key]chan struct{}), dirty: make(map[key]struct{}), saved: make(map[key]savedEntry), inDB: make(map[key]savedEntry), views: make(map[workspace.Key]View), viewRevs: make(map[workspace.Key]int64), kick: make(chan struct{}, 1)}, nil
}

// Attach binds the ledger and workspace (they are built after the database,
// since their hooks call into it).
func (s *Sync) Attach(l *ledger.Ledger, ws *workspace.Workspace) {
	s.mu.Lock()
	s.l, s.ws = l, ws
	s.mu.Unlock()
}

// DB returns the database (audit log and later features share it).
func (s *Sync) DB() *store.DB { return s.db }

// MarkDirty notes that a (session, document) entry changed.
func (s *Sync) MarkDirty(session string, doc workspace.Key) {
	s.mu.Lock()
	s.dirty[key{session, doc}] = struct{}{}
	s.mu.Unlock()
}

// Restore brings back the persisted reads of a document seen for the first
// time. An entry of the same bytes is imported as it is; one of other bytes
// is moved through the line diff between its text and the document's (its
// changed lines stale, inserted ones unread). An entry without line hashes
// (written by an older sightline) is dropped when the bytes changed. sum,
// when not nil, gives the hashes of the document's lines, kept with the
// records restated (ledger.ImportShown): a process that lives on checks
// refs against them once this text is no longer kept; a process of one
// call need not compute them.
func (s *Sync) Restore(d workspace.Doc, sum ledger.SumFunc) {
	s.restore(d.Key, d.Rev, d.FileHash, func() []uint32 { return unpackHashesOf(d.Snap) }, sum)
}

// RestoreView is Restore for a document the workspace does not hold, known
// by its View (the CLI's range read streams a file without building it).
// The view is kept so Flush can write the document's entries.
func (s *Sync) RestoreView(k workspace.Key, rev int64, v View) {
	s.mu.Lock()
	s.views[k], s.viewRevs[k] = v, rev
	s.mu.Unlock()
	s.restore(k, rev, func() string { return v.FileHash }, func() []uint32 {
		ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
		defer cancel()
		cur, _ := s.viewHashes(ctx, k, v)
		return cur
	}, viewSum(v))
}

// viewHashes are the line hashes of a view's text: those it holds, else
// those kept of its text; ok is false when neither are its lines'.
func (s *Sync) viewHashes(ctx context.Context, k workspace.Key, v View) ([]uint32, bool) {
	b := v.LineHashes
	if b == nil {
		var err error
		if b, err = s.storedLineHashes(ctx, v.FileHash); err != nil {
			s.log.Warn("line hashes unreadable", zap.String("doc", string(k)), zap.Error(err))
		}
	}
	return unpackHashes(b, v.TotalLines)
}

// Since compares a text of document k (file hash h; its line hashes, cur,
// computed only when needed) with the view a range read in this process
// left of it (RestoreView), as a process restoring that read from the
// database compares them: had says there is such a view; same that it is
// of the same text; else chs are the changes that take the view's lines to
// these (ok false when the line hashes of either are not known: nothing
// maps).
func (s *Sync) Since(ctx context.Context, k workspace.Key, h string, cur func() []uint32) (had, same bool, chs []ledger.Change, ok bool) {
	s.mu.Lock()
	v, had := s.views[k]
	s.mu.Unlock()
	if !had || v.FileHash == h {
		return had, had, nil, had
	}
	old, ok := s.viewHashes(ctx, k, v)
	now := cur()
	if !ok || now == nil {
		return true, false, nil, false
	}
	return true, false, changes(linediff.Diff(old, now)), true
}

// StoredLineHashes returns the line hashes of a text of n lines seen
// before (kept with entries or file stats, or computed from the history's
// copy of it); nil when none are kept.
func (s *Sync) StoredLineHashes(ctx context.Context, fileHash string, n int) []uint32 {
	b, err := s.storedLineHashes(ctx, fileHash)
	if err != nil {
		s.log.Warn("line hashes unreadable", zap.String("file", fileHash), zap.Error(err))
	}
	out, _ := unpackHashes(b, n)
	return out
}

// LineHashes returns the line hashes of a text, as views and entries keep
// them.
func LineHashes(snap *textdoc.Snapshot) []uint32 { return unpackHashesOf(snap) }

// UnpackLineHashes reads the packed line hashes of a text of n lines (nil
// unless they are exactly that).
func UnpackLineHashes(b []byte, n int) []uint32 {
	out, _ := unpackHashes(b, n)
	return out
}

// viewSum gives the hashes of a view's lines when it holds them (a range
// read that scanned the whole file), else nil: they are not looked up for
// it (a range read of a file seen before reads only its lines).
func viewSum(v View) ledger.SumFunc {
	if len(v.LineHashes) != v.TotalLines*hashSize {
		return nil
	}
	return func(line int) uint32 { return packedHash(v.LineHashes, line-1) }
}

// SaveStat queues a file stat row, written with the next flush.
func (s *Sync) SaveStat(f store.FileStat) {
	s.mu.Lock()
	s.queueStat(f)
	s.mu.Unlock()
}

// queueStat queues f as its document's row; s.mu is held.
func (s *Sync) queueStat(f store.FileStat) {
	if s.stats == nil {
		s.stats = make(map[string]store.FileStat)
	}
	s.stats[f.Doc] = f
}

// FileStat returns the saved stat row of a document, if any: the last one
// queued (SaveStat) when it is not written yet.
func (s *Sync) FileStat(ctx context.Context, k workspace.Key) (store.FileStat, bool, error) {
	s.mu.Lock()
	f, queued := s.stats[string(k)]
	s.mu.Unlock()
	if queued {
		f.LineHashes = nil // as the database gives it (see store.FileStat)
		return f, true, nil
	}
	return s.db.FileStat(ctx, string(k))
}

func (s *Sync) restore(k workspace.Key, rev int64, fileHash func() string, lineHashes func() []uint32, sum ledger.SumFunc) {
	s.mu.Lock()
	flight, started := s.seen[k]
	if !started {
		flight = make(chan struct{})
		s.seen[k] = flight
	}
	l := s.l
	s.mu.Unlock()
	if started {
		select { // bounded: the restore's own queries are
		case <-flight:
		case <-time.After(2 * restoreTimeout):
		}
		return
	}
	defer close(flight)
	if l == nil {
		return
	}
	a := restoreArgs{rev, fileHash, lineHashes, sum}
	s.mu.Lock()
	only := s.served != nil
	var sessions []string // none: every session's
	if only {
		s.restored[k] = a
		sessions = slices.Collect(maps.Keys(s.served))
	}
	s.mu.Unlock()
	if !only || len(sessions) > 0 {
		s.importEntries(k, a, sessions...)
	}
}

// importEntries imports the entries of document k the database holds, of
// sessions (none: every session's), restated at a.rev.
func (s *Sync) importEntries(k workspace.Key, a restoreArgs, sessions ...string) {
	s.mu.Lock()
	l := s.l
	s.mu.Unlock()
	rev, fileHash, lineHashes, sum := a.rev, a.fileHash, a.lineHashes, a.sum
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	entries, err := s.db.DocEntries(ctx, string(k), sessions...)
	if err != nil {
		s.log.Warn("persisted ledger entries unreadable; the document starts unread", zap.String("doc", string(k)), zap.Error(err))
		return
	}
	if len(entries) == 0 {
		return
	}
	h := fileHash()
	var cur []uint32 // the document's line hashes, computed once if needed
	for _, e := range entries {
		s.mu.Lock()
		s.inDB[key{e.Session, k}] = savedEntry{e.FileHash, e.Data}
		s.mu.Unlock()
		le, err := decodeEntry(e.Data)
		if err != nil {
			s.log.Warn("persisted ledger entry unreadable", zap.String("doc", e.Doc), zap.Error(err))
			continue
		}
		if e.FileHash == h {
			l.ImportShown(e.Session, ledger.DocKey(k), rev, le, sum)
			s.noteSaved(l, key{e.Session, k}, rev, h)
			continue
		}
		// Another text: its line hashes say what moved where.
		b, err := s.storedLineHashes(ctx, e.FileHash)
		if err != nil {
			s.log.Warn("line hashes unreadable", zap.String("doc", e.Doc), zap.Error(err))
		}
		old, ok := unpackHashes(b, le.TotalLines)
		if !ok {
			continue
		}
		if cur == nil {
			cur = lineHashes()
		}
		if len(cur) == 0 {
			continue // the view has none: the safe answer is unread
		}
		le = le.Moved(changes(linediff.Diff(old, cur)), len(cur))
		l.ImportShown(e.Session, ledger.DocKey(k), rev, le, sum)
	}
}

// noteSaved notes an entry restored as the database holds it: its export
// now is what a flush finds unchanged. Not when the document moved past
// rev meanwhile (Import then moved the entry through the edits): that
// entry differs from the database's and is written.
func (s *Sync) noteSaved(l *ledger.Ledger, k key, rev int64, fileHash string) {
	doc := ledger.DocKey(k.doc)
	if _, at, ok := l.DocInfo(doc); !ok || at != rev {
		return
	}
	e, ok := l.Export(k.session, doc)
	if !ok {
		return
	}
	if _, at, ok := l.DocInfo(doc); !ok || at != rev {
		return
	}
	data, err := e.MarshalBinary()
	if err != nil {
		return
	}
	s.mu.Lock()
	s.saved[k] = savedEntry{fileHash, data}
	s.mu.Unlock()
}

// unchanged reports whether the database holds entry k as encoded.
func (s *Sync) unchanged(k key, fileHash string, data []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.saved[k]
	return ok && v.fileHash == fileHash && bytes.Equal(v.data, data)
}

// storedLineHashes returns the packed line hashes of a text seen before:
// kept with the entries, or computed from the history's copy of the text;
// nil when neither has it.
func (s *Sync) storedLineHashes(ctx context.Context, fileHash string) ([]byte, error) {
	b, err := s.db.LineHashes(ctx, fileHash)
	if err != nil || b != nil {
		return b, err
	}
	text, ok, err := s.db.BlobText(ctx, fileHash)
	if err != nil || !ok {
		return nil, err
	}
	return lineHashes(textdoc.New(string(text))), nil
}

// kept reports whether storedLineHashes can answer for a text.
func (s *Sync) kept(ctx context.Context, fileHash string) bool {
	if ok, err := s.db.HasLineHashes(ctx, fileHash); err == nil && ok {
		return true
	}
	ok, err := s.db.HasBlob(ctx, fileHash)
	return err == nil && ok
}

// changes turns diff hunks into ledger changes applied one after another:
// when a hunk applies, the ones before it already have, so it starts at its
// line of the new text.
func changes(hs []linediff.Hunk) []ledger.Change {
	out := make([]ledger.Change, len(hs))
	for i, h := range hs {
		out[i] = ledger.Change{Start: h.B + 1, Old: h.Del, New: h.Ins}
	}
	return out
}

// hashSize is the bytes kept per line: the 24 bits of the line's CRC-32 that
// its hashline hash is made of (hashline.Sum), so a line compares as refs
// do; a changed line passes for unchanged with odds of 1 in 2^24.
const hashSize = 3

// lineHashes packs the line hashes of a text, hashSize bytes a line, little
// endian: the blob persisted with each entry.
func lineHashes(s *textdoc.Snapshot) []byte {
	out := make([]byte, 0, s.LineCount()*hashSize)
	for i, l := range s.Lines(0, s.LineCount()) {
		out = AppendLineHash(out, i, l.Content)
	}
	return out
}

// AppendLineHash appends the packed hash of 0-based line i with content c:
// how a View's LineHashes are built by a reader that streams the text.
func AppendLineHash(dst []byte, i int, c string) []byte {
	v := hashline.LineSum(i+1, c)
	return append(dst, byte(v), byte(v>>8), byte(v>>16))
}

// unpackHashes reads a blob of lineHashes; ok is false unless it holds
// exactly n lines (entries of older versions hold none).
func unpackHashes(b []byte, n int) ([]uint32, bool) {
	if len(b) != n*hashSize {
		return nil, false
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = packedHash(b, i)
	}
	return out, true
}

// packedHash is the hash of 0-based line i in a blob of lineHashes.
func packedHash(b []byte, i int) uint32 {
	p := b[i*hashSize:]
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16
}

// unpackHashesOf is the line hashes of a text, as unpackHashes reads them
// from its lineHashes (computed as they are, not packed first).
func unpackHashesOf(s *textdoc.Snapshot) []uint32 {
	out := make([]uint32, 0, s.LineCount())
	for i, l := range s.Lines(0, s.LineCount()) {
		out = append(out, hashline.LineSum(i+1, l.Content))
	}
	return out
}

// Run flushes every interval, and when kicked (Kick), until ctx ends.
func (s *Sync) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.kick:
		}
		s.safeFlush(ctx)
	}
}

// Kick asks Run to write what changed now rather than at its next tick:
// after an answer, so that the other processes (a command on disk, a hook)
// find what it showed in the database a few milliseconds later, not up to
// an interval later. It never waits.
func (s *Sync) Kick() {
	select {
	case s.kick <- struct{}{}:
	default: // one is pending: it writes this call's too
	}
}

// safeFlush flushes, logging errors and panics: the write-behind loop must
// outlive a bad entry.
func (s *Sync) safeFlush(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in ledger write-behind", zap.Any("panic", r))
		}
	}()
	if err := s.Flush(ctx); err != nil {
		s.log.Error("ledger write-behind", zap.Error(err))
	}
}

// Flush writes the dirty entries in one transaction, each with the file hash
// of its document's current content.
func (s *Sync) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.checkFile()
	err := s.flush(ctx)
	s.setErr(err)
	return err
}

func (s *Sync) flush(ctx context.Context) error {
	s.mu.Lock()
	dirty := s.dirty
	s.dirty = make(map[key]struct{})
	stats := s.stats
	s.stats = nil
	l, ws := s.l, s.ws
	for k := range dirty {
		// A session's entry of a document restored without it (not
		// served: see Serve) is not known here; writing what this process
		// recorded would replace it. Unread is the safe answer.
		if _, restored := s.restored[k.doc]; restored && !s.served[k.session] {
			delete(dirty, k)
			s.log.Error("a session's ledger entry was changed without being restored; not written", zap.String("session", k.session), zap.String("doc", string(k.doc)))
		}
	}
	s.mu.Unlock()
	for doc, f := range stats {
		if err := s.db.PutFileStat(ctx, f); err != nil {
			s.mu.Lock()
			for doc, f := range stats { // those not written, unless a later one is queued
				if _, later := s.stats[doc]; !later {
					s.queueStat(f)
				}
			}
			s.mu.Unlock()
			s.requeue(dirty)
			return fmt.Errorf("statedb: %w", err)
		}
		delete(stats, doc)
	}
	if len(dirty) == 0 || l == nil {
		return nil
	}
	hashes := map[workspace.Key]View{}
	var puts []store.Entry
	var dels []key
	for k := range dirty {
		e, has := l.Export(k.session, ledger.DocKey(k.doc))
		h, seen := hashes[k.doc]
		if !seen && has {
			h, seen = s.view(ctx, ws, k.doc)
			hashes[k.doc] = h
		}
		if !seen || !has {
			dels = append(dels, k)
			continue
		}
		data, err := e.MarshalBinary()
		if err != nil {
			return fmt.Errorf("statedb: encode entry: %w", err)
		}
		if h.LineHashes == nil && s.unchanged(k, h.FileHash, data) {
			continue
		}
		puts = append(puts, store.Entry{Session: k.session, Doc: string(k.doc), FileHash: h.FileHash, TotalLines: h.TotalLines, Data: data, LineHashes: h.LineHashes})
	}
	if len(puts) > 0 {
		written := slices.Clone(puts) // merged in place (PutEntriesMerging)
		w, err := s.db.PutEntriesMarked(ctx, written, s.merge)
		if err != nil {
			s.requeue(dirty)
			return fmt.Errorf("statedb: write %d entries: %w", len(puts), err)
		}
		merged := false
		s.mu.Lock()
		for _, e := range puts {
			// What was put, not what was written (merged with another
			// process's): the next flush of an entry this process did not
			// change since need not write it.
			s.saved[key{e.Session, workspace.Key(e.Doc)}] = savedEntry{e.FileHash, e.Data}
		}
		for i, e := range written {
			if !bytes.Equal(e.Data, puts[i].Data) || e.FileHash != puts[i].FileHash {
				// Merged with another process's reads, which this one's
				// ledger lacks: Refresh reads it back and takes them in.
				merged = true
				continue
			}
			s.inDB[key{e.Session, workspace.Key(e.Doc)}] = savedEntry{e.FileHash, e.Data}
		}
		s.mu.Unlock()
		if !merged {
			// This process's own write is not a change to take in.
			s.refreshMu.Lock()
			s.mark = s.mark.Advance(w)
			s.refreshMu.Unlock()
		}
	}
	for _, k := range dels {
		s.mu.Lock()
		delete(s.saved, k)
		delete(s.inDB, k)
		s.mu.Unlock()
		if err := s.db.DeleteEntry(ctx, k.session, string(k.doc)); err != nil {
			return fmt.Errorf("statedb: delete entry: %w", err)
		}
	}
	return nil
}

// merge is the flush's store.Merger: another process of the session may
// have written the entry since this one restored it (two commands at once,
// each restoring, adding its read and writing back), and what both were
// shown is kept (ledger.MergeEntries). The database's entry, of another
// text, is first moved onto this one through both texts' line hashes, as
// a restore moves it; when they are not kept, this process's entry is
// written alone: its reads are of the text now, the other's unknown.
func (s *Sync) merge(put, cur store.Entry, lineHashes func(string) ([]byte, error)) (store.Entry, error) {
	s.mu.Lock()
	was, known := s.inDB[key{put.Session, workspace.Key(put.Doc)}]
	s.mu.Unlock()
	if known && was.fileHash == cur.FileHash && bytes.Equal(was.data, cur.Data) {
		return put, nil // as this process restored or wrote it: nobody wrote since
	}
	theirs, err := decodeEntry(cur.Data)
	if err != nil {
		s.log.Warn("persisted ledger entry unreadable; written over", zap.String("doc", cur.Doc), zap.Error(err))
		return put, nil
	}
	ours, err := decodeEntry(put.Data)
	if err != nil {
		return put, err
	}
	if cur.FileHash != put.FileHash {
		oldB, err := lineHashes(cur.FileHash)
		if err != nil {
			return put, err
		}
		newB := put.LineHashes
		if newB == nil {
			if newB, err = lineHashes(put.FileHash); err != nil {
				return put, err
			}
		}
		old, okOld := unpackHashes(oldB, theirs.TotalLines)
		now, okNew := unpackHashes(newB, put.TotalLines)
		if !okOld || !okNew {
			return put, nil
		}
		theirs = theirs.Moved(changes(linediff.Diff(old, now)), put.TotalLines)
	}
	s.mu.Lock()
	max := 0
	if s.l != nil {
		max = s.l.MaxRecords()
	}
	s.mu.Unlock()
	data, err := ledger.MergeEntries(ours, theirs, max).MarshalBinary()
	if err != nil {
		return put, fmt.Errorf("encode the merged entry: %w", err)
	}
	put.Data = data
	return put, nil
}

// view is what an entry of document k is written with: the workspace's
// text when it holds the document, else the view a range read left.
func (s *Sync) view(ctx context.Context, ws *workspace.Workspace, k workspace.Key) (View, bool) {
	if d, ok := ws.Known(k); ok {
		v := View{FileHash: d.FileHash(), TotalLines: d.Snap.LineCount()}
		// Kept already (the text was written before, or the history holds
		// it, from which they can be computed when needed): not computed
		// again, so a write costs what it changed, not the file.
		if !s.kept(ctx, v.FileHash) {
			v.LineHashes = lineHashes(d.Snap)
		}
		return v, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[k]
	return v, ok
}

// Pending returns the documents with persisted entries of a session that
// have not been seen (and so not restored) yet.
func (s *Sync) Pending(ctx context.Context, session string) ([]workspace.Key, error) {
	docs, err := s.db.SessionDocs(ctx, session)
	if err != nil {
		return nil, fmt.Errorf("statedb: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []workspace.Key
	for _, d := range docs {
		if _, seen := s.seen[workspace.Key(d)]; !seen {
			k := workspace.Key(d)
			out = append(out, k)
		}
	}
	return out, nil
}

// DeleteSession drops a session's persisted entries (session reset).
func (s *Sync) DeleteSession(ctx context.Context, session string) error {
	s.mu.Lock()
	for k := range s.dirty {
		if k.session == session {
			delete(s.dirty, k)
		}
	}
	for k := range s.saved {
		if k.session == session {
			delete(s.saved, k)
			delete(s.inDB, k)
		}
	}
	s.mu.Unlock()
	return s.db.DeleteSession(ctx, session)
}

func (s *Sync) requeue(dirty map[key]struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range dirty {
		s.dirty[k] = struct{}{}
	}
}

// Close flushes and closes the database.
func (s *Sync) Close(ctx context.Context) error { return s.end(ctx, s.db.Close) }

// Leave flushes and leaves the database to the process's exit, which
// follows (store.DB.Leave).
func (s *Sync) Leave(ctx context.Context) error { return s.end(ctx, s.db.Leave) }

// end flushes, then ends the process's use of the database by done; the
// flush's error first.
func (s *Sync) end(ctx context.Context, done func() error) error {
	err := s.Flush(ctx)
	if derr := done(); err == nil {
		err = derr
	}
	return err
}

// decodeEntry decodes an entry as the database holds it: in the ledger's
// binary form, or as JSON when an earlier sightline wrote it (it is written
// back in the binary form once it changes).
func decodeEntry(data []byte) (ledger.Entry, error) {
	var e ledger.Entry
	if len(data) > 0 && data[0] == '{' {
		err := json.Unmarshal(data, &e)
		return e, err
	}
	err := e.UnmarshalBinary(data)
	return e, err
}
