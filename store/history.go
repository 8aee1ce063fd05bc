package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
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

// Text is a text to keep, known by its hash; its bytes are asked for only
// when they are stored whole, and only read: Bytes may give the caller's
// own (immutable) text rather than a copy.
type Text struct {
	Hash  string
	Size  int // len(Bytes())
	Bytes func() []byte
}

// Splice replaces Del bytes at Off of a base text with Ins.
type Splice struct {
	Off, Del int
	Ins      []byte
}

// Write is one write to keep in the history.
type Write struct {
	Path   string
	Before *Text // nil for a new file
	After  Text
	// Delta, when not nil, gives After as splices of Before (ascending,
	// not overlapping): After is then kept as those splices, so a small
	// edit of a large file stores the edit.
	Delta   func() []Splice
	Version Version
}

// maxDepth bounds a chain of deltas: reading a version applies at most
// this many to a whole text, and one write in maxDepth stores its text
// whole.
const maxDepth = 32

// ErrNoVersion is returned for a version the history does not hold.
var ErrNoVersion = errors.New("no such version")

// HasBlob reports whether a text is stored.
func (db *DB) HasBlob(ctx context.Context, hash string) (bool, error) {
	var n int
	if err := db.pool().QueryRowContext(ctx, `SELECT count(*) FROM history_blobs WHERE hash = ?`, hash).Scan(&n); err != nil {
		return false, fmt.Errorf("store: history blob: %w", err)
	}
	return n > 0, nil
}

