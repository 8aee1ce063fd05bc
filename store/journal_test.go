package store

import (
	"context"
	"testing"
	"time"
)

// TestJournal: a write's journal is kept across processes (a new open),
// moves from staged to committed, and is gone once dropped.
func TestJournal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openTest(t, dir)
	if err := db.PutJournal(ctx, Journal{ID: "a1", State: JournalStaged, Ops: []byte(`[1]`), Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutJournal(ctx, Journal{ID: "a1", State: JournalCommitted, Ops: []byte(`[1,2]`), Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openTest(t, dir)
	js, err := db.Journals(ctx)
	if err != nil || len(js) != 1 || js[0].State != JournalCommitted || string(js[0].Ops) != "[1,2]" {
		t.Fatalf("journals: %+v %v", js, err)
	}
	if err := db.DropJournal(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if js, err := db.Journals(ctx); err != nil || len(js) != 0 {
		t.Fatalf("after drop: %+v %v", js, err)
	}
}
