// Package store is sightline's embedded database: one SQLite file per
// workspace (pure Go, no cgo) holding the persisted ledger entries and the
// audit log, the file history, the approvals and the write journal. The
// ledger itself lives in memory; the store is written behind it (package
// statedb's write-behind, and the audit and history workers of package
// engine), never on the request path.
//
// Several processes of one workspace (two editor windows, the CLI) open the
// same file: WAL lets readers run beside the one writer, write transactions
// begin IMMEDIATE so they queue on the lock instead of failing on upgrade,
// and a busy timeout makes them wait for each other rather than fail.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/sightline-lsp/sightline/pathlock"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
)

// FileName is the database's name inside the state folder.
const FileName = "state.db"

// busyTimeout is how long a statement waits for another connection's lock.
// Writes are short (a write-behind batch, a migration), so a lock held longer
// is a process that keeps it: waiting longer would stall every CLI call, and
// the caller reports it instead.
const busyTimeout = 1500 * time.Millisecond

// Dir returns the state folder of the workspace at root, creating it (0700)
// (on failure, the folder it tried with the error):
// <state>/sightline/<name>-<12 hex of sha256(absolute root)>, <state> being
// stateBase's. The name part is only for
// people; the hash keeps two workspaces of the same name apart. Symlinks in
// root are resolved, so the editor and the CLI agree on one folder however
// they reached the workspace.
func Dir(root string) (string, error) {
	dir, abs, err := dirOf(root)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		// The folder is returned with the error: the caller names it.
		return dir, fmt.Errorf("store: create state folder: %w", err)
	}
	recordRoot(dir, abs)
	return dir, nil
}

// DirOf is the state folder Dir would return, without making it: a
// command that only looks (sightline daemon status) leaves nothing behind.
func DirOf(root string) (string, error) {
	dir, _, err := dirOf(root)
	return dir, err
}

