package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"
)

// Version is one recorded state of a file: its text is kept once per
// content hash, however many versions share it.
type Version struct {
	ID      int64
	Time    time.Time
	Path    string // relative to the workspace root
	Hash    string // "sha256:<hex>" of the text
	Size    int64
	Session string
	Agent   string
	Method  string // the call that produced it; "found" for a text sightline did not write
}

// Snapshot is a text to keep: its hash and bytes.
type Snapshot struct {
	Hash string
	Text []byte
}

// ErrNoVersion is returned for a version the history does not hold.
var ErrNoVersion = errors.New("no such version")

// HasBlob reports whether a text is stored.
func (db *DB) HasBlob(ctx context.Context, hash string) (bool, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM history_blobs WHERE hash = ?`, hash).Scan(&n); err != nil {
		return false, fmt.Errorf("store: history blob: %w", err)
	}
	return n > 0, nil
}

// Compress is the stored form of a text: gzip at its fastest level, since
// snapshots are taken on the write path and read rarely.
func Compress(text []byte) ([]byte, error) {
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(text); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// RecordWrite keeps a write in the history of path: the text before it (as
// a "found" version, unless it is the path's latest version already, or
// before is nil for a new file) and the text after it. Texts already stored
// are not stored again.
func (db *DB) RecordWrite(ctx context.Context, path string, before *Snapshot, after Snapshot, v Version) error {
	type blob struct {
		s      Snapshot
		packed []byte
	}
	var blobs []blob
	for _, s := range []*Snapshot{before, &after} {
		if s == nil {
			continue
		}
		ok, err := db.HasBlob(ctx, s.Hash)
		if err != nil {
			return err
		}
		if !ok {
			packed, err := Compress(s.Text)
			if err != nil {
				return fmt.Errorf("store: compress %s: %w", path, err)
			}
			blobs = append(blobs, blob{*s, packed})
		}
	}
	if v.Time.IsZero() {
		v.Time = time.Now()
	}
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		for _, b := range blobs {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO history_blobs (hash, size, stored, data) VALUES (?, ?, ?, ?)`,
				b.s.Hash, len(b.s.Text), len(b.packed), b.packed); err != nil {
				return err
			}
		}
		var latest string
		err := tx.QueryRowContext(ctx, `SELECT hash FROM history_versions WHERE path = ? ORDER BY id DESC LIMIT 1`, path).Scan(&latest)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if before != nil && latest != before.Hash {
			if _, err := tx.ExecContext(ctx, `INSERT INTO history_versions (time, path, hash, session, agent, method) VALUES (?, ?, ?, '', '', 'found')`,
				millis(v.Time), path, before.Hash); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO history_versions (time, path, hash, session, agent, method) VALUES (?, ?, ?, ?, ?, ?)`,
			millis(v.Time), path, after.Hash, v.Session, v.Agent, v.Method)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: record history of %s: %w", path, err)
	}
	return nil
}

// Versions lists the recorded versions of path, oldest first.
func (db *DB) Versions(ctx context.Context, path string) ([]Version, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT v.id, v.time, v.path, v.hash, b.size, v.session, v.agent, v.method
		FROM history_versions v JOIN history_blobs b ON b.hash = v.hash WHERE v.path = ? ORDER BY v.id`, path)
	if err != nil {
		return nil, fmt.Errorf("store: history of %s: %w", path, err)
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		var v Version
		var at int64
		if err := rows.Scan(&v.ID, &at, &v.Path, &v.Hash, &v.Size, &v.Session, &v.Agent, &v.Method); err != nil {
			return nil, fmt.Errorf("store: history of %s: %w", path, err)
		}
		v.Time = fromMillis(at)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: history of %s: %w", path, err)
	}
	return out, nil
}

// VersionText returns the text of version id of path.
func (db *DB) VersionText(ctx context.Context, path string, id int64) ([]byte, error) {
	var packed []byte
	err := db.sql.QueryRowContext(ctx, `SELECT b.data FROM history_versions v JOIN history_blobs b ON b.hash = v.hash
		WHERE v.path = ? AND v.id = ?`, path, id).Scan(&packed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoVersion
	}
	if err != nil {
		return nil, fmt.Errorf("store: version %d of %s: %w", id, path, err)
	}
	r, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		return nil, fmt.Errorf("store: version %d of %s: %w", id, path, err)
	}
	text, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("store: version %d of %s: %w", id, path, err)
	}
	return text, nil
}

// PruneHistory keeps the stored texts within maxBytes (compressed): it
// drops the oldest versions of the workspace until they fit, then the texts
// no version uses. It returns how many versions it dropped.
func (db *DB) PruneHistory(ctx context.Context, maxBytes int64) (int, error) {
	if maxBytes <= 0 {
		return 0, nil
	}
	dropped := 0
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var total int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(stored), 0) FROM history_blobs`).Scan(&total); err != nil {
			return err
		}
		for total > maxBytes {
			var id int64
			var hash string
			err := tx.QueryRowContext(ctx, `SELECT id, hash FROM history_versions ORDER BY id LIMIT 1`).Scan(&id, &hash)
			if errors.Is(err, sql.ErrNoRows) {
				break
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM history_versions WHERE id = ?`, id); err != nil {
				return err
			}
			dropped++
			var users int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM history_versions WHERE hash = ?`, hash).Scan(&users); err != nil {
				return err
			}
			if users == 0 {
				var stored int64
				if err := tx.QueryRowContext(ctx, `DELETE FROM history_blobs WHERE hash = ? RETURNING stored`, hash).Scan(&stored); err != nil {
					return err
				}
				total -= stored
			}
		}
		return nil
	})
	if err != nil {
		return dropped, fmt.Errorf("store: prune history: %w", err)
	}
	return dropped, nil
}
