package handlers

import (
	"context"
	"time"

	"github.com/sightline-lsp/sightline/store"
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

// AuditCall records a call on the session's state (a reset, a revocation),
// which names no document: the envelope of package ops audits those, while
// a document's call audits its own verdicts, refusals first.
func (e *Env) AuditCall(ctx context.Context, method string, c Caller, o Outcome, d time.Duration) {
	e.audit(ctx, method, c, "", o, "", "", "", d, nil)
}

// SessionsParams are the params of sightline/sessions: none.
type SessionsParams struct{ Rendering }
