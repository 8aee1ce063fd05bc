package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// Options assemble an Env.
type Options struct {
	Roots  []string
	Config config.Config
	Log    *zap.Logger
	// StateDir is the database folder; "" means store.Dir(first root).
	StateDir string
	// LockDir is the folder of the per-file write locks; "" means
	// store.LockDir(), shared by every sightline process of the user.
	LockDir string
	// NoPersist keeps the ledger in memory only.
	NoPersist bool
	// Editor is the editor connection edits to open documents go through;
	// nil when there is none (the CLI, a client without applyEdit).
	Editor Editor
	// Approver asks the user about sensitive paths; nil refuses them
	// (approval_refused) unless a session approved them before.
	Approver Approver
	// OnDocChange is told when a document's text or ledger changed, so the
	// editor's surfaces can be refreshed.
	OnDocChange func(workspace.Key)
	// OnSessionActive is told the session of each audited call, after it
	// is recorded (no lock held), so the editor can follow the most
	// recently active session.
	OnSessionActive func(session string)
	// Ephemeral says the process ends after this call (the CLI): without a
	// database, nothing it records reaches the agent's next call.
	Ephemeral bool
	// Reload, when set, reads the configuration again: a long-lived
	// process over the disk (sightline mcp) calls it before each call
	// (Refresh), so a file changed between two calls is obeyed at the
	// second, as a command in its own process would.
	Reload func() config.Config
	// Exits says the process exits when Close returns (the CLI's own
	// process, not a test calling it): Close leaves the database to the
	// exit (store.DB.Leave), sparing the closing checkpoint's syncs.
	Exits bool
	// Notices are warnings every answer carries (how the workspace root
	// was chosen, when no marker chose it: workspace.RootNotice).
	Notices []string
}

// Setup assembles the workspace, the ledger and its database. A database that
// cannot be opened is logged, not fatal: reads then last for the process only.
func Setup(ctx context.Context, o Options) *Env {
	log := o.Log
	if log == nil {
		log = zap.NewNop()
	}
	notify := o.OnDocChange
	if notify == nil {
		notify = func(workspace.Key) {}
	}
	var sync *statedb.Sync
	var problem, notice string
	if !o.NoPersist && len(o.Roots) > 0 {
		dir := o.StateDir
		var err error
		if dir == "" {
			dir, err = store.Dir(o.Roots[0])
		}
		if err == nil {
			sync, err = statedb.Open(ctx, dir, log)
		}
		if err != nil {
			log.Error("ledger database unavailable; reads will not survive a restart", zap.String("dir", dir), zap.Error(err))
			problem = unavailable(dir, err, o.Ephemeral)
		} else {
			notice = sync.Notice()
			if o.Ephemeral {
				// One call: its session's entries are restored, not every
				// session's that ever read a document (see Env.Serve).
				sync.OnlyServed()
			} else {
				// Lives on: other processes' reads are taken in before
				// each call (see Env.Serve).
				sync.Watch(ctx)
			}
		}
	}
	l := ledger.New(ledger.Options{OnDirty: func(session string, doc ledger.DocKey) {
		if sync != nil {
			sync.MarkDirty(session, workspace.Key(doc))
		}
		notify(workspace.Key(doc))
	}})
	ws := workspace.New(o.Roots, workspace.Options{HugePages: o.Ephemeral})
	if sync != nil {
		sync.Attach(l, ws)
	}
	lockDir := o.LockDir
	if lockDir == "" {
		lockDir = store.LockDir()
	}
	env := newEnv(ws, l, sync, o.Editor, o.Config, log, lockDir)
	env.follow.notify = notify
	env.follow.once = o.Ephemeral
	env.health.problem, env.health.notice, env.health.ephemeral = problem, notice, o.Ephemeral
	env.approver = o.Approver
	env.exits = o.Exits
	env.reload = o.Reload
	env.notices = o.Notices
	env.audits.onCall = o.OnSessionActive
	// Before any call: a multi-file write a dead process left half done is
	// finished or undone.
	env.tx.recoverWrites(ctx)
	return env
}

