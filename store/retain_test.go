package store

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// Every process checks the retention bounds when it opens the database.
// When nothing is due the check only reads: it neither waits for another
// process's write nor writes. Past a bound it prunes.
func TestRetainReadsWhenNothingIsDue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openTest(t, dir)
	for i := range 5 {
		if _, err := db.AppendAudit(ctx, AuditEntry{Time: time.Now().Add(time.Duration(i-10) * time.Hour), Session: "s", Method: "sightline/read", Path: "f.go", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	limits := Retention{AuditEntries: 100, AuditAge: 24 * time.Hour, HistoryBytes: 1 << 20}

	// Another process holds the write lock.
	other, err := sql.Open("sqlite", db.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO approvals (session, path, rule, agent, granted_at) VALUES ('x', 'y', 'z', '', 0)`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := db.Retain(ctx, limits); err != nil {
		t.Fatalf("nothing due, yet: %v", err)
	}
	if d := time.Since(start); d > busyTimeout/2 {
		t.Errorf("the check waited %v for another process's write", d)
	}
	tx.Rollback()

	// Past the bounds: pruned.
	limits.AuditEntries, limits.AuditAge = 3, 7*time.Hour+30*time.Minute
	if err := db.Retain(ctx, limits); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.pool().QueryRowContext(ctx, `SELECT count(*) FROM audit`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after pruning: %d audit rows (%v), want the 2 younger than 7.5 hours", n, err)
	}
}
