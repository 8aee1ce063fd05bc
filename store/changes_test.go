package store

import (
	"context"
	"testing"
)

// A reader learns of the entries another connection wrote since its mark,
// those only, once; its own write, advanced past, is not read back; a
// deleted entry does not give its number to the next write.
func TestEntriesSince(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openTest(t, dir), openTest(t, dir)
	if err := a.PutEntries(ctx, []Entry{entry("s", "old.go", 1)}); err != nil {
		t.Fatal(err)
	}
	m, err := b.MarkNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if es, m2, err := b.EntriesSince(ctx, m); err != nil || len(es) != 0 || m2 != m {
		t.Fatalf("nothing written: %v %v %v", es, m2, err)
	}
	if err := a.PutEntries(ctx, []Entry{entry("s", "a.go", 1), entry("t", "a.go", 2)}); err != nil {
		t.Fatal(err)
	}
	es, m, err := b.EntriesSince(ctx, m)
	if err != nil || len(es) != 2 || es[0].Session != "s" || es[1].Session != "t" {
		t.Fatalf("two written: %+v %v", es, err)
	}
	if es, _, err := b.EntriesSince(ctx, m); err != nil || len(es) != 0 {
		t.Fatalf("read twice: %+v %v", es, err)
	}
	// b's own write, advanced past: nothing to read back.
	w, err := b.PutEntriesMarked(ctx, []Entry{entry("s", "b.go", 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m = m.Advance(w)
	if es, _, err := b.EntriesSince(ctx, m); err != nil || len(es) != 0 {
		t.Fatalf("own write read back: %+v %v", es, err)
	}
	// The newest entry deleted, then another written: still seen.
	if err := a.DeleteEntry(ctx, "s", "b.go"); err != nil {
		t.Fatal(err)
	}
	if err := a.PutEntries(ctx, []Entry{entry("u", "c.go", 1)}); err != nil {
		t.Fatal(err)
	}
	if es, _, err := b.EntriesSince(ctx, m); err != nil || len(es) != 1 || es[0].Session != "u" {
		t.Fatalf("after a delete: %+v %v", es, err)
	}
}
