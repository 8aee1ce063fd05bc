package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// ErrCorrupt and ErrLocked sort the failures of a state database that a
// caller handles differently: a corrupt one is moved aside and recreated; a
// locked one (another process holds its write lock past the busy timeout)
// is reported.
var (
	ErrCorrupt = errors.New("the database file is corrupt")
	ErrLocked  = errors.New("the database is locked by another process")
)

// SQLite result codes (the primary code is the low byte of an extended one).
const (
	sqliteBusy    = 5
	sqliteLocked  = 6
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

// classify wraps err with ErrCorrupt or ErrLocked when SQLite says so.
func classify(err error) error {
	if err == nil {
		return nil
	}
	code := 0
	var se *sqlite.Error
	if errors.As(err, &se) {
		code = se.Code() & 0xff
	}
	msg := err.Error()
	switch {
	case code == sqliteCorrupt || code == sqliteNotADB ||
		strings.Contains(msg, "file is not a database") || strings.Contains(msg, "malformed"):
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	case code == sqliteBusy || code == sqliteLocked || strings.Contains(msg, "database is locked"):
		return fmt.Errorf("%w (waited %v): %w", ErrLocked, busyTimeout, err)
	}
	return err
}

// busy reports whether err is SQLite's "database is locked".
func busy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteBusy
}

// Recover moves the corrupt database in dir aside, as
// state.db.corrupt-<time> (its -wal and -shm files alike), opens a new one,
// and copies into it every ledger entry still readable from the old file.
// It returns the new database, the path the old one was moved to, and how
// many entries were kept.
func Recover(dir string) (*DB, string, int, error) {
	path := filepath.Join(dir, FileName)
	aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405.000Z"))
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, "", 0, fmt.Errorf("store: move the corrupt database aside: %w", err)
		}
	}
	db, err := Open(dir)
	if err != nil {
		return nil, aside, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kept := salvage(ctx, aside)
	if len(kept) > 0 {
		if err := db.PutEntries(ctx, kept); err != nil {
			kept = nil
		}
	}
	return db, aside, len(kept), nil
}

// salvage reads the ledger entries of a corrupt database, row by row, until
// the first unreadable one: what can be kept is kept.
func salvage(ctx context.Context, path string) []Entry {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	q := url.Values{}
	q.Set("mode", "ro")
	sdb, err := sql.Open("sqlite", "file:"+(&url.URL{Path: abs}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil
	}
	defer sdb.Close()
	rows, err := sdb.QueryContext(ctx, `SELECT `+entryColumns+` FROM ledger_entries`)
	if err != nil {
		// Nothing readable (line hashes, kept in their own table, are not
		// salvaged: a restored entry then needs its file unchanged).
		return nil
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var at int64
		if rows.Scan(&e.Session, &e.Doc, &e.FileHash, &e.TotalLines, &e.Data, &at) != nil {
			break
		}
		e.UpdatedAt = fromMillis(at)
		out = append(out, e)
	}
	return out
}