// dirOf is the state folder of root and root's real absolute path.
func dirOf(root string) (dir, abs string, err error) {
	abs, err = filepath.Abs(root)
	if err != nil {
		return "", "", fmt.Errorf("store: workspace root %s: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	base, err := stateBase()
	if err != nil {
		return "", "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(base, "sightline", folderName(filepath.Base(abs))+"-"+hex.EncodeToString(sum[:])[:12]), abs, nil
}

// stateBase is $XDG_STATE_HOME when it is set (absolute), else on Windows
// the local application data folder (%LOCALAPPDATA%: per machine, not
// roaming), elsewhere ~/.local/state. macOS keeps the XDG place rather
// than ~/Library/Application Support: the bridge's socket lives in the
// state folder and a socket's path is limited to 104 bytes there.
func stateBase() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if filepath.IsAbs(base) { // the XDG spec says to ignore relative values
		return base, nil
	}
	if runtime.GOOS == "windows" {
		if local := os.Getenv("LOCALAPPDATA"); filepath.IsAbs(local) {
			return local, nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("store: state folder: %w", err)
	}
	if runtime.GOOS == "windows" {
		return filepath.Join(home, "AppData", "Local"), nil
	}
	return filepath.Join(home, ".local", "state"), nil
}

// LockDir returns the folder of the per-file write locks:
// <state>/sightline/locks. It is one folder for every workspace of
// the user, not one per workspace, so two workspaces that overlap (a server
// on a repository, the CLI in a nested folder of it) share the locks of
// their common files. Without a home folder it falls back to the system's
// temp folder, per user.
func LockDir() string {
	if base, err := stateBase(); err == nil {
		return filepath.Join(base, "sightline", "locks")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("sightline-%d", os.Getuid()), "locks")
}

// folderName keeps a workspace's base name readable and safe as a path
// element on any file system.
func folderName(base string) string {
	const maxLen = 40
	var b strings.Builder
	for _, r := range base {
		if b.Len() >= maxLen {
			break
		}
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), ".")
	if name == "" {
		return "root"
	}
	return name
}

// DB is an open state database. It is safe for concurrent use.
type DB struct {
	path string
	dsn  string

	mu   sync.RWMutex
	sql  *sql.DB
	file os.FileInfo // the database file opened, to notice it deleted or replaced
	// watch is the connection that asks whether others committed (see
	// EntriesSince), opened at its first use; gen counts the files opened.
	watch   *sql.Conn
	gen     uint64
	watchMu sync.Mutex // orders the uses of watch
	// watchStmts are the watching connection's statements, prepared once
	// (watchStmt) on watchConn, the connection they belong to.
	watchStmts map[string]*sql.Stmt
	watchConn  *sql.Conn

	// stmts are statements run on every call of a long-lived process,
	// prepared once on the pool (poolStmt): SQLite parses a statement's
	// text anew at every prepare, and that costs more than running it.
	stmtMu    sync.Mutex
	stmts     map[string]*sql.Stmt
	stmtsPool *sql.DB // the pool they were prepared on

	// life orders Reopen against Close, and closed is set by Close: a
	// database closed is never opened again (a write-behind loop finishing
	// its last flush would otherwise make the file anew in a state folder
	// being removed).
	life   sync.Mutex
	closed bool
}

// poolStmt is query prepared on the open pool, once per pool (a Reopen
// starts another).
func (db *DB) poolStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	pool := db.pool()
	db.stmtMu.Lock()
	defer db.stmtMu.Unlock()
	if db.stmtsPool != pool {
		// Those of a pool left are closed with it.
		db.stmts, db.stmtsPool = map[string]*sql.Stmt{}, pool
	}
	if st := db.stmts[query]; st != nil {
		return st, nil
	}
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	db.stmts[query] = st
	return st, nil
}

// pool is the open database.
func (db *DB) pool() *sql.DB {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.sql
}

// Open opens the state database in dir (creating dir and the database as
// needed) and brings its schema up to date.
func Open(dir string) (*DB, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	path, err := filepath.Abs(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	private(path)
	// Connection settings go in the DSN so every pooled connection gets them,
	// not only the first. The path is URI-escaped: a '?' or '#' in it would
	// otherwise cut the DSN short.
	q := url.Values{}
	// Not the journal mode: switching it is a write, done once per file
	// (the file keeps it) by migrate, not by every connection at its open.
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_foreign_keys", "1")
	q.Set("_synchronous", "NORMAL") // with WAL: durable at checkpoints, never corrupt
	q.Set("_txlock", "immediate")
	// With the write-ahead log kept (see connector), the last close empties
	// it after its checkpoint instead of removing it; the limit also trims
	// a log a long-lived process grew beyond it.
	q.Set("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()

	db := &DB{path: path, dsn: dsn}
	sdb, fi, err := db.open()
	if err != nil {
		return nil, err
	}
	db.sql, db.file = sdb, fi
	return db, nil
}

// leaveLimit bounds the write-ahead log a process leaves (see Leave): the
// next process's open reads all of it.
const leaveLimit = 512 << 10

// walSizeLimit is the size the write-ahead log is trimmed to after a
// checkpoint, when it grew beyond it.
const walSizeLimit = 4 << 20

// connector opens connections that keep the write-ahead log and its index
// when the last one closes (SQLite's persistent WAL). Every CLI call opens
// the database, and one that finds the log large closes it (see Leave):
// without this, each created the two files (and synced the folder for the
// new log) and removed them at its close.
type connector struct{ driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	fc, ok := conn.(sqlite.FileControl)
	if !ok {
		conn.Close()
		return nil, errors.New("the SQLite driver offers no file control")
	}
	if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
		conn.Close()
		return nil, fmt.Errorf("keep the write-ahead log: %w", err)
	}
	return conn, nil
}

// open opens the database file (creating it and its schema as needed) and
// returns it with the file's identity.
func (db *DB) open() (*sql.DB, os.FileInfo, error) {
	base, err := sqlite.NewConnector(db.dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", db.path, err)
	}
	sdb := sql.OpenDB(connector{base})
	ctx, cancel := context.WithTimeout(context.Background(), migrateWait+4*busyTimeout)
	defer cancel()
	if err := migrate(ctx, sdb, db.path); err != nil {
		sdb.Close()
		return nil, nil, fmt.Errorf("store: open %s: %w", db.path, classify(err))
	}
	fi, err := os.Stat(db.path)
	if err != nil {
		sdb.Close()
		return nil, nil, fmt.Errorf("store: open %s: %w", db.path, err)
	}
	return sdb, fi, nil
}

// Replaced reports whether the database file is no longer the one opened:
// deleted, or another file put in its place. SQLite goes on writing to the
// file it has open, which is then lost with everything written to it.
func (db *DB) Replaced() bool {
	fi, err := os.Stat(db.path)
	db.mu.RLock()
	defer db.mu.RUnlock()
	return err != nil || !os.SameFile(fi, db.file)
}

// Reopen opens the file now at the database's path, creating it when it is
// gone, and closes the one open before: after Replaced, what is written
// goes where the next process will find it.
func (db *DB) Reopen() error {
	db.life.Lock()
	defer db.life.Unlock()
	if db.closed {
		return fmt.Errorf("store: reopen %s: the database was closed", db.path)
	}
	sdb, fi, err := db.open()
	if err != nil {
		return err
	}
	db.mu.Lock()
	old, watch := db.sql, db.watch
	db.sql, db.file, db.watch = sdb, fi, nil
	db.gen++
	db.mu.Unlock()
	if watch != nil {
		db.watchMu.Lock()
		db.closeWatchStmts(watch)
		db.watchMu.Unlock()
		watch.Close() // of the file left: its errors say nothing of the new one
	}
	db.closePoolStmts(old)
	return old.Close()
}

// private makes the database file the user's alone before SQLite opens it:
// it keeps file texts (secrets among them), and SQLite gives the -wal and
// -shm files it makes the database's mode. A file there already is
// narrowed too (an older sightline made it readable by all). Best effort:
// what cannot be done here, SQLite's open reports.
func private(path string) {
	if f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(name); err == nil && fi.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(name, fi.Mode().Perm()&^0o077) // another owner's file stays as it is
		}
	}
}

