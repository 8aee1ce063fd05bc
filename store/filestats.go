package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FileStat is what a file's bytes were when it was last read whole: the
// stat that identifies those bytes (size, modification and change times in
// nanoseconds, inode) and what they hash to. A file whose stat still matches
// holds the same bytes: the change time moves on every write to the inode and
// cannot be set back by user tools, and the writer of a replacement gets a
// new inode. Callers store a row only when the change time is older than the
// timestamp granularity of the file system (see engine), so a write in the
// same clock tick as the stat cannot pass for no change.
type FileStat struct {
	Doc        string
	Size       int64
	MtimeNs    int64
	Ino        uint64
	CtimeNs    int64
	FileHash   string
	TotalLines int
	// LineHashes, when set, are kept with the text's (see Entry); FileStat
	// does not return them (LineHashes does).
	LineHashes []byte
}

// Same reports whether two rows describe the same bytes of the same file.
func (a FileStat) Same(b FileStat) bool {
	return a.Doc == b.Doc && a.Size == b.Size && a.MtimeNs == b.MtimeNs && a.Ino == b.Ino && a.CtimeNs == b.CtimeNs
}

// FileStat returns the row of a document; false when there is none.
func (db *DB) FileStat(ctx context.Context, doc string) (FileStat, bool, error) {
	f := FileStat{Doc: doc}
	var ino int64
	err := db.pool().QueryRowContext(ctx, `SELECT size, mtime_ns, ino, ctime_ns, file_hash, total_lines FROM file_stats WHERE doc = ?`, doc).
		Scan(&f.Size, &f.MtimeNs, &ino, &f.CtimeNs, &f.FileHash, &f.TotalLines)
	if errors.Is(err, sql.ErrNoRows) {
		return FileStat{}, false, nil
	}
	if err != nil {
		return FileStat{}, false, fmt.Errorf("store: file stat of %q: %w", doc, err)
	}
	f.Ino = uint64(ino) // SQLite integers are signed; the bits round-trip
	return f, true, nil
}

// PutFileStat inserts or replaces a document's row (and keeps its text's
// line hashes when given).
func (db *DB) PutFileStat(ctx context.Context, f FileStat) error {
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO file_stats (doc, size, mtime_ns, ino, ctime_ns, file_hash, total_lines)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, f.Doc, f.Size, f.MtimeNs, int64(f.Ino), f.CtimeNs, f.FileHash, f.TotalLines)
		if err != nil {
			return err
		}
		_, err = putLineHashes(ctx, tx, f.FileHash, f.LineHashes)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put file stat of %q: %w", f.Doc, err)
	}
	return nil
}
