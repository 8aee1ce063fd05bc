package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkPutEntries100 writes 100 entries of ~1 KB ledger JSON in one
// transaction, as one write-behind flush of a busy session would.
func BenchmarkPutEntries100(b *testing.B) {
	ctx := context.Background()
	db := openTest(b, b.TempDir())
	data := []byte(`{"read":[` + strings.Repeat(`{"start":1,"end":200,"version":3,"time":"2026-01-02T03:04:05Z","agent":"coder"},`, 12) + `{"start":1,"end":2}]}`)
	es := make([]Entry, 100)
	for i := range es {
		es[i] = Entry{Session: "default", Doc: fmt.Sprintf("internal/pkg%d/file%d.go", i%7, i),
			FileHash: "sha256:" + strings.Repeat("ab", 32), TotalLines: 500 + i, Data: data}
	}
	b.SetBytes(int64(len(data) * len(es)))
	for b.Loop() {
		if err := db.PutEntries(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
}