// Path returns the database file's path.
func (db *DB) Path() string { return db.path }

// Leave is Close for a process that exits right after: it leaves the
// connections to the exit. The last connection to close checkpoints the
// write-ahead log into the database file, syncing both, and empties the
// log, which the next write starts anew and syncs again: four syncs, a few
// milliseconds of a CLI command that takes tens. Left, what the process
// committed stays in the log (written, not yet synced, as every commit of a
// long-lived process is between checkpoints: synchronous=NORMAL), the kernel
// drops the locks with the process, and the next process to open the
// database rebuilds the log's index from it, as after a crash, which SQLite
// is built to survive.
//
// That open reads the whole log, and the index it rebuilds does not know
// what was checkpointed before (so the log is not started anew, and grows):
// a process that finds the log past leaveLimit closes instead, which
// checkpoints and empties it. Nothing of the database may be used after
// Leave.
func (db *DB) Leave() error {
	db.life.Lock()
	db.closed = true
	db.life.Unlock()
	if fi, err := os.Stat(db.path + "-wal"); err != nil || fi.Size() > leaveLimit {
		return db.Close()
	}
	return nil
}

// Close closes the database.
func (db *DB) Close() error {
	db.life.Lock()
	db.closed = true
	db.life.Unlock()
	db.mu.Lock()
	watch := db.watch
	db.watch = nil
	db.mu.Unlock()
	if watch != nil {
		db.watchMu.Lock()
		db.closeWatchStmts(watch)
		db.watchMu.Unlock()
		watch.Close() // back to the pool, which closes it
	}
	db.closePoolStmts(db.pool())
	if err := db.pool().Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}

// migrateWait bounds the wait for another process's schema upgrade.
const migrateWait = 15 * time.Second

