package statedb

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/ledger"
)

// A process that only looks at a session (sightline ledger, a hook, a
// range read of another file) restores entries it does not change: it does
// not write them back when it closes. An entry it changes is written.
func TestUnchangedEntriesAreNotRewritten(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	os.WriteFile(filepath.Join(root, "g.txt"), []byte(numbered(10, same)), 0o644)
	readAll(t, root, state)
	entry := func() time.Time {
		t.Helper()
		db := start(t, root, state).sync.DB()
		es, err := db.AllEntries(context.Background())
		if err != nil || len(es) != 1 {
			t.Fatalf("entries: %+v %v", es, err)
		}
		return es[0].UpdatedAt
	}
	written := entry()
	time.Sleep(5 * time.Millisecond) // a rewrite would change updated_at (milliseconds)

	p := start(t, root, state)
	if v := p.view(t, "f.txt"); len(v.Read) == 0 {
		t.Fatalf("not restored: %+v", v)
	}
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if at := entry(); !at.Equal(written) {
		t.Fatalf("an entry restored and left unchanged was written again (updated_at %v, was %v)", at, written)
	}

	// A read changes it: it is written.
	p = start(t, root, state)
	p.view(t, "f.txt")
	k, _ := p.ws.Resolve("f.txt")
	d, _ := p.ws.Get(k)
	p.l.RecordRead("s", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 1, End: 2})
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if at := entry(); at.Equal(written) {
		t.Fatal("an entry changed by a read was not written")
	}
}
