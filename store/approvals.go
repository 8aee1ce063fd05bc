package store

import (
	"context"
	"fmt"
	"time"
)

// Approval is a user's "allow for this session" of one sensitive path.
type Approval struct {
	Session string
	Path    string // relative to the workspace root
	Rule    string // the sensitive rule that asked for it
	Agent   string
	Granted time.Time
}

// PutApproval remembers an approval (replacing an older one of the path).
func (db *DB) PutApproval(ctx context.Context, a Approval) error {
	if a.Granted.IsZero() {
		a.Granted = time.Now()
	}
	_, err := db.pool().ExecContext(ctx, `INSERT OR REPLACE INTO approvals (session, path, rule, agent, granted_at) VALUES (?, ?, ?, ?, ?)`,
		a.Session, a.Path, a.Rule, a.Agent, millis(a.Granted))
	if err != nil {
		return fmt.Errorf("store: put approval %s %s: %w", a.Session, a.Path, err)
	}
	return nil
}

// Approved reports whether the session approved the path.
func (db *DB) Approved(ctx context.Context, session, path string) (bool, error) {
	var n int
	err := db.pool().QueryRowContext(ctx, `SELECT count(*) FROM approvals WHERE session = ? AND path = ?`, session, path).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: approval %s %s: %w", session, path, err)
	}
	return n > 0, nil
}

// Approvals lists the approvals of a session ("" for every session), by
// session and path.
func (db *DB) Approvals(ctx context.Context, session string) ([]Approval, error) {
	rows, err := db.pool().QueryContext(ctx, `SELECT session, path, rule, agent, granted_at FROM approvals
		WHERE ? = '' OR session = ? ORDER BY session, path`, session, session)
	if err != nil {
		return nil, fmt.Errorf("store: approvals: %w", err)
	}
	defer rows.Close()
	var out []Approval
	for rows.Next() {
		var a Approval
		var at int64
		if err := rows.Scan(&a.Session, &a.Path, &a.Rule, &a.Agent, &at); err != nil {
			return nil, fmt.Errorf("store: approvals: %w", err)
		}
		a.Granted = fromMillis(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: approvals: %w", err)
	}
	return out, nil
}

// RevokeApproval forgets approvals of a path: of one session, or of every
// session when session is "". It returns how many were forgotten.
func (db *DB) RevokeApproval(ctx context.Context, session, path string) (int, error) {
	r, err := db.pool().ExecContext(ctx, `DELETE FROM approvals WHERE path = ? AND (? = '' OR session = ?)`, path, session, session)
	if err != nil {
		return 0, fmt.Errorf("store: revoke approval %s: %w", path, err)
	}
	n, _ := r.RowsAffected()
	return int(n), nil
}

// RevokeSession forgets every approval of a session (its reset).
func (db *DB) RevokeSession(ctx context.Context, session string) error {
	if _, err := db.pool().ExecContext(ctx, `DELETE FROM approvals WHERE session = ?`, session); err != nil {
		return fmt.Errorf("store: revoke approvals of %s: %w", session, err)
	}
	return nil
}

// SessionInfo summarises one session the database knows.
type SessionInfo struct {
	Session   string
	Documents int       // documents with ledger entries
	Approvals int       // remembered approvals
	LastSeen  time.Time // latest ledger update or audited call
}

// Sessions lists the sessions of the ledger, the approvals and the audit
// log, the most recently active first.
func (db *DB) Sessions(ctx context.Context) ([]SessionInfo, error) {
	// Ordered by the latest audited call: a ledger row's time is when the
	// write-behind saved it, the same for every session saved together.
	rows, err := db.pool().QueryContext(ctx, `SELECT session, sum(docs), sum(apps), max(seen) FROM (
			SELECT session, count(*) AS docs, 0 AS apps, max(updated_at) AS seen, 0 AS called FROM ledger_entries GROUP BY session
			UNION ALL SELECT session, 0, count(*), max(granted_at), 0 FROM approvals GROUP BY session
			UNION ALL SELECT session, 0, 0, max(time), max(time) FROM audit GROUP BY session
		) GROUP BY session ORDER BY max(called) DESC, max(seen) DESC, session`)
	if err != nil {
		return nil, fmt.Errorf("store: sessions: %w", err)
	}
	defer rows.Close()
	var out []SessionInfo
	for rows.Next() {
		var s SessionInfo
		var seen int64
		if err := rows.Scan(&s.Session, &s.Documents, &s.Approvals, &seen); err != nil {
			return nil, fmt.Errorf("store: sessions: %w", err)
		}
		s.LastSeen = fromMillis(seen)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sessions: %w", err)
	}
	return out, nil
}