// migrations returns the schema steps; step i brings user_version from i to
// i+1. Steps are only ever appended: a released step never changes.
func migrations() []string {
	return []string{
		// 1: ledger entries and the audit log.
		`CREATE TABLE ledger_entries (
			session     TEXT    NOT NULL,
			doc         TEXT    NOT NULL,
			file_hash   TEXT    NOT NULL,
			total_lines INTEGER NOT NULL,
			data        BLOB    NOT NULL,
			updated_at  INTEGER NOT NULL, -- unix milliseconds
			PRIMARY KEY (session, doc)
		) WITHOUT ROWID;
		CREATE INDEX ledger_entries_doc ON ledger_entries (doc);
		CREATE TABLE audit (
			id          INTEGER PRIMARY KEY,
			time        INTEGER NOT NULL, -- unix milliseconds
			session     TEXT    NOT NULL,
			agent       TEXT    NOT NULL,
			method      TEXT    NOT NULL,
			path        TEXT    NOT NULL,
			outcome     TEXT    NOT NULL,
			error       TEXT    NOT NULL,
			before_hash TEXT    NOT NULL,
			after_hash  TEXT    NOT NULL,
			args_digest TEXT    NOT NULL
		);`,
		// 2: what the edit metrics need: latency and the guard's verdict.
		`ALTER TABLE audit ADD COLUMN duration_us INTEGER NOT NULL DEFAULT 0;
		ALTER TABLE audit ADD COLUMN guard TEXT NOT NULL DEFAULT '';
		CREATE INDEX audit_method ON audit (method, id);`,
		// 3: the line hashes of the text an entry describes, so a file that
		// changed while no process watched it keeps the reads of its
		// unchanged lines. Entries of older versions have none ('').
		`ALTER TABLE ledger_entries ADD COLUMN line_hashes BLOB NOT NULL DEFAULT x'';`,
		// 4: line hashes kept once per text (by file hash) instead of in
		// every entry, so an entry that changes rewrites its few ranges, not
		// 3 bytes a line; and file_stats: what a file's bytes hash to, keyed
		// by the stat that identifies them, so a range read need not read
		// the whole file (see FileStat).
		`CREATE TABLE line_hashes (
			file_hash TEXT NOT NULL PRIMARY KEY,
			data      BLOB NOT NULL
		);
		INSERT OR IGNORE INTO line_hashes (file_hash, data)
			SELECT file_hash, line_hashes FROM ledger_entries WHERE length(line_hashes) > 0;
		UPDATE ledger_entries SET line_hashes = x'';
		CREATE TABLE file_stats (
			doc         TEXT    NOT NULL PRIMARY KEY,
			size        INTEGER NOT NULL,
			mtime_ns    INTEGER NOT NULL,
			ino         INTEGER NOT NULL,
			ctime_ns    INTEGER NOT NULL,
			file_hash   TEXT    NOT NULL,
			total_lines INTEGER NOT NULL
		) WITHOUT ROWID;`,
		// 5: approvals of sensitive paths, per session; file history
		// (versions, and their texts stored once per sha256, compressed);
		// audit lookups by path and session, and pruning by time.
		`CREATE TABLE approvals (
			session    TEXT    NOT NULL,
			path       TEXT    NOT NULL,
			rule       TEXT    NOT NULL,
			agent      TEXT    NOT NULL,
			granted_at INTEGER NOT NULL, -- unix milliseconds
			PRIMARY KEY (session, path)
		) WITHOUT ROWID;
		CREATE TABLE history_blobs (
			hash TEXT    PRIMARY KEY, -- "sha256:<hex>" of the text
			size   INTEGER NOT NULL,  -- bytes of the text
			stored INTEGER NOT NULL,  -- bytes of data
			data   BLOB    NOT NULL   -- the text, gzip-compressed
		) WITHOUT ROWID;
		CREATE TABLE history_versions (
			id      INTEGER PRIMARY KEY,
			time    INTEGER NOT NULL, -- unix milliseconds
			path    TEXT    NOT NULL, -- relative to the workspace root
			hash    TEXT    NOT NULL REFERENCES history_blobs (hash),
			session TEXT    NOT NULL,
			agent   TEXT    NOT NULL,
			method  TEXT    NOT NULL
		);
		CREATE INDEX history_versions_path ON history_versions (path, id);
		CREATE INDEX history_versions_hash ON history_versions (hash);
		CREATE INDEX audit_path ON audit (path, id);
		CREATE INDEX audit_session ON audit (session, id);
		CREATE INDEX audit_time ON audit (time);`,
		// 6: a history text may be kept as a delta against another (base):
		// a one-line edit of a large file stores the line, not the file.
		// Texts move out of history_blobs into a rowid table: in a WITHOUT
		// ROWID table every lookup that lands on a row compares its whole
		// record, reading a megabyte-sized text through its overflow pages.
		// history_blobs keeps the small columns (data left empty).
		`CREATE TABLE history_data (
			id   INTEGER PRIMARY KEY,
			hash TEXT    NOT NULL UNIQUE, -- history_blobs.hash
			data BLOB    NOT NULL         -- the whole text gzip-compressed, or its delta
		);
		INSERT INTO history_data (hash, data) SELECT hash, data FROM history_blobs;
		UPDATE history_blobs SET data = x'';
		CREATE TABLE history_chain (
			hash  TEXT    PRIMARY KEY REFERENCES history_blobs (hash), -- a text kept as a delta
			base  TEXT    NOT NULL,   -- the text the delta applies to
			depth INTEGER NOT NULL    -- deltas from a whole text, this one included
		) WITHOUT ROWID;
		CREATE INDEX history_chain_base ON history_chain (base);`,
		// 7: the history's stored bytes as a running total the triggers
		// keep, so the retention check (at every start of a process) reads
		// one row, not the size of every text.
		`CREATE TABLE history_total (
			id     INTEGER PRIMARY KEY CHECK (id = 1),
			stored INTEGER NOT NULL
		);
		INSERT INTO history_total (id, stored) SELECT 1, coalesce(sum(stored), 0) FROM history_blobs;
		CREATE TRIGGER history_total_insert AFTER INSERT ON history_blobs BEGIN
			UPDATE history_total SET stored = stored + NEW.stored WHERE id = 1;
		END;
		CREATE TRIGGER history_total_delete AFTER DELETE ON history_blobs BEGIN
			UPDATE history_total SET stored = stored - OLD.stored WHERE id = 1;
		END;
		CREATE TRIGGER history_total_update AFTER UPDATE OF stored ON history_blobs BEGIN
			UPDATE history_total SET stored = stored - OLD.stored + NEW.stored WHERE id = 1;
		END;`,
		// 8: the journal of multi-file writes in progress: what each one
		// moves into place, so a write cut short by a crash is finished or
		// undone when the next process opens the database.
		`CREATE TABLE write_journal (
			id      TEXT    PRIMARY KEY,
			state   TEXT    NOT NULL, -- staged: undo on recovery; committed: finish
			ops     BLOB    NOT NULL, -- JSON, the writer's own format
			created INTEGER NOT NULL  -- unix milliseconds
		) WITHOUT ROWID;`,
		// 9: every write of an entry numbered from one clock (seq), so a
		// process that lives on reads the entries others wrote since it
		// last looked, and only those (EntriesSince). A counter of its
		// own, not max(seq): a deleted entry would give its number again.
		`CREATE TABLE ledger_clock (
			id  INTEGER PRIMARY KEY CHECK (id = 1),
			seq INTEGER NOT NULL
		);
		INSERT INTO ledger_clock (id, seq) VALUES (1, 0);
		ALTER TABLE ledger_entries ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
		CREATE INDEX ledger_entries_seq ON ledger_entries (seq);
		CREATE TRIGGER ledger_entries_seq_insert AFTER INSERT ON ledger_entries BEGIN
			UPDATE ledger_clock SET seq = seq + 1 WHERE id = 1;
			UPDATE ledger_entries SET seq = (SELECT seq FROM ledger_clock WHERE id = 1)
				WHERE session = NEW.session AND doc = NEW.doc;
		END;
		CREATE TRIGGER ledger_entries_seq_update AFTER UPDATE OF file_hash, total_lines, data ON ledger_entries BEGIN
			UPDATE ledger_clock SET seq = seq + 1 WHERE id = 1;
			UPDATE ledger_entries SET seq = (SELECT seq FROM ledger_clock WHERE id = 1)
				WHERE session = NEW.session AND doc = NEW.doc;
		END;`,
		// 10: the declarations extracted from a text, by its hash, the
		// language it was read as and the extractor: a workspace symbol
		// query extracts only the files whose bytes it has not seen.
		`CREATE TABLE symbol_sets (
			file_hash TEXT NOT NULL,
			lang      TEXT NOT NULL,
			extractor TEXT NOT NULL,
			data      BLOB NOT NULL, -- JSON, the extractor's symbols
			PRIMARY KEY (file_hash, lang, extractor)
		) WITHOUT ROWID;`,
	}
}

