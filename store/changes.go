package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Mark is where a reader of the entries' changes stands (EntriesSince):
// the database's data version as its watching connection last read it,
// and the last entry change it has taken in.
type Mark struct {
	gen     uint64 // the file opened (Reopen starts another)
	version int64  // PRAGMA data_version on the watching connection
	seq     int64  // ledger_clock.seq of the last change taken in
}

// watcher is the connection that asks whether another connection
// committed: PRAGMA data_version is per connection, so it is always asked
// on this one. mu orders its uses.
func (db *DB) watcher(ctx context.Context) (*sql.Conn, uint64, error) {
	db.mu.RLock()
	c, gen, pool := db.watch, db.gen, db.sql
	db.mu.RUnlock()
	if c != nil {
		return c, gen, nil
	}
	c, err := pool.Conn(ctx)
	if err != nil {
		return nil, gen, err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.gen != gen || db.watch != nil { // reopened, or another caller won
		c.Close()
		if db.watch == nil {
			return nil, gen, fmt.Errorf("the database was reopened")
		}
		return db.watch, db.gen, nil
	}
	db.watch = c
	return c, gen, nil
}

// watchStmt is query prepared on the watching connection c, once while c
// is the watcher. The caller holds watchMu.
func (db *DB) watchStmt(ctx context.Context, c *sql.Conn, query string) (*sql.Stmt, error) {
	if db.watchConn != c {
		// Those of a connection left were closed before it (every path that
		// leaves one closes them: closeWatchStmts).
		db.watchStmts, db.watchConn = map[string]*sql.Stmt{}, c
	}
	if st := db.watchStmts[query]; st != nil {
		return st, nil
	}
	st, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	db.watchStmts[query] = st
	return st, nil
}

// watchQueryRow is QueryRowContext of query on the watching connection c,
// through its prepared statement.
func (db *DB) watchQueryRow(ctx context.Context, c *sql.Conn, query string, args ...any) *sql.Row {
	st, err := db.watchStmt(ctx, c, query)
	if err != nil {
		return c.QueryRowContext(ctx, query, args...) // the error again, from the query
	}
	return st.QueryRowContext(ctx, args...)
}

// dropWatcher forgets the watching connection c after an error on it, so
// the next use opens another rather than fail on it for good.
func (db *DB) dropWatcher(c *sql.Conn) {
	db.mu.Lock()
	if db.watch == c {
		db.watch = nil
	}
	db.mu.Unlock()
	db.closeWatchStmts(c)
	c.Close()
}

// closeWatchStmts closes the statements prepared on the watching
// connection c, before c is closed: a statement left open keeps its
// connection, and so the database file, open after the database is closed
// (Windows then refuses to remove it), and one closed after its connection
// crashes the driver. The caller holds watchMu, or c is no longer reachable
// by a watch.
func (db *DB) closeWatchStmts(c *sql.Conn) {
	if db.watchConn != c {
		return
	}
	for _, st := range db.watchStmts {
		st.Close()
	}
	db.watchStmts, db.watchConn = nil, nil
}

// closePoolStmts closes the statements prepared on pool, before it is
// closed (see closeWatchStmts).
func (db *DB) closePoolStmts(pool *sql.DB) {
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if db.stmtsPool != pool {
		return
	}
	for _, st := range db.stmts {
		st.Close()
	}
	db.stmts, db.stmtsPool = nil, nil
}

// MarkNow is where a reader that has just read what it needs of the
// entries stands.
func (db *DB) MarkNow(ctx context.Context) (Mark, error) {
	db.watchMu.Lock()
	defer db.watchMu.Unlock()
	c, gen, err := db.watcher(ctx)
	if err != nil {
		return Mark{}, fmt.Errorf("store: watch for changes: %w", err)
	}
	m := Mark{gen: gen}
	// The version first: a commit between the two reads is then seen as
	// a change next time (and found already taken in), never missed.
	if err := db.watchQueryRow(ctx, c, `PRAGMA data_version`).Scan(&m.version); err != nil {
		db.dropWatcher(c)
		return Mark{}, fmt.Errorf("store: data version: %w", err)
	}
	if err := db.watchQueryRow(ctx, c, `SELECT seq FROM ledger_clock WHERE id = 1`).Scan(&m.seq); err != nil {
		db.dropWatcher(c)
		return Mark{}, fmt.Errorf("store: entries' clock: %w", err)
	}
	return m, nil
}

// EntriesSince returns the entries written since m (by any connection,
// this process's included), without their line hashes, oldest change
// first, and the mark to pass next (on an error, keep the one passed: the
// changes are read again). When no connection committed since,
// it costs one PRAGMA and returns none: a reader pays for what changed,
// not for what the database holds.
func (db *DB) EntriesSince(ctx context.Context, m Mark) ([]Entry, Mark, error) {
	db.watchMu.Lock()
	defer db.watchMu.Unlock()
	c, gen, err := db.watcher(ctx)
	if err != nil {
		return nil, m, fmt.Errorf("store: watch for changes: %w", err)
	}
	var v int64
	if err := db.watchQueryRow(ctx, c, `PRAGMA data_version`).Scan(&v); err != nil {
		db.dropWatcher(c)
		return nil, m, fmt.Errorf("store: data version: %w", err)
	}
	if gen != m.gen {
		m = Mark{gen: gen} // another file: every change of it is new
	} else if v == m.version {
		return nil, m, nil
	}
	m.version = v
	since, err := db.watchStmt(ctx, c, `SELECT seq, `+entryColumns+` FROM ledger_entries WHERE seq > ? ORDER BY seq`)
	var rows *sql.Rows
	if err == nil {
		rows, err = since.QueryContext(ctx, m.seq)
	}
	if err != nil {
		db.dropWatcher(c)
		return nil, m, fmt.Errorf("store: entries changed: %w", err)
	}
	defer rows.Close()
	var es []Entry
	seq := m.seq
	for rows.Next() {
		var e Entry
		var at int64
		if err := rows.Scan(&seq, &e.Session, &e.Doc, &e.FileHash, &e.TotalLines, &e.Data, &at); err != nil {
			return nil, m, fmt.Errorf("store: entries changed: %w", err)
		}
		e.UpdatedAt = fromMillis(at)
		es = append(es, e)
	}
	if err := rows.Err(); err != nil {
		return nil, m, fmt.Errorf("store: entries changed: %w", err)
	}
	m.seq = seq
	return es, m, nil
}

// Advance moves m past a write of this process's (PutEntriesMerging's
// clock readings before and after it) when m stood right before it: that
// write need not be read back. Otherwise m is returned as it is, and the
// write is read with the others' when they are.
func (m Mark) Advance(w Written) Mark {
	if w.gen == m.gen && w.before == m.seq {
		m.seq = w.after
	}
	return m
}

// Written is the entries' clock around one write of this process.
type Written struct {
	gen           uint64
	before, after int64
}

// Clock reads the entries' clock: how many writes of entries the database
// has seen.
func (db *DB) Clock(ctx context.Context) (int64, error) {
	var n int64
	if err := db.pool().QueryRowContext(ctx, `SELECT seq FROM ledger_clock WHERE id = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: entries' clock: %w", err)
	}
	return n, nil
}
