package engine

import (
	"sync"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/workspace"
)

// follower keeps the ledger in step with the workspace: it is the one taker
// of the workspace's changes (workspace.TakeChanges) and applies them to
// the ledger in the order they happened. The workspace calls no one back,
// so no lock of it is held while the ledger moves or the database is asked.
//
// Its lock orders the appliers (two callers must not apply one document's
// changes out of order) and covers only the ledger's in-memory updates;
// restoring a document's persisted reads (a database query) and telling the
// editor happen after it is released.
type follower struct {
	mu     sync.Mutex
	ws     *workspace.Workspace
	l      *ledger.Ledger
	db     *statedb.Sync // nil: nothing persisted to restore
	notify func(workspace.Key)
}

// settle applies every change the workspace has made so far. Whoever got a
// document from the workspace settles before it reads or records the
// document's ledger: the ledger then knows the document's revision.
func (f *follower) settle() {
	f.mu.Lock()
	evs := f.ws.TakeChanges()
	for _, ev := range evs {
		if ev.First {
			f.l.SetTotal(ledger.DocKey(ev.Key), ev.ToRev, ev.NewTotal)
			continue
		}
		ShiftLedger(f.l, ev)
	}
	f.mu.Unlock()
	for _, ev := range evs {
		if ev.First {
			f.restore(ev.Doc)
			continue
		}
		f.notify(ev.Key)
	}
}

// restore brings back the persisted reads of d once (statedb.Sync.Restore
// is single-flight: a caller that finds it under way waits for it).
func (f *follower) restore(d workspace.Doc) {
	if f.db != nil {
		f.db.Restore(d)
	}
}

// Settle applies the workspace's changes to the ledger now: the language
// server calls it after each change the editor sends, so the editor's
// surfaces and the next call see the ledger of the text they see.
func (e *Env) Settle() { e.follow.settle() }
