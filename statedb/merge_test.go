package statedb

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
)

// Two processes of one session that restored the same entry, each added a
// read and wrote it back: the database keeps both reads, whichever wrote
// last (the write merges with what it finds, in its transaction).
func TestWritesOfTwoProcessesMerge(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	readAs(t, root, state, "s", 1, 2)
	p, k, d := oneCall(t, root, state, "s")
	q, _, e := oneCall(t, root, state, "s")
	p.l.RecordRead("s", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 10, End: 11})
	q.l.RecordRead("s", "", ledger.DocKey(k), e.Rev, ledger.Range{Start: 20, End: 21})
	for _, x := range []*process{p, q} {
		if err := x.sync.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if v := start(t, root, state).viewAs(t, "s", "f.txt"); !slices.Equal(v.Read, rs(1, 2, 10, 11, 20, 21)) {
		t.Fatalf("read %v, want 1-2, 10-11 and 20-21", v.Read)
	}
}

// The same when the file changed between the two processes' views: the
// entry the first wrote, of the text before, moves onto the second's text
// through both texts' line hashes; its read of a line changed since is
// stale, not read.
func TestWritesOfTwoProcessesMergeAcrossAnEdit(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	f := filepath.Join(root, "f.txt")
	os.WriteFile(f, []byte(numbered(40, same)), 0o644)
	readAs(t, root, state, "s", 1, 2)
	p, k, d := oneCall(t, root, state, "s")
	p.l.RecordRead("s", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 10, End: 11})
	// Line 11 changes before the second process sees the file.
	os.WriteFile(f, []byte(numbered(40, func(i int) string {
		if i == 11 {
			return "changed"
		}
		return same(i)
	})), 0o644)
	q, _, e := oneCall(t, root, state, "s")
	q.l.RecordRead("s", "", ledger.DocKey(k), e.Rev, ledger.Range{Start: 20, End: 20})
	if err := q.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The first writes last, its entry of the text before the edit.
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	v := start(t, root, state).viewAs(t, "s", "f.txt")
	if !slices.Equal(v.Read, rs(1, 2, 10, 10, 20, 20)) || !slices.Equal(v.Stale, rs(11, 11)) {
		t.Fatalf("read %v stale %v, want read 1-2, 10 and 20, stale 11", v.Read, v.Stale)
	}
}