// Serve tells the database the session a call is about to work for, before
// the call looks at or records anything of it: a process of one call
// restores that session's entries only (statedb.Sync.OnlyServed). Every
// operation serves its caller's session before it runs (ops.Def.Run), and
// a run of edit blocks at its start (NewBlocks).
//
// A process that lives on first takes in what other processes (the
// daemon, sightline mcp, a command, a hook) wrote to the entries of the
// documents it holds since its last call (statedb.Sync.Refresh), after
// the workspace's changes: every door answers with every door's reads.
// With no other process's write since, that is one query of the database.
func (e *Env) Serve(session string) {
	if e.db == nil {
		return
	}
	if !e.follow.once {
		e.follow.settle()
		ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
		e.db.Refresh(ctx)
		cancel()
	}
	e.db.Serve(session)
}

// Refresh reads the configuration again when the Env was given a way to
// (Options.Reload) and puts it in force if it differs: the envelope of
// every operation calls it before the call runs.
func (e *Env) Refresh() {
	if e.reload == nil {
		return
	}
	if c := e.reload(); !reflect.DeepEqual(c, e.Config()) {
		e.SetConfig(c)
	}
}

// unavailable says why the ledger database cannot be used, where, and what
// that means for the agent.
func unavailable(dir string, err error, ephemeral bool) string {
	why := "cannot be opened"
	switch {
	case errors.Is(err, store.ErrLocked):
		why = "is locked by another process"
	case errors.Is(err, store.ErrCorrupt):
		why = "is corrupt and could not be recreated"
	}
	lost := "lost when the language server stops"
	if ephemeral {
		lost = "lost when this command ends, so the next command starts with nothing read. Set SIGHTLINE_STATE_DIR to a writable folder to keep them"
	}
	return fmt.Sprintf("The ledger database in %s %s (%v): reads and edits are recorded in memory only and %s.", dir, why, err, lost)
}

// Close flushes the ledger to its database and releases the workspace's
// folders; the Env reads and writes no file after it.
func (e *Env) Close(ctx context.Context) error {
	defer e.WS.Close()
	if e.db == nil {
		return nil
	}
	e.audits.drain() // the audit's and the history's writes: one writer
	if e.exits {
		return e.db.Leave(ctx)
	}
	return e.db.Close(ctx)
}

// LoadSession looks at every document the database holds entries of for a
// session, so their reads are restored (documents otherwise restore lazily,
// the first time they are seen). Documents that vanished are skipped. A
// document is not built for it: a file whose stat is the one its hash and
// line hashes were saved under is not read at all, another is scanned once
// for them (see restoreFromDisk).
func (e *Env) LoadSession(ctx context.Context, session string) {
	if e.db == nil {
		return
	}
	pending, err := e.db.Pending(ctx, session)
	if err != nil {
		e.Log.Warn("listing a session's persisted documents", zap.Error(err))
		return
	}
	for _, k := range pending {
		if ctx.Err() != nil {
			return
		}
		if !e.restoreFromDisk(ctx, k) {
			_, _ = e.admit(ctx, Caller{Session: session}, e.WS.Place(k), reportAccess)
		}
	}
}

// RunPersistence flushes the ledger to its database every interval until ctx
// ends (the language server's write-behind); without a database it returns.
func (e *Env) RunPersistence(ctx context.Context, every time.Duration) {
	if e.db != nil {
		e.db.Run(ctx, every)
	}
}

// Flush writes what the ledger changed to its database now.
func (e *Env) Flush(ctx context.Context) error {
	if e.db == nil {
		return nil
	}
	return e.db.Flush(ctx)
}

// Answered tells the engine that a call was answered: a process that
// lives on writes what the call recorded now, behind the answer, so that
// the other processes find it at once (statedb.Sync.Kick). The envelope
// calls it after every operation (ops.Def.Run).
func (e *Env) Answered() {
	if e.db != nil && !e.follow.once {
		e.db.Kick()
	}
}

// refreshTimeout bounds taking in other processes' writes before a call:
// past it, the call answers with what this process holds.
const refreshTimeout = 2 * time.Second