// migrate switches a new database to write-ahead logging and applies the
// missing schema steps in one write transaction, so two processes opening a
// new database at once do not both create it.
func migrate(ctx context.Context, sdb *sql.DB, path string) error {
	steps := migrations()
	if version, mode, err := state(ctx, sdb); err != nil || version != len(steps) || mode != "wal" {
		// Migrating (a new database, or an older one): one process at a time,
		// across processes (a lock file beside the database), with a bound of
		// its own: the others wait for it rather than fail on a database busy
		// for as long as a schema takes to build on a loaded machine.
		release, err := pathlock.New(filepath.Dir(path)).Lock(ctx, path, migrateWait)
		if err != nil {
			return fmt.Errorf("wait for another process's schema upgrade: %w", err)
		}
		defer release()
		if err := walMode(ctx, sdb); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	// Up to date or not, a write transaction: it finds a database another
	// process holds locked now, not at the first write behind the answer.
	err := inTx(ctx, sdb, func(tx *sql.Tx) error {
		var version int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if version > len(steps) {
			return fmt.Errorf("schema version %d is newer than this sightline's %d; update sightline", version, len(steps))
		}
		if version == len(steps) {
			return nil
		}
		for i := version; i < len(steps); i++ {
			if _, err := tx.ExecContext(ctx, steps[i]); err != nil {
				return fmt.Errorf("schema version %d: %w", i+1, err)
			}
		}
		// PRAGMA takes no parameters; the value is our own integer.
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(steps)))
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// state reads the schema version and the journal mode, on one connection:
// a connection knows the file's mode only once it has read the file.
func state(ctx context.Context, sdb *sql.DB) (version int, mode string, err error) {
	c, err := sdb.Conn(ctx)
	if err != nil {
		return 0, "", err
	}
	defer c.Close()
	if err := c.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return 0, "", err
	}
	if err := c.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return 0, "", err
	}
	return version, mode, nil
}

// walMode switches the database's journal to write-ahead logging (a no-op
// when it is already). The switch reads the file, then writes it: while
// another connection holds the write lock, SQLite answers "locked" at once
// rather than call the busy handler (a read upgraded to a write could
// deadlock), so the wait the busy timeout promises is made here.
func walMode(ctx context.Context, sdb *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for {
		var mode string
		err := sdb.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil || !busy(err) || time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("switch to write-ahead logging: %w", err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("switch to write-ahead logging: %w", errors.Join(err, ctx.Err()))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// inTx runs fn in a write transaction and commits it, or rolls it back if
// fn fails.
func (db *DB) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return inTx(ctx, db.pool(), fn)
}

func inTx(ctx context.Context, sdb *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := sdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, rollback(tx))
	}
	return tx.Commit()
}

func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return err
	}
	return nil
}

// millis converts a time to what the database stores: unix milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms) }
