// What a call leaves in the state database, written behind it by the
// database's one writer (behind): the audit row every call leaves, and the
// history of every write. Every write keeps the text before and after it
// (content-addressed by sha256, compressed, each text once; a write with a
// plan as its change), so a write can be diffed and rolled back; a process
// drains both before it closes the database.

package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
	"time"
	"unsafe"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// AuditParams select audit entries: the latest Limit (0: all) of a session
// and a path (relative to the workspace root).
type AuditParams struct {
	Rendering
	Limit   int    `json:"limit,omitempty"`
	Session string `json:"session,omitempty"`
	Path    string `json:"path,omitempty"`
}

// AuditRow is one audited call (PROTOCOL section 8, audit --json).
type AuditRow struct {
	Time       time.Time `json:"time"`
	Session    string    `json:"session"`
	Agent      string    `json:"agent,omitempty"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Outcome    string    `json:"outcome"`
	Error      string    `json:"error,omitempty"`
	Before     string    `json:"before,omitempty"`
	After      string    `json:"after,omitempty"`
	DurationMs float64   `json:"durationMs"`
	Guard      string    `json:"guard,omitempty"`
}

// AuditResult is the answer of sightline/audit: entries oldest first.
type AuditResult struct {
	Outcome
	Source  string     `json:"source"` // "database" or "memory"
	Entries []AuditRow `json:"entries"`
}

// Audit lists audited calls.
func (e *Env) Audit(ctx context.Context, p AuditParams) (AuditResult, error) {
	entries, src, err := e.audits.entries(ctx, store.AuditFilter{Limit: p.Limit, Session: p.Session, Path: p.Path})
	if err != nil {
		return AuditResult{}, err
	}
	res := AuditResult{Outcome: Outcome{OK: true}, Source: src, Entries: make([]AuditRow, len(entries))}
	for i, a := range entries {
		res.Entries[i] = AuditRow{Time: a.Time, Session: a.Session, Agent: a.Agent, Method: a.Method, Path: a.Path,
			Outcome: a.Outcome, Error: a.Error, Before: a.BeforeHash, After: a.AfterHash,
			DurationMs: float64(a.Duration.Microseconds()) / 1000, Guard: a.Guard}
	}
	return res, nil
}

// SessionRow is one session the state database knows.
type SessionRow struct {
	Session   string    `json:"session"`
	Documents int       `json:"documents"`
	Approvals int       `json:"approvals"`
	LastSeen  time.Time `json:"lastSeen"`
}

// SessionsResult is the answer of sightline/sessions.
type SessionsResult struct {
	Outcome
	Sessions []SessionRow `json:"sessions"`
}

// Sessions lists the sessions of the ledger, the approvals and the audit
// log (of the database; without one, the sessions of this process's ledger
// are not listed).
func (e *Env) Sessions(ctx context.Context) (SessionsResult, error) {
	res := SessionsResult{Outcome: Outcome{OK: true}, Sessions: []SessionRow{}}
	if e.db == nil {
		res.Message = "No state database: sessions are not kept."
		return res, nil
	}
	if err := e.db.Flush(ctx); err != nil {
		return res, err
	}
	e.audits.drain()
	list, err := e.db.DB().Sessions(ctx)
	if err != nil {
		return res, err
	}
	for _, s := range list {
		res.Sessions = append(res.Sessions, SessionRow{Session: s.Session, Documents: s.Documents, Approvals: s.Approvals, LastSeen: s.LastSeen})
	}
	return res, nil
}

// SessionsParams are the params of sightline/sessions: none.
type SessionsParams struct{ Rendering }

// Every agent-facing write call is audited: in memory (the last
// maxRecent calls) and, when the database is open, in its audit table, so
// `sightline stats` in another process sees the same numbers.

const maxRecent = 10000

// auditLog owns the audit trail: the recent calls in memory, and their
// write-behind to the database.
type auditLog struct {
	db  *statedb.Sync // nil: memory only
	log *zap.Logger

	*behind // the database's writer: calls in order
	mu      sync.Mutex
	recent  []store.AuditEntry // oldest first
	// onCall is told the session of each call recorded; nil: nobody.
	onCall func(session string)
	// retain is told the id of each row appended (Env.retain); nil: nobody.
	retain func(ctx context.Context, id int64)
}

// writeRow records one row of a call (Finish): its verdict v, its
// arguments' digest.
func (e *Env) writeRow(ctx context.Context, r auditRow, v Outcome, took time.Duration, argsDigest string) {
	a := store.AuditEntry{
		Time:       time.Now(),
		Session:    r.caller.SessionOr(),
		Agent:      r.caller.Agent,
		Method:     MethodOf(ctx),
		Path:       r.path,
		Outcome:    "ok",
		BeforeHash: r.before,
		AfterHash:  r.after,
		ArgsDigest: argsDigest,
		Duration:   took,
		Guard:      r.guard,
	}
	if !v.OK {
		a.Outcome, a.Error = "refused", string(v.Error)
	}
	e.audits.add(ctx, a)
}

func (l *auditLog) add(ctx context.Context, a store.AuditEntry) {
	l.mu.Lock()
	l.recent = append(l.recent, a)
	if len(l.recent) > maxRecent {
		l.recent = slices.Delete(l.recent, 0, len(l.recent)-maxRecent)
	}
	l.mu.Unlock()
	if l.onCall != nil {
		l.onCall(a.Session)
	}
	if l.db == nil {
		return
	}
	l.enqueue(func() {
		ctx := context.WithoutCancel(ctx)
		id, err := l.db.DB().AppendAudit(ctx, a)
		if err != nil {
			l.log.Warn("audit", zap.Error(err))
			return
		}
		if l.retain != nil {
			l.retain(ctx, id)
		}
	})
}

// entries returns the latest audited calls matching f, oldest first, and
// where they came from: "database" or "memory".
func (l *auditLog) entries(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, string, error) {
	if l.db != nil {
		l.drain()
		all, err := l.db.DB().AuditWhere(ctx, f)
		if err != nil {
			return nil, "", err
		}
		slices.Reverse(all) // oldest first
		return all, "database", nil
	}
	l.mu.Lock()
	entries := slices.DeleteFunc(slices.Clone(l.recent), func(a store.AuditEntry) bool {
		return f.Session != "" && a.Session != f.Session || f.Path != "" && a.Path != f.Path ||
			len(f.Methods) > 0 && !slices.Contains(f.Methods, a.Method)
	})
	l.mu.Unlock()
	if limit := f.Limit; limit > 0 && len(entries) > limit {
		entries = entries[len(entries)-limit:]
	}
	return entries, "memory", nil
}

func digest(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// behind runs jobs off the caller's path, one at a time, in the order they
// were queued: the history lists versions and the audit log lists calls in
// the order they happened, which one goroutine per job would not keep.
// The audit log and the history share one, the database's writer.
type behind struct {
	mu      sync.Mutex
	queue   []func()
	running bool
	// queued counts the jobs ever queued and done those that ran, so a
	// drain waits for the jobs queued before it, however many come after.
	queued, done int64
	ran          *sync.Cond // on mu: done grew
}

// enqueue runs job after the jobs queued before it.
func (b *behind) enqueue(job func()) {
	b.mu.Lock()
	b.queue = append(b.queue, job)
	b.queued++
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.run()
	}
}

func (b *behind) run() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		job := b.queue[0]
		b.queue = b.queue[1:]
		b.mu.Unlock()
		job()
		b.mu.Lock()
		b.done++
		if b.ran != nil {
			b.ran.Broadcast()
		}
		b.mu.Unlock()
	}
}

// drain waits for the jobs queued so far (each job's own waits are
// bounded: the database's busy timeout).
func (b *behind) drain() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ran == nil {
		b.ran = sync.NewCond(&b.mu)
	}
	for target := b.queued; b.done < target; {
		b.ran.Wait()
	}
}

// historyLog owns the history's write-behind: the database's one worker
// (shared with the audit log) stores the writes in the order they were
// committed, so versions are listed in the order they happened.
type historyLog struct {
	*behind
	db  *statedb.Sync // nil: no history
	log *zap.Logger
	// retain is told the id of each version recorded (Env.retain); nil:
	// nobody.
	retain func(ctx context.Context, id int64)
}

// written is one write as the history keeps it. Hashes known already are
// reused; the texts are built only if they must be stored whole.
type written struct {
	before, after workspace.Doc  // before.Snap is nil for a new file
	plan          *hashline.Plan // how after follows from before, when a plan made it
}

// record keeps a write behind the call. It copies nothing: snapshots are
// immutable, and a write with a plan is kept as its change (the history
// stores the edit, not the file).
func (t *txn) record(ctx context.Context, c Caller, rel string, w written) {
	h := t.history
	if h.db == nil {
		return
	}
	h.enqueue(func() {
		ctx := context.WithoutCancel(ctx)
		text := func(d workspace.Doc) store.Text {
			// The text as the snapshot holds it, not a copy: the store only
			// reads it (compresses it).
			return store.Text{Hash: d.FileHash(), Size: d.Snap.Len(), Bytes: func() []byte {
				s := d.Snap.Text()
				return unsafe.Slice(unsafe.StringData(s), len(s))
			}}
		}
		rec := store.Write{Path: rel, After: text(w.after), Version: store.Version{Session: c.SessionOr(), Agent: c.Agent, Method: MethodOf(ctx)}}
		if w.before.Snap != nil {
			b := text(w.before)
			rec.Before = &b
			if w.plan != nil {
				rec.Delta = func() []store.Splice {
					bs, ok := w.plan.ByteSplices(w.before.Snap)
					if !ok {
						return nil
					}
					out := make([]store.Splice, len(bs))
					for i, x := range bs {
						out[i] = store.Splice{Off: x.Off, Del: x.Del, Ins: []byte(x.Ins)}
					}
					return out
				}
			}
		}
		id, err := h.db.DB().Record(ctx, rec)
		if err != nil {
			h.log.Warn("history", zap.String("path", rel), zap.Error(err))
			return
		}
		if h.retain != nil {
			h.retain(ctx, id)
		}
	})
}

// RetainEvery is how many rows of the audit log, or versions of the
// history, are appended between two retention checks. The check runs as
// they go, not at each process's start: a language server's or a daemon's
// log stays within its bounds while it lives, and a CLI call, which appends
// one row, pays for a check once in RetainEvery calls. The ids count the
// rows of every process, so some process checks.
const RetainEvery = 32

// retain checks the retention settings when id, a row just appended to the
// audit log or the history, is a multiple of RetainEvery.
func (e *Env) retain(ctx context.Context, id int64) {
	if id > 0 && id%RetainEvery == 0 {
		e.rotate(ctx)
	}
}

// rotate applies the retention settings: the audit log's maxEntries and
// maxAgeDays, the history's maxBytes.
func (e *Env) rotate(ctx context.Context) {
	if e.db == nil {
		return
	}
	c := e.Config()
	r := store.Retention{AuditEntries: c.Audit.MaxEntries, AuditAge: time.Duration(c.Audit.MaxAgeDays) * 24 * time.Hour, HistoryBytes: c.History.MaxBytes}
	if err := e.db.DB().Retain(ctx, r); err != nil {
		e.Log.Warn("audit and history retention", zap.Error(err))
	}
}
