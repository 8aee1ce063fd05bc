package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
	// (the store does not look inside; see statedb). Empty for entries
	// written before they were kept. They are a function of the text, so
	// they are stored once per FileHash (table line_hashes), not per entry:
	// writing an entry without them keeps those the text has.
	LineHashes []byte
	UpdatedAt  time.Time // when the entry changed; PutEntries sets it when zero. Stored to the millisecond.
}

const entryColumns = `session, doc, file_hash, total_lines, data, updated_at`

// PutEntries inserts or replaces entries, keyed by (Session, Doc), in one
// transaction: all are written or none.
func (db *DB) PutEntries(ctx context.Context, entries []Entry) error {
	return db.PutEntriesMerging(ctx, entries, nil)
}

// Merger makes the entry to write from put and the one the database holds
// under its key (cur), read in the write's transaction, so that no other
// process writes between the read and the write. lineHashes reads a text's
// stored line hashes (nil when none are kept) in the same transaction.
type Merger func(put, cur Entry, lineHashes func(fileHash string) ([]byte, error)) (Entry, error)

// PutEntriesMerging is PutEntries where an entry the database already holds
// is replaced by what merge makes of it and the one put (nil: the one put);
// entries are updated in place to what was written.
// Two processes of one session that each restored an entry, added to it
// and write it back keep both their additions, whichever writes last.
func (db *DB) PutEntriesMerging(ctx context.Context, entries []Entry, merge Merger) error {
	_, err := db.PutEntriesMarked(ctx, entries, merge)
	return err
}

// PutEntriesMarked is PutEntriesMerging, which also says where the
// entries' clock stood before and after the write, so the writer need not
// read its own write back as a change (Mark.Advance).
func (db *DB) PutEntriesMarked(ctx context.Context, entries []Entry, merge Merger) (Written, error) {
	if len(entries) == 0 {
		return Written{}, nil
	}
	now := time.Now()
	db.mu.RLock()
	w := Written{gen: db.gen}
	db.mu.RUnlock()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT seq FROM ledger_clock WHERE id = 1`).Scan(&w.before); err != nil {
			return fmt.Errorf("entries' clock: %w", err)
		}
		if merge != nil {
			if err := mergeInTx(ctx, tx, entries, merge); err != nil {
				return err
			}
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO ledger_entries (`+entryColumns+`)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (session, doc) DO UPDATE SET
				file_hash = excluded.file_hash, total_lines = excluded.total_lines,
				data = excluded.data, updated_at = excluded.updated_at`)
		if err != nil {
			return err
		}
		defer st.Close()
		added := false
		for _, e := range entries {
			at := e.UpdatedAt
			if at.IsZero() {
				at = now
			}
			// A nil slice binds as NULL; the column is NOT NULL.
			data := e.Data
			if data == nil {
				data = []byte{}
			}
			if _, err := st.ExecContext(ctx, e.Session, e.Doc, e.FileHash, e.TotalLines, data, millis(at)); err != nil {
				return fmt.Errorf("session %q doc %q: %w", e.Session, e.Doc, err)
			}
			a, err := putLineHashes(ctx, tx, e.FileHash, e.LineHashes)
			if err != nil {
				return err
			}
			added = added || a
		}
		if added {
			if err := dropUnusedLineHashes(ctx, tx); err != nil {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx, `SELECT seq FROM ledger_clock WHERE id = 1`).Scan(&w.after); err != nil {
			return fmt.Errorf("entries' clock: %w", err)
		}
		return nil
	})
	if err != nil {
		return Written{}, fmt.Errorf("store: put %d entries: %w", len(entries), err)
	}
	return w, nil
}

