// Package ledgerdb keeps the in-memory ledger and its database in step: it
// restores a document's persisted reads the first time the document is seen,
// if the document's bytes are unchanged, and writes changed entries behind,
// off the request path.
package ledgerdb

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/store"
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
}

type key struct {
	session string
	doc     workspace.Key
}

// Open opens the database in dir and loads its entries, to be restored lazily.
func Open(ctx context.Context, dir string, log *zap.Logger) (*Sync, error) {
	db, err := store.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("ledgerdb: %w", err)
	}
	entries, err := db.AllEntries(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("ledgerdb: load entries: %w", err)
	}
	s := &Sync{db: db, log: log, persisted: make(map[workspace.Key][]store.Entry), dirty: make(map[key]struct{})}
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
// time, if its content is byte for byte what it was when they were saved.
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
	for _, e := range entries {
		if e.FileHash != h {
			continue
		}
		var le ledger.Entry
		if err := json.Unmarshal(e.Data, &le); err != nil {
			s.log.Warn("persisted ledger entry unreadable", zap.String("doc", e.Doc), zap.Error(err))
			continue
		}
		l.Import(e.Session, ledger.DocKey(d.Key), d.Rev, le)
	}
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
	s.mu.Lock()
	dirty := s.dirty
	s.dirty = make(map[key]struct{})
	l, ws := s.l, s.ws
	s.mu.Unlock()
	if len(dirty) == 0 || l == nil {
		return nil
	}
	hashes := map[workspace.Key]string{}
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
			h = d.FileHash()
			hashes[k.doc] = h
		}
		data, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("ledgerdb: encode entry: %w", err)
		}
		puts = append(puts, store.Entry{Session: k.session, Doc: string(k.doc), FileHash: h, TotalLines: d.Snap.LineCount(), Data: data})
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
