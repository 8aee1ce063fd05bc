package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Entry is the persisted ledger of one document in one session. The store
// does not look inside Data; FileHash lets the ledger tell, when it loads the
// entry, whether the document is still what the entry describes.
type Entry struct {
	Session    string
	Doc        string // the document's key, as the ledger names it
	FileHash   string // "sha256:…" of the document's content when the entry was made
	TotalLines int
	Data       []byte // the ledger's encoding of the entry (JSON)
	// LineHashes holds a hash of each line of the text the entry describes
	// (the store does not look inside; see ledgerdb). Empty for entries
	// written before they were kept.
	LineHashes []byte
	UpdatedAt  time.Time // when the entry changed; PutEntries sets it when zero. Stored to the millisecond.
}

const entryColumns = `session, doc, file_hash, total_lines, data, updated_at, line_hashes`

// PutEntries inserts or replaces entries, keyed by (Session, Doc), in one
// transaction: all are written or none.
func (db *DB) PutEntries(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	now := time.Now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO ledger_entries (`+entryColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session, doc) DO UPDATE SET
				file_hash = excluded.file_hash, total_lines = excluded.total_lines,
				data = excluded.data, updated_at = excluded.updated_at,
				line_hashes = excluded.line_hashes`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, e := range entries {
			at := e.UpdatedAt
			if at.IsZero() {
				at = now
			}
			// A nil slice binds as NULL; the columns are NOT NULL.
			data, hashes := e.Data, e.LineHashes
			if data == nil {
				data = []byte{}
			}
			if hashes == nil {
				hashes = []byte{}
			}
			if _, err := st.ExecContext(ctx, e.Session, e.Doc, e.FileHash, e.TotalLines, data, millis(at), hashes); err != nil {
				return fmt.Errorf("session %q doc %q: %w", e.Session, e.Doc, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: put %d entries: %w", len(entries), err)
	}
	return nil
}

// Entries returns the entries of one session, ordered by document.
func (db *DB) Entries(ctx context.Context, session string) ([]Entry, error) {
	es, err := db.queryEntries(ctx, `WHERE session = ? ORDER BY doc`, session)
	if err != nil {
		return nil, fmt.Errorf("store: entries of session %q: %w", session, err)
	}
	return es, nil
}

// AllEntries returns every entry, ordered by session and document.
func (db *DB) AllEntries(ctx context.Context) ([]Entry, error) {
	es, err := db.queryEntries(ctx, `ORDER BY session, doc`)
	if err != nil {
		return nil, fmt.Errorf("store: all entries: %w", classify(err))
	}
	return es, nil
}

func (db *DB) queryEntries(ctx context.Context, where string, args ...any) ([]Entry, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+entryColumns+` FROM ledger_entries `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var es []Entry
	for rows.Next() {
		var e Entry
		var at int64
		if err := rows.Scan(&e.Session, &e.Doc, &e.FileHash, &e.TotalLines, &e.Data, &at, &e.LineHashes); err != nil {
			return nil, err
		}
		e.UpdatedAt = fromMillis(at)
		es = append(es, e)
	}
	return es, rows.Err()
}

// DeleteEntry removes one session's entry for one document.
func (db *DB) DeleteEntry(ctx context.Context, session, doc string) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM ledger_entries WHERE session = ? AND doc = ?`, session, doc); err != nil {
		return fmt.Errorf("store: delete entry of session %q doc %q: %w", session, doc, err)
	}
	return nil
}

// DeleteSession removes every entry of a session (session reset).
func (db *DB) DeleteSession(ctx context.Context, session string) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM ledger_entries WHERE session = ?`, session); err != nil {
		return fmt.Errorf("store: delete session %q: %w", session, err)
	}
	return nil
}

// DeleteDoc removes every session's entry for a document (deleted file).
func (db *DB) DeleteDoc(ctx context.Context, doc string) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM ledger_entries WHERE doc = ?`, doc); err != nil {
		return fmt.Errorf("store: delete doc %q: %w", doc, err)
	}
	return nil
}
