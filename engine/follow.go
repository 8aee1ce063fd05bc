package engine

import (
	"context"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/workspace"
)

// follower keeps the ledger in step with the workspace. The workspace
// numbers its changes and calls no one back; the ledger applies each
// numbered change once, in order (ledger.Follow), so whoever settles needs
// no lock of its own, and no lock is held while the ledger reports what
// changed, the database is asked or the editor told.
type follower struct {
	ws *workspace.Workspace
	l  *ledger.Ledger
	db *statedb.Sync // nil: nothing persisted to restore
	// once: the process ends after this call; the reads restored need not
	// keep the hashes of their lines (see statedb.Sync.Restore).
	once   bool
	notify func(workspace.Key)
}

// settle applies every change the workspace has made so far. Whoever got a
// document from the workspace settles before it reads or records the
// document's ledger: the ledger then knows the document's revision.
func (f *follower) settle() {
	since := f.l.Followed()
	evs := f.ws.ChangesSince(since)
	if len(evs) == 0 {
		return
	}
	steps := make([]ledger.Step, len(evs))
	for i, ev := range evs {
		steps[i] = step(ev)
		if ev.First {
			f.fromView(&steps[i], ev.Doc)
		}
	}
	f.ws.Acknowledge(f.l.Follow(steps))
	for _, ev := range evs {
		if ev.First {
			f.restore(ev.Doc)
			continue
		}
		f.notify(ev.Key)
	}
}

// step is a workspace change as the ledger follows it.
func step(ev workspace.ChangeEvent) ledger.Step {
	s := ledger.Step{Seq: ev.Seq, Doc: ledger.DocKey(ev.Key), FromRev: ev.FromRev, ToRev: ev.ToRev,
		First: ev.First, Replaced: ev.Replaced, Author: ev.Author, NewTotal: ev.NewTotal}
	if len(ev.Changes) > 0 {
		s.Changes = make([]ledger.Change, len(ev.Changes))
		for i, c := range ev.Changes {
			s.Changes[i] = ledger.Change{Start: c.Start + 1, Old: c.Old, New: c.New}
		}
	}
	return s
}

// fromView makes the first sight of a document this process read from the
// disk without building it (a range read: the ledger knows it at that
// view's revision) a change from that view: none when the text is the same,
// else the changes between their lines by someone else, as a process
// restoring those reads from the database would move them (the text
// replaced whole when the lines of the view are not known). Taken as a
// document seen for the first time, every line read in the view would
// count as read in whatever text the file holds now.
func (f *follower) fromView(s *ledger.Step, d workspace.Doc) {
	if f.db == nil {
		return
	}
	_, at, shaped := f.l.DocInfo(s.Doc)
	if !shaped || at >= s.ToRev {
		return
	}
	had, same, chs, ok := f.db.Since(context.Background(), d.Key, d.FileHash(), func() []uint32 { return statedb.LineHashes(d.Snap) })
	if !had || same {
		return
	}
	s.First, s.FromRev = false, at
	if ok {
		s.Changes = chs
	} else {
		s.Replaced = true
	}
}

// restore brings back the persisted reads of d once (statedb.Sync.Restore
// is single-flight: a caller that finds it under way waits for it).
func (f *follower) restore(d workspace.Doc) {
	if f.db != nil {
		var sum ledger.SumFunc
		if !f.once {
			sum = sumOf(d.Snap)
		}
		f.db.Restore(d, sum)
	}
}

// Settle applies the workspace's changes to the ledger now: the language
// server calls it after each change the editor sends, so the editor's
// surfaces and the next call see the ledger of the text they see.
func (e *Env) Settle() { e.follow.settle() }
