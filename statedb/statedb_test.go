package statedb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// process is one sightline process's ledger over a workspace and a database.
type process struct {
	sync *Sync
	l    *ledger.Ledger
	ws   *workspace.Workspace
}

func start(t testing.TB, root, state string) *process {
	t.Helper()
	s, err := Open(context.Background(), state, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.db.Close() }) // a second Close is harmless
	l := ledger.New(ledger.Options{OnDirty: func(session string, doc ledger.DocKey) { s.MarkDirty(session, workspace.Key(doc)) }})
	ws := workspace.New([]string{root}, workspace.Options{})
	t.Cleanup(ws.Close)
	s.Attach(l, ws)
	return &process{s, l, ws}
}

// get loads a document and follows the workspace's changes as the engine
// does: a first sight restores the document's persisted reads.
func (p *process) get(k workspace.Key) (workspace.Doc, error) {
	d, err := p.ws.Get(k)
	evs := p.ws.ChangesSince(0)
	if len(evs) > 0 {
		p.ws.Acknowledge(evs[len(evs)-1].Seq)
	}
	for _, ev := range evs {
		if ev.First {
			p.l.SetTotal(ledger.DocKey(ev.Key), ev.ToRev, ev.NewTotal)
			p.sync.Restore(ev.Doc, nil)
		} else {
			p.l.Replace(ledger.DocKey(ev.Key), ev.ToRev, ev.NewTotal)
		}
	}
	return d, err
}

func (p *process) view(t *testing.T, path string) ledger.DocView {
	t.Helper()
	return p.viewAs(t, "s", path)
}

func numbered(n int, edit func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(edit(i))
	}
	return b.String()
}

// rs makes ranges from start, end pairs.
func rs(bounds ...int) []ledger.Range {
	var out []ledger.Range
	for i := 0; i+1 < len(bounds); i += 2 {
		out = append(out, ledger.Range{Start: bounds[i], End: bounds[i+1]})
	}
	return out
}

func same(line int) string { return fmt.Sprintf("line %d\n", line) }

// readAll starts a process that reads f.txt whole as session "s" and exits.
func readAll(t *testing.T, root, state string) { readAs(t, root, state, "s", 1, 0) }

func TestRestoreAcrossChange(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	file := filepath.Join(root, "f.txt")
	os.WriteFile(file, []byte(numbered(40, same)), 0o644)
	readAll(t, root, state)

	// Another program inserts a line at 10 and rewrites line 20 (now 21).
	os.WriteFile(file, []byte(numbered(40, func(i int) string {
		switch i {
		case 10:
			return "inserted\n" + same(i)
		case 20:
			return "changed\n"
		}
		return same(i)
	})), 0o644)
	p := start(t, root, state)
	v := p.view(t, "f.txt")
	want := rs(1, 9, 11, 20, 22, 41)
	if v.State != ledger.Stale || !slices.Equal(v.Read, want) || !slices.Equal(v.Stale, rs(21, 21)) ||
		!slices.Equal(v.Unread, rs(10, 10)) {
		t.Fatalf("restored across the change: %+v", v)
	}
	// What was restored is saved for the new text: the next process finds it
	// without diffing.
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v2 := start(t, root, state).view(t, "f.txt"); !slices.Equal(v2.Read, want) || !slices.Equal(v2.Stale, v.Stale) {
		t.Fatalf("second restore: %+v", v2)
	}
}

// TestRestoreEntryWithoutHashes: an entry written by an older version (no
// line hashes) still restores onto the same bytes, and is dropped, as
// before, when the bytes changed.
func TestRestoreEntryWithoutHashes(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	file := filepath.Join(root, "f.txt")
	os.WriteFile(file, []byte(numbered(5, same)), 0o644)
	readAll(t, root, state)
	p := start(t, root, state)
	es, err := p.sync.DB().AllEntries(context.Background())
	if err != nil || len(es) != 1 || len(es[0].LineHashes) != 5*hashSize {
		t.Fatalf("entries: %+v %v", es, err)
	}
	// As an older version wrote it: no line hashes anywhere.
	raw, err := sql.Open("sqlite", p.sync.DB().Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM line_hashes`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	p.sync.Close(context.Background())

	if v := start(t, root, state).view(t, "f.txt"); v.State != ledger.FullyRead {
		t.Fatalf("old entry on the same bytes: %+v", v)
	}
	os.WriteFile(file, []byte(numbered(5, func(i int) string {
		if i == 3 {
			return "changed\n"
		}
		return same(i)
	})), 0o644)
	if v := start(t, root, state).view(t, "f.txt"); v.State != ledger.NeverRead {
		t.Fatalf("old entry on changed bytes: %+v", v)
	}
}

func TestPackHashes(t *testing.T) {
	for _, c := range []struct {
		b  []byte
		n  int
		ok bool
	}{{nil, 0, true}, {[]byte{}, 0, true}, {nil, 2, false}, {make([]byte, 6), 2, true}, {make([]byte, 7), 2, false}} {
		if _, ok := unpackHashes(c.b, c.n); ok != c.ok {
			t.Errorf("unpackHashes(%d bytes, %d) ok = %v", len(c.b), c.n, ok)
		}
	}
	got, _ := unpackHashes([]byte{1, 2, 3, 0xff, 0xff, 0xff}, 2)
	if !slices.Equal(got, []uint32{0x030201, 0xffffff}) {
		t.Errorf("unpacked %x", got)
	}
}