// Compress is the stored form of a whole text: gzip at its fastest level,
// since snapshots are taken on the write path and read rarely. A large text
// is cut into parts compressed side by side, one gzip member each, which a
// gzip reader reads back as one stream: a CLI edit that keeps a whole text
// waits for the slowest part, not for all of them.
func Compress(text []byte) ([]byte, error) {
	k := min(runtime.GOMAXPROCS(0), len(text)/compressPart)
	if k < 2 {
		return compress(text)
	}
	parts := make([][]byte, k)
	errs := make([]error, k)
	var wg sync.WaitGroup
	for i := range k {
		wg.Go(func() { parts[i], errs[i] = compress(text[i*len(text)/k : (i+1)*len(text)/k]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return bytes.Join(parts, nil), nil
}

// compressPart is the least text worth a goroutine of its own in Compress.
const compressPart = 1 << 20

func compress(text []byte) ([]byte, error) {
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

// blobRow is a text to insert: whole (gzip) or a delta against base.
type blobRow struct {
	hash, base string
	size       int
	depth      int
	data       []byte
}

// Record keeps a write in the history of its path: the text before it (as
// a "found" version, unless it is the path's latest version already, or
// there is none) and the text after it. Texts already stored are not stored
// again; the text after is stored as the write's delta when the text before
// is stored and its chain of deltas is short. It returns the id of the
// write's version (ids grow as versions are recorded, by any process).
func (db *DB) Record(ctx context.Context, w Write) (int64, error) {
	var rows []blobRow
	baseDepth := -1 // the depth of the text before, -1 when not stored
	if w.Before != nil {
		d, ok, err := db.blobDepth(ctx, w.Before.Hash)
		if err != nil {
			return 0, err
		}
		if ok {
			baseDepth = d
		} else {
			text := w.Before.Bytes()
			packed, err := Compress(text)
			if err != nil {
				return 0, fmt.Errorf("store: compress %s: %w", w.Path, err)
			}
			rows = append(rows, blobRow{hash: w.Before.Hash, size: len(text), data: packed})
			baseDepth = 0
		}
	}
	if _, ok, err := db.blobDepth(ctx, w.After.Hash); err != nil {
		return 0, err
	} else if !ok {
		row, err := afterRow(w, baseDepth)
		if err != nil {
			return 0, err
		}
		rows = append(rows, row)
	}
	v := w.Version
	if v.Time.IsZero() {
		v.Time = time.Now()
	}
	var id int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		for _, b := range rows {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO history_blobs (hash, size, stored, data) VALUES (?, ?, ?, x'')`,
				b.hash, b.size, len(b.data))
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			if n != 1 {
				continue // stored meanwhile by another process
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO history_data (hash, data) VALUES (?, ?)`, b.hash, b.data); err != nil {
				return err
			}
			if b.base != "" {
				if _, err := tx.ExecContext(ctx, `INSERT INTO history_chain (hash, base, depth) VALUES (?, ?, ?)`, b.hash, b.base, b.depth); err != nil {
					return err
				}
			}
		}
		var latest string
		err := tx.QueryRowContext(ctx, `SELECT hash FROM history_versions WHERE path = ? ORDER BY id DESC LIMIT 1`, w.Path).Scan(&latest)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if w.Before != nil && latest != w.Before.Hash {
			if _, err := tx.ExecContext(ctx, `INSERT INTO history_versions (time, path, hash, session, agent, method) VALUES (?, ?, ?, '', '', 'found')`,
				millis(v.Time), w.Path, w.Before.Hash); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO history_versions (time, path, hash, session, agent, method) VALUES (?, ?, ?, ?, ?, ?)`,
			millis(v.Time), w.Path, w.After.Hash, v.Session, v.Agent, v.Method)
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: record history of %s: %w", w.Path, err)
	}
	return id, nil
}

// afterRow is the stored form of the text after a write: its delta when
// the text before is stored (baseDepth >= 0), its chain stays short and the
// delta is small, else the whole text.
func afterRow(w Write, baseDepth int) (blobRow, error) {
	if w.Delta != nil && baseDepth >= 0 && baseDepth < maxDepth {
		ss := w.Delta()
		size := w.sizeAfter(ss)
		data := encodeDelta(ss)
		// No splices (the caller could not say) or a length they do not
		// give: the whole text.
		if len(ss) > 0 && size == w.After.Size && len(data) <= max(size/2, 4<<10) {
			return blobRow{hash: w.After.Hash, base: w.Before.Hash, size: size, depth: baseDepth + 1, data: data}, nil
		}
	}
	text := w.After.Bytes()
	packed, err := Compress(text)
	if err != nil {
		return blobRow{}, fmt.Errorf("store: compress %s: %w", w.Path, err)
	}
	return blobRow{hash: w.After.Hash, size: len(text), data: packed}, nil
}

// sizeAfter is the length of the text after the splices, -1 when they do
// not fit the text before (then the delta is not used).
func (w Write) sizeAfter(ss []Splice) int {
	n := w.Before.Size
	end := 0
	for _, s := range ss {
		if s.Off < end || s.Del < 0 || s.Off+s.Del > w.Before.Size {
			return -1
		}
		end = s.Off + s.Del
		n += len(s.Ins) - s.Del
	}
	return n
}

// blobDepth returns the chain depth of a stored text (0 when whole).
func (db *DB) blobDepth(ctx context.Context, hash string) (int, bool, error) {
	var d int
	err := db.pool().QueryRowContext(ctx, `SELECT depth FROM history_chain WHERE hash = ?`, hash).Scan(&d)
	if err == nil {
		return d, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, false, fmt.Errorf("store: history blob: %w", err)
	}
	ok, err := db.HasBlob(ctx, hash)
	return 0, ok, err
}

// encodeDelta writes splices as uvarints: per splice the gap since the end
// of the one before, the bytes deleted, the bytes inserted, then those.
func encodeDelta(ss []Splice) []byte {
	var out []byte
	end := 0
	for _, s := range ss {
		out = binary.AppendUvarint(out, uint64(s.Off-end))
		out = binary.AppendUvarint(out, uint64(s.Del))
		out = binary.AppendUvarint(out, uint64(len(s.Ins)))
		out = append(out, s.Ins...)
		end = s.Off + s.Del
	}
	return out
}

// applyDelta applies an encoded delta to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	out := make([]byte, 0, len(base))
	end := 0
	for len(delta) > 0 {
		var v [3]uint64
		for i := range v {
			x, n := binary.Uvarint(delta)
			if n <= 0 {
				return nil, errors.New("corrupt delta")
			}
			v[i], delta = x, delta[n:]
		}
		gap, del, ins := v[0], v[1], v[2]
		if gap > uint64(len(base)-end) || del > uint64(len(base)-end)-gap || ins > uint64(len(delta)) {
			return nil, errors.New("delta does not fit its base")
		}
		off := end + int(gap)
		out = append(out, base[end:off]...)
		out = append(out, delta[:ins]...)
		delta = delta[ins:]
		end = off + int(del)
	}
	return append(out, base[end:]...), nil
}

// BlobText returns a stored text by its hash; ok is false when it is not
// stored.
func (db *DB) BlobText(ctx context.Context, hash string) ([]byte, bool, error) {
	var chain [][]byte // deltas, newest first
	for h := hash; ; {
		var data []byte
		var base sql.NullString
		err := db.pool().QueryRowContext(ctx, `SELECT d.data, c.base FROM history_data d LEFT JOIN history_chain c ON c.hash = d.hash
			WHERE d.hash = ?`, h).Scan(&data, &base)
		if errors.Is(err, sql.ErrNoRows) {
			if h != hash {
				return nil, false, fmt.Errorf("store: history text %s: its base %s is missing", hash, h)
			}
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("store: history text %s: %w", hash, err)
		}
		if !base.Valid {
			text, err := decompress(data)
			if err != nil {
				return nil, false, fmt.Errorf("store: history text %s: %w", h, err)
			}
			for i := len(chain) - 1; i >= 0; i-- {
				if text, err = applyDelta(text, chain[i]); err != nil {
					return nil, false, fmt.Errorf("store: history text %s: %w", hash, err)
				}
			}
			return text, true, nil
		}
		if len(chain) > maxDepth {
			return nil, false, fmt.Errorf("store: history text %s: chain of deltas longer than %d", hash, maxDepth)
		}
		chain = append(chain, data)
		h = base.String
	}
}

func decompress(packed []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// Versions lists the recorded versions of path, oldest first.
func (db *DB) Versions(ctx context.Context, path string) ([]Version, error) {
	rows, err := db.pool().QueryContext(ctx, `SELECT v.id, v.time, v.path, v.hash, b.size, v.session, v.agent, v.method
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
	var hash string
	err := db.pool().QueryRowContext(ctx, `SELECT hash FROM history_versions WHERE path = ? AND id = ?`, path, id).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoVersion
	}
	if err != nil {
		return nil, fmt.Errorf("store: version %d of %s: %w", id, path, err)
	}
	text, ok, err := db.BlobText(ctx, hash)
	if err != nil {
		return nil, fmt.Errorf("store: version %d of %s: %w", id, path, err)
	}
	if !ok {
		return nil, fmt.Errorf("store: version %d of %s: its text is missing", id, path)
	}
	return text, nil
}

// PruneHistory keeps the stored texts within maxBytes (compressed): it
// drops the oldest versions of the workspace until they fit, and with them
// the texts no version and no kept delta uses (a text others are stored
// against goes with the last of them). It returns how many versions it
// dropped.
func (db *DB) PruneHistory(ctx context.Context, maxBytes int64) (int, error) {
	if maxBytes <= 0 {
		return 0, nil
	}
	dropped := 0
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var total int64
		if err := tx.QueryRowContext(ctx, `SELECT stored FROM history_total`).Scan(&total); err != nil {
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
				freed, err := dropUnused(ctx, tx)
				if err != nil {
					return err
				}
				total -= freed
			}
		}
		return nil
	})
	if err != nil {
		return dropped, fmt.Errorf("store: prune history: %w", err)
	}
	return dropped, nil
}

// dropUnused deletes the texts that no version uses and no other text is a
// delta against, repeatedly (a chain goes from its end), and returns the
// bytes freed.
func dropUnused(ctx context.Context, tx *sql.Tx) (int64, error) {
	var freed int64
	for {
		rows, err := tx.QueryContext(ctx, `SELECT hash, stored FROM history_blobs
			WHERE hash NOT IN (SELECT hash FROM history_versions)
			AND hash NOT IN (SELECT base FROM history_chain)`)
		if err != nil {
			return freed, err
		}
		var gone []string
		for rows.Next() {
			var hash string
			var stored int64
			if err := rows.Scan(&hash, &stored); err != nil {
				rows.Close()
				return freed, err
			}
			freed += stored
			gone = append(gone, hash)
		}
		if err := rows.Close(); err != nil {
			return freed, err
		}
		if err := rows.Err(); err != nil {
			return freed, err
		}
		if len(gone) == 0 {
			return freed, nil
		}
		for _, h := range gone {
			if _, err := tx.ExecContext(ctx, `DELETE FROM history_chain WHERE hash = ?`, h); err != nil {
				return freed, err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM history_data WHERE hash = ?`, h); err != nil {
				return freed, err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM history_blobs WHERE hash = ?`, h); err != nil {
				return freed, err
			}
		}
	}
}
