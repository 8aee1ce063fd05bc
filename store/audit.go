package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// AuditEntry records one agent-facing call: who made it, on what, and how
// it ended. Empty strings mean "not applicable" (no error, no file before a
// create, ...).
type AuditEntry struct {
	Time       time.Time // AppendAudit sets it when zero. Stored to the millisecond.
	Session    string
	Agent      string
	Method     string
	Path       string
	Outcome    string
	Error      string // the error kind, when the call was refused or failed
	BeforeHash string // file hash before the call
	AfterHash  string // file hash after it
	ArgsDigest string // digest of the arguments: enough to match calls, without storing content
	Duration   time.Duration
	Guard      string // "" (not asked or clear), "blocked", "expanded" (blocked, missing lines returned), "warned"
}

// AppendAudit adds an entry to the audit log and returns its id (ids grow
// as entries are appended, by any process).
func (db *DB) AppendAudit(ctx context.Context, a AuditEntry) (int64, error) {
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	st, err := db.poolStmt(ctx, `INSERT INTO audit
		(time, session, agent, method, path, outcome, error, before_hash, after_hash, args_digest, duration_us, guard)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	var res sql.Result
	if err == nil {
		res, err = st.ExecContext(ctx, millis(a.Time), a.Session, a.Agent, a.Method, a.Path, a.Outcome, a.Error, a.BeforeHash, a.AfterHash, a.ArgsDigest,
			a.Duration.Microseconds(), a.Guard)
	}
	if err != nil {
		return 0, fmt.Errorf("store: append audit %s %s: %w", a.Method, a.Path, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("store: append audit %s %s: %w", a.Method, a.Path, err)
	}
	return id, nil
}

// Audit returns the latest limit entries of the audit log, newest first
// (all of them when limit <= 0). Entries are ordered as they were appended,
// across processes, not by their Time.
func (db *DB) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	return db.AuditWhere(ctx, AuditFilter{Limit: limit})
}