// mergeInTx merges each of entries the database holds with what it holds
// (merge), in place.
func mergeInTx(ctx context.Context, tx *sql.Tx, entries []Entry, merge Merger) error {
	lineHashes := func(fileHash string) ([]byte, error) { return lineHashesIn(ctx, tx, fileHash) }
	for i, e := range entries {
		cur := Entry{Session: e.Session, Doc: e.Doc}
		var at int64
		err := tx.QueryRowContext(ctx, `SELECT file_hash, total_lines, data, updated_at FROM ledger_entries WHERE session = ? AND doc = ?`,
			e.Session, e.Doc).Scan(&cur.FileHash, &cur.TotalLines, &cur.Data, &at)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return fmt.Errorf("session %q doc %q: %w", e.Session, e.Doc, err)
		}
		cur.UpdatedAt = fromMillis(at)
		m, err := merge(e, cur, lineHashes)
		if err != nil {
			return fmt.Errorf("session %q doc %q: merge: %w", e.Session, e.Doc, err)
		}
		entries[i] = m
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

// DocEntries returns the entries of doc: of the given sessions, or of
// every session when none is given (a process of one call restores its
// session's, not every session's that ever read the document).
func (db *DB) DocEntries(ctx context.Context, doc string, sessions ...string) ([]Entry, error) {
	where, args := `WHERE doc = ?`, []any{doc}
	if len(sessions) > 0 {
		where += ` AND session IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(sessions)), ", ") + `)`
		for _, s := range sessions {
			args = append(args, s)
		}
	}
	es, err := db.queryEntriesNoHashes(ctx, where+` ORDER BY session`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: entries of doc %q: %w", doc, err)
	}
	return es, nil
}

// SessionDocs returns the documents a session has entries of.
func (db *DB) SessionDocs(ctx context.Context, session string) ([]string, error) {
	rows, err := db.pool().QueryContext(ctx, `SELECT doc FROM ledger_entries WHERE session = ? ORDER BY doc`, session)
	if err != nil {
		return nil, fmt.Errorf("store: documents of session %q: %w", session, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, fmt.Errorf("store: documents of session %q: %w", session, err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
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
	return db.scanEntries(ctx, true, `SELECT session, doc, ledger_entries.file_hash, total_lines, ledger_entries.data, updated_at, COALESCE(line_hashes.data, x'')
		FROM ledger_entries LEFT JOIN line_hashes USING (file_hash) `+where, args...)
}

func (db *DB) queryEntriesNoHashes(ctx context.Context, where string, args ...any) ([]Entry, error) {
	return db.scanEntries(ctx, false, `SELECT `+entryColumns+` FROM ledger_entries `+where, args...)
}

func (db *DB) scanEntries(ctx context.Context, hashes bool, query string, args ...any) ([]Entry, error) {
	rows, err := db.pool().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var es []Entry
	for rows.Next() {
		var e Entry
		var at int64
		dst := []any{&e.Session, &e.Doc, &e.FileHash, &e.TotalLines, &e.Data, &at}
		if hashes {
			dst = append(dst, &e.LineHashes)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		e.UpdatedAt = fromMillis(at)
		es = append(es, e)
	}
	return es, rows.Err()
}

// LineHashes returns the line hashes kept for a text; empty when none are.
func (db *DB) LineHashes(ctx context.Context, fileHash string) ([]byte, error) {
	b, err := lineHashesIn(ctx, db.pool(), fileHash)
	if err != nil {
		return nil, fmt.Errorf("store: line hashes of %s: %w", fileHash, err)
	}
	return b, nil
}

// lineHashesIn reads a text's stored line hashes through q (the pool, or a
// transaction); nil when none are kept.
func lineHashesIn(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, fileHash string) ([]byte, error) {
	var b []byte
	err := q.QueryRowContext(ctx, `SELECT data FROM line_hashes WHERE file_hash = ?`, fileHash).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return b, err
}

// HasLineHashes reports whether the line hashes of a text are kept, so a
// writer that has them need not compute them.
func (db *DB) HasLineHashes(ctx context.Context, fileHash string) (bool, error) {
	var one int
	err := db.pool().QueryRowContext(ctx, `SELECT 1 FROM line_hashes WHERE file_hash = ?`, fileHash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: line hashes of %s: %w", fileHash, err)
	}
	return true, nil
}

// putLineHashes keeps a text's line hashes unless they are kept already
// (checked first: binding them costs more than the lookup); added reports
// a new row.
func putLineHashes(ctx context.Context, tx *sql.Tx, fileHash string, data []byte) (added bool, err error) {
	if len(data) == 0 {
		return false, nil
	}
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM line_hashes WHERE file_hash = ?`, fileHash).Scan(&one)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("line hashes of %s: %w", fileHash, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO line_hashes (file_hash, data) VALUES (?, ?)`, fileHash, data); err != nil {
		return false, fmt.Errorf("line hashes of %s: %w", fileHash, err)
	}
	return true, nil
}

// dropUnusedLineHashes forgets the line hashes of texts no entry and no
// file stat describes any more (earlier versions of edited files). It runs
// when a new text was added, so the table stays about as large as the
// entries.
func dropUnusedLineHashes(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM line_hashes WHERE file_hash NOT IN (SELECT file_hash FROM ledger_entries)
		AND file_hash NOT IN (SELECT file_hash FROM file_stats)`)
	if err != nil {
		return fmt.Errorf("drop unused line hashes: %w", err)
	}
	return nil
}

// DeleteEntry removes one session's entry for one document.
func (db *DB) DeleteEntry(ctx context.Context, session, doc string) error {
	if _, err := db.pool().ExecContext(ctx, `DELETE FROM ledger_entries WHERE session = ? AND doc = ?`, session, doc); err != nil {
		return fmt.Errorf("store: delete entry of session %q doc %q: %w", session, doc, err)
	}
	return nil
}

// DeleteSession removes every entry of a session (session reset).
func (db *DB) DeleteSession(ctx context.Context, session string) error {
	if _, err := db.pool().ExecContext(ctx, `DELETE FROM ledger_entries WHERE session = ?`, session); err != nil {
		return fmt.Errorf("store: delete session %q: %w", session, err)
	}
	return nil
}

// DeleteDoc removes every session's entry for a document (deleted file).
func (db *DB) DeleteDoc(ctx context.Context, doc string) error {
	if _, err := db.pool().ExecContext(ctx, `DELETE FROM ledger_entries WHERE doc = ?`, doc); err != nil {
		return fmt.Errorf("store: delete doc %q: %w", doc, err)
	}
	return nil
}
