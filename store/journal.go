package store

import (
	"context"
	"fmt"
	"time"
)

// Journal is one multi-file write in progress: its id, whether it was
// decided (committed) or only staged, and its steps in the writer's format.
type Journal struct {
	ID      string
	State   string
	Ops     []byte
	Created time.Time
}

// The states of a journal.
const (
	JournalStaged    = "staged"
	JournalCommitted = "committed"
)

// PutJournal records a write's journal, or moves it to a new state. It is
// written before the answer: a crash after it finds the journal.
func (db *DB) PutJournal(ctx context.Context, j Journal) error {
	_, err := db.pool().ExecContext(ctx, `INSERT INTO write_journal (id, state, ops, created) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET state = excluded.state, ops = excluded.ops`, j.ID, j.State, j.Ops, millis(j.Created))
	if err != nil {
		return fmt.Errorf("store: write journal %s: %w", j.ID, classify(err))
	}
	return nil
}

// DropJournal removes a finished (or undone) write's journal.
func (db *DB) DropJournal(ctx context.Context, id string) error {
	if _, err := db.pool().ExecContext(ctx, `DELETE FROM write_journal WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: drop journal %s: %w", id, classify(err))
	}
	return nil
}

// Journals lists the writes in progress, oldest first.
func (db *DB) Journals(ctx context.Context) ([]Journal, error) {
	rows, err := db.pool().QueryContext(ctx, `SELECT id, state, ops, created FROM write_journal ORDER BY created, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list journals: %w", classify(err))
	}
	defer rows.Close()
	var out []Journal
	for rows.Next() {
		var j Journal
		var ms int64
		if err := rows.Scan(&j.ID, &j.State, &j.Ops, &ms); err != nil {
			return nil, fmt.Errorf("store: list journals: %w", err)
		}
		j.Created = fromMillis(ms)
		out = append(out, j)
	}
	return out, rows.Err()
}
