package statedb

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/linediff"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// Refresh takes in what other processes wrote to the entries of the
// documents this one has restored since it last looked: a process that
// lives on (the daemon, sightline mcp, an editor's server) answers with
// every door's reads, not those it had when it first saw the document.
// Each entry whose bytes are not the ones this process last read or wrote
// is merged into the ledger (ledger.MergeShown: what either was shown
// counts). It costs one PRAGMA when no other connection committed, and
// then the entries written since, not the database: call it before each
// answer that depends on the ledger. Errors are logged: the database is
// never the answer's failure.
func (s *Sync) Refresh(ctx context.Context) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if !s.watching {
		return
	}
	es, m, err := s.db.EntriesSince(ctx, s.mark)
	if err != nil {
		s.log.Warn("other processes' reads unreadable; answering with this process's", zap.Error(err))
		return
	}
	s.mark = m
	if len(s.later) > 0 {
		// Those put off first: one written since comes after and wins.
		es = append(slices.Collect(maps.Values(s.later)), es...)
		clear(s.later)
	}
	for _, e := range es {
		if !s.takeIn(ctx, e) {
			if s.later == nil {
				s.later = map[key]store.Entry{}
			}
			s.later[key{e.Session, workspace.Key(e.Doc)}] = e
		}
	}
}

// Watch makes Refresh take in what other processes write from now on;
// what they wrote before, the restores read. Called before any restore, by
// a process that outlives a call: it holds a connection of its own for it
// (store.DB.EntriesSince), which a command of one call need not open.
func (s *Sync) Watch(ctx context.Context) {
	m, err := s.db.MarkNow(ctx)
	if err != nil {
		// The zero mark: the first Refresh reads every entry once.
		s.log.Warn("ledger database: other processes' writes will be read whole once", zap.Error(err))
	}
	s.refreshMu.Lock()
	s.mark, s.watching = m, true
	s.refreshMu.Unlock()
}

// takeIn merges entry e, as the database holds it now, into the ledger
// when this process restored its document and does not hold those bytes.
// It returns false when e is to be taken in later: the ledger is not at a
// text this process holds (a change of the document under way).
func (s *Sync) takeIn(ctx context.Context, e store.Entry) bool {
	k := key{e.Session, workspace.Key(e.Doc)}
	s.mu.Lock()
	flight, seen := s.seen[k.doc]
	skip := s.served != nil && !s.served[k.session] // restored when served
	was, known := s.inDB[k]
	l, ws := s.l, s.ws
	view, hasView := s.views[k.doc]
	viewRev := s.viewRevs[k.doc]
	s.mu.Unlock()
	if !seen || skip || l == nil {
		return true // a first sight restores it from the database, which holds it
	}
	if known && was.fileHash == e.FileHash && bytes.Equal(was.data, e.Data) {
		return true // written or read by this process: nothing new
	}
	select { // a restore under way reads the database itself; then compare
	case <-flight:
	case <-time.After(2 * restoreTimeout):
		return false
	}
	// The text the ledger states the document at.
	_, rev, shaped := l.DocInfo(ledger.DocKey(k.doc))
	if !shaped {
		return true // forgotten (deleted): nothing to merge into
	}
	var h string
	var cur func() []uint32
	var sum ledger.SumFunc
	if d, ok := ws.Known(k.doc); ok && d.Rev == rev {
		h, cur = d.FileHash(), func() []uint32 { return unpackHashesOf(d.Snap) }
		sum = func(line int) uint32 { return hashline.LineSum(line, d.Snap.Line(line-1).Content) }
	} else if hasView && viewRev == rev {
		h = view.FileHash
		cur = func() []uint32 { hs, _ := s.viewHashes(ctx, k.doc, view); return hs }
		sum = viewSum(view)
	} else {
		// The ledger is not at a text this process holds (a change under
		// way): taken in at the next call.
		return false
	}
	theirs, err := decodeEntry(e.Data)
	if err != nil {
		s.log.Warn("persisted ledger entry unreadable", zap.String("doc", e.Doc), zap.Error(err))
		return true
	}
	if e.FileHash != h {
		// Of another text: moved onto this one through both texts' line
		// hashes, as a restore moves it; unread when they are not kept.
		b, err := s.storedLineHashes(ctx, e.FileHash)
		if err != nil {
			s.log.Warn("line hashes unreadable", zap.String("doc", e.Doc), zap.Error(err))
		}
		old, ok := unpackHashes(b, theirs.TotalLines)
		now := cur()
		if !ok || len(now) == 0 {
			return true // unread: the safe answer (as a restore)
		}
		theirs = theirs.Moved(changes(linediff.Diff(old, now)), len(now))
		sum = nil // restated at another text than the one recorded
	}
	out, extra, ok := l.MergeShown(k.session, ledger.DocKey(k.doc), rev, theirs, sum)
	if !ok {
		return false // the document moved past rev meanwhile
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.inDB[k]; ok != known || cur.fileHash != was.fileHash || !bytes.Equal(cur.data, was.data) {
		return true // a flush or restore meanwhile: its bytes stand; a flush merges
	}
	s.inDB[k] = savedEntry{e.FileHash, e.Data}
	if !extra && e.FileHash == h {
		// The ledger holds what the database does: not written back (a
		// write would make every other process take it in again).
		if data, err := out.MarshalBinary(); err == nil {
			s.saved[k] = savedEntry{h, data}
		}
	}
	return true
}
