package store

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// AuditFilter selects audit entries; zero fields select everything.
type AuditFilter struct {
	Limit   int // the latest Limit entries
	Session string
	Path    string
	Method  string   // a method, or a prefix ending in "*"
	Methods []string // any of these methods
}

// AuditWhere returns the latest entries matching f, newest first.
func (db *DB) AuditWhere(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	var where []string
	var args []any
	if f.Session != "" {
		where, args = append(where, "session = ?"), append(args, f.Session)
	}
	if f.Path != "" {
		where, args = append(where, "path = ?"), append(args, f.Path)
	}
	if m, ok := strings.CutSuffix(f.Method, "*"); ok {
		where, args = append(where, "substr(method, 1, ?) = ?"), append(args, len(m), m)
	} else if f.Method != "" {
		where, args = append(where, "method = ?"), append(args, f.Method)
	}
	if len(f.Methods) > 0 {
		where = append(where, "method IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(f.Methods)), ", ")+")")
		for _, m := range f.Methods {
			args = append(args, m)
		}
	}
	q := `SELECT time, session, agent, method, path, outcome, error, before_hash, after_hash, args_digest, duration_us, guard FROM audit`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	q += " ORDER BY id DESC LIMIT ?"
	args = append(args, limit)
	rows, err := db.pool().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read audit: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var a AuditEntry
		var at, us int64
		if err := rows.Scan(&at, &a.Session, &a.Agent, &a.Method, &a.Path, &a.Outcome, &a.Error,
			&a.BeforeHash, &a.AfterHash, &a.ArgsDigest, &us, &a.Guard); err != nil {
			return nil, fmt.Errorf("store: read audit: %w", err)
		}
		a.Time = fromMillis(at)
		a.Duration = time.Duration(us) * time.Microsecond
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read audit: %w", err)
	}
	return out, nil
}

// PruneAudit rotates the audit log: it drops entries older than maxAge and
// all but the newest maxEntries (0 disables either bound), and returns how
// many it dropped.
func (db *DB) PruneAudit(ctx context.Context, maxEntries int, maxAge time.Duration) (int, error) {
	total := 0
	if maxAge > 0 {
		r, err := db.pool().ExecContext(ctx, `DELETE FROM audit WHERE time < ?`, millis(time.Now().Add(-maxAge)))
		if err != nil {
			return 0, fmt.Errorf("store: prune audit by age: %w", err)
		}
		n, _ := r.RowsAffected()
		total += int(n)
	}
	if maxEntries > 0 {
		// Ids are dense (rows go only from the oldest end), so the newest
		// maxEntries are the ids above max - maxEntries: found in the index,
		// not by walking maxEntries rows at every start of a process.
		r, err := db.pool().ExecContext(ctx, `DELETE FROM audit WHERE id <= (SELECT max(id) FROM audit) - ?`, maxEntries)
		if err != nil {
			return total, fmt.Errorf("store: prune audit by size: %w", err)
		}
		n, _ := r.RowsAffected()
		total += int(n)
	}
	return total, nil
}

// Retention is what the state database keeps: the audit log's bounds and
// the history's budget (zero or less: no bound).
type Retention struct {
	AuditEntries int
	AuditAge     time.Duration
	HistoryBytes int64
}

// Retain prunes the audit log and the history to their bounds. Every
// process calls it when it opens the database: one read finds whether any
// bound is passed (by index: the oldest and newest audit ids and times, the
// history's running total), so when none is, it neither writes nor waits
// for another process's write.
func (db *DB) Retain(ctx context.Context, r Retention) error {
	cutoff := int64(math.MinInt64)
	if r.AuditAge > 0 {
		cutoff = millis(time.Now().Add(-r.AuditAge))
	}
	var old, many, big bool
	err := db.pool().QueryRowContext(ctx, `SELECT
			coalesce((SELECT min(time) FROM audit) < ?, 0),
			coalesce((SELECT min(id) FROM audit) <= (SELECT max(id) FROM audit) - ?, 0),
			coalesce((SELECT stored FROM history_total) > ?, 0)`,
		cutoff, max(r.AuditEntries, 0), r.HistoryBytes).Scan(&old, &many, &big)
	if err != nil {
		return fmt.Errorf("store: retention check: %w", err)
	}
	many = many && r.AuditEntries > 0
	big = big && r.HistoryBytes > 0
	if old || many {
		if _, err := db.PruneAudit(ctx, r.AuditEntries, r.AuditAge); err != nil {
			return err
		}
	}
	if big {
		if _, err := db.PruneHistory(ctx, r.HistoryBytes); err != nil {
			return err
		}
	}
	return nil
}
