package statedb

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/store"
)

// Every call of a session that reads a document restores its entry and
// writes it back: the bytes an entry takes are paid by each call. A long
// session's entry (the most records the ledger keeps) is stored in a few
// bytes a record.
func TestLongSessionEntryIsStoredCompactly(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(20_000, same)), 0o644)
	p := start(t, root, state)
	k, _ := p.ws.Resolve("f.txt")
	d, err := p.get(k)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ledger.DefaultMaxRecords {
		p.l.RecordRead("s", "claude-code", ledger.DocKey(k), d.Rev, ledger.Range{Start: 1 + i*70, End: 10 + i*70})
	}
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	es := entries(t, state)
	if len(es) != 1 {
		t.Fatalf("entries: %+v", es)
	}
	if n := len(es[0].Data); n > 24*ledger.DefaultMaxRecords {
		t.Errorf("an entry of %d records is stored in %d bytes, %.0f a record: want at most 24", ledger.DefaultMaxRecords, n, float64(n)/ledger.DefaultMaxRecords)
	}

	// And it restores whole.
	q := start(t, root, state)
	if v := q.view(t, "f.txt"); len(v.Records) != ledger.DefaultMaxRecords || len(v.Read) != ledger.DefaultMaxRecords {
		t.Fatalf("restored %d records and %d read ranges, want %d", len(v.Records), len(v.Read), ledger.DefaultMaxRecords)
	}
}

// An entry an earlier sightline wrote (as JSON) is restored, and written
// back in the current form once it changes.
func TestEntryOfAnEarlierBuildIsRestored(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	readAll(t, root, state)
	es := entries(t, state)
	if len(es) != 1 {
		t.Fatalf("entries: %+v", es)
	}
	var e ledger.Entry
	if err := e.UnmarshalBinary(es[0].Data); err != nil {
		t.Fatalf("the entry written is not in the binary form: %v", err)
	}
	old := es[0]
	old.Data, _ = json.Marshal(e)
	db, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutEntries(context.Background(), []store.Entry{old}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	p := start(t, root, state)
	if v := p.view(t, "f.txt"); len(v.Read) != 1 || v.Read[0] != (ledger.Range{Start: 1, End: 40}) {
		t.Fatalf("the earlier build's entry was not restored: %+v", v)
	}
	k, _ := p.ws.Resolve("f.txt")
	d, _ := p.get(k)
	p.l.RecordRead("s", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 1, End: 2})
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.UnmarshalBinary(entries(t, state)[0].Data); err != nil {
		t.Fatalf("the changed entry was not written in the binary form: %v", err)
	}
}

func entries(t *testing.T, state string) []store.Entry {
	t.Helper()
	db, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	es, err := db.AllEntries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return es
}
