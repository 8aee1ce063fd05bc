package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SymbolKey names a symbol set: a text's hash, the language it was read as
// and the extractor that read it.
type SymbolKey struct {
	FileHash, Lang, Extractor string
}

// SymbolSets returns the symbol sets kept for keys (those it has; the
// data as PutSymbolSets was given it).
func (db *DB) SymbolSets(ctx context.Context, keys []SymbolKey) (map[SymbolKey][]byte, error) {
	out := make(map[SymbolKey][]byte, len(keys))
	// SQLite binds at most 32766 values: ask in chunks.
	const chunk = 300
	for len(keys) > 0 {
		n := min(len(keys), chunk)
		part := keys[:n]
		keys = keys[n:]
		var q strings.Builder
		q.WriteString(`SELECT file_hash, lang, extractor, data FROM symbol_sets WHERE (file_hash, lang, extractor) IN (VALUES `)
		args := make([]any, 0, 3*len(part))
		for i, k := range part {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?)")
			args = append(args, k.FileHash, k.Lang, k.Extractor)
		}
		q.WriteString(")")
		rows, err := db.pool().QueryContext(ctx, q.String(), args...)
		if err != nil {
			return nil, fmt.Errorf("store: symbol sets: %w", err)
		}
		for rows.Next() {
			var k SymbolKey
			var data []byte
			if err := rows.Scan(&k.FileHash, &k.Lang, &k.Extractor, &data); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: symbol sets: %w", err)
			}
			out[k] = data
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("store: symbol sets: %w", err)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: symbol sets: %w", err)
		}
	}
	return out, nil
}

// PutSymbolSets keeps symbol sets, in one transaction.
func (db *DB) PutSymbolSets(ctx context.Context, sets map[SymbolKey][]byte) error {
	if len(sets) == 0 {
		return nil
	}
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO symbol_sets (file_hash, lang, extractor, data) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for k, data := range sets {
			if _, err := st.ExecContext(ctx, k.FileHash, k.Lang, k.Extractor, data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: put symbol sets: %w", err)
	}
	return nil
}
