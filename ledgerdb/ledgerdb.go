// Package ledgerdb keeps the in-memory ledger and its database in step: it
// restores a document's persisted reads the first time the document is seen,
// and writes changed entries behind, off the request path. A document whose
// bytes changed since (edited while no sightline process watched it) is
// diffed line by line against the line hashes kept with each entry, and its
// reads are moved through the changes, as the server does for didChange.
package ledgerdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
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

	mu        sync.Mutex
	persisted map[workspace.Key][]store.Entry // awaiting first sight of their document
	dirty     map[key]struct{}
	notice    string // the database was recovered at open ("" if not)
	flushErr  error  // the last write-behind's failure, nil once one succeeds
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

type key struct {
	session string
	doc     workspace.Key
}

// Open opens the database in dir and loads its entries, to be restored lazily.
// A corrupt database is moved aside and recreated with the entries that could
// still be read; Notice then says so. A locked one fails with store.ErrLocked.
func Open(ctx context.Context, dir string, log *zap.Logger) (*Sync, error) {
	db, err := store.Open(dir)
	var entries []store.Entry
	if err == nil {
		if entries, err = db.AllEntries(ctx); err != nil {
			db.Close()
		}
	}
	notice := ""
	if errors.Is(err, store.ErrCorrupt) {
		log.Error("ledger database corrupt; moving it aside", zap.String("dir", dir), zap.Error(err))
		var aside string
		var kept int
		db, aside, kept, err = store.Recover(dir)
		if err == nil {
			entries, err = db.AllEntries(ctx)
			notice = fmt.Sprintf("The ledger database in %s was corrupt: it was moved to %s and a new one created, keeping the %d saved document entries that could still be read.", dir, filepath.Base(aside), kept)
		}
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, fmt.Errorf("ledgerdb: %w", err)
	}
	s := &Sync{db: db, log: log, notice: notice, persisted: make(map[workspace.Key][]store.Entry), dirty: make(map[key]struct{})}
	for _, e := range entries {
		k := workspace.Key(e.Doc)
		s.persisted[k] = append(s.persisted[k], e)
	}
	return s, nil
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
// (written by an older sightline) is dropped when the bytes changed.
func (s *Sync) Restore(d workspace.Doc) {
	s.mu.Lock()
	entries := s.persisted[d.Key]
	delete(s.persisted, d.Key)
	l := s.l
	s.mu.Unlock()
	if len(entries) == 0 || l == nil {
		return
	}
	h := d.FileHash()
	var cur []uint32 // the document's line hashes, computed once if needed
	for _, e := range entries {
		var le ledger.Entry
		if err := json.Unmarshal(e.Data, &le); err != nil {
			s.log.Warn("persisted ledger entry unreadable", zap.String("doc", e.Doc), zap.Error(err))
			continue
		}
		if e.FileHash != h {
			old, ok := unpackHashes(e.LineHashes, le.TotalLines)
			if !ok {
				continue
			}
			if cur == nil {
				cur = unpackHashesOf(d.Snap)
			}
			le = le.Moved(changes(linediff.Diff(old, cur)), len(cur))
		}
		l.Import(e.Session, ledger.DocKey(d.Key), d.Rev, le)
	}
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
		c := l.Content
		if i == 0 {
			_, c = hashline.StripBOM(c) // not content (PROTOCOL section 5)
		}
		v := hashline.Sum(c)
		out = append(out, byte(v), byte(v>>8), byte(v>>16))
	}
	return out
}

// unpackHashes reads a blob of lineHashes; ok is false unless it holds
// exactly n lines (entries of older versions hold none).
func unpackHashes(b []byte, n int) ([]uint32, bool) {
	if len(b) != n*hashSize {
		return nil, false
	}
	out := make([]uint32, n)
	for i := range out {
		p := b[i*hashSize:]
		out[i] = uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16
	}
	return out, true
}

func unpackHashesOf(s *textdoc.Snapshot) []uint32 {
	out, _ := unpackHashes(lineHashes(s), s.LineCount())
	return out
}

// Run flushes every interval until ctx ends.
func (s *Sync) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.safeFlush(ctx)
		}
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
	err := s.flush(ctx)
	s.setErr(err)
	return err
}

func (s *Sync) flush(ctx context.Context) error {
	s.mu.Lock()
	dirty := s.dirty
	s.dirty = make(map[key]struct{})
	l, ws := s.l, s.ws
	s.mu.Unlock()
	if len(dirty) == 0 || l == nil {
		return nil
	}
	type docHashes struct {
		file  string
		lines []byte
	}
	hashes := map[workspace.Key]docHashes{}
	var puts []store.Entry
	var dels []key
	for k := range dirty {
		d, ok := ws.Known(k.doc)
		e, has := l.Export(k.session, ledger.DocKey(k.doc))
		if !ok || !has {
			dels = append(dels, k)
			continue
		}
		h, seen := hashes[k.doc]
		if !seen {
			h = docHashes{d.FileHash(), lineHashes(d.Snap)}
			hashes[k.doc] = h
		}
		data, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("ledgerdb: encode entry: %w", err)
		}
		puts = append(puts, store.Entry{Session: k.session, Doc: string(k.doc), FileHash: h.file, TotalLines: d.Snap.LineCount(), Data: data, LineHashes: h.lines})
	}
	if len(puts) > 0 {
		if err := s.db.PutEntries(ctx, puts); err != nil {
			s.requeue(dirty)
			return fmt.Errorf("ledgerdb: write %d entries: %w", len(puts), err)
		}
	}
	for _, k := range dels {
		if err := s.db.DeleteEntry(ctx, k.session, string(k.doc)); err != nil {
			return fmt.Errorf("ledgerdb: delete entry: %w", err)
		}
	}
	return nil
}

// Pending returns the documents with persisted entries of a session that
// have not been seen (and so not restored) yet.
func (s *Sync) Pending(session string) []workspace.Key {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []workspace.Key
	for doc, es := range s.persisted {
		for _, e := range es {
			if e.Session == session {
				out = append(out, doc)
				break
			}
		}
	}
	return out
}

// DeleteSession drops a session's persisted entries (session reset).
func (s *Sync) DeleteSession(ctx context.Context, session string) error {
	s.mu.Lock()
	for k := range s.dirty {
		if k.session == session {
			delete(s.dirty, k)
		}
	}
	for doc, es := range s.persisted {
		kept := es[:0]
		for _, e := range es {
			if e.Session != session {
				kept = append(kept, e)
			}
		}
		s.persisted[doc] = kept
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
func (s *Sync) Close(ctx context.Context) error {
	err := s.Flush(ctx)
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}
