package statedb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/store"
)

// live is a process that outlives one call (the daemon, sightline mcp):
// it watches the database from its start.
func live(t testing.TB, root, state string) *process {
	t.Helper()
	p := start(t, root, state)
	p.sync.Watch(context.Background())
	return p
}

// readNow records a read of lines a-b of f.txt in p and writes it behind.
func (p *process) readNow(t *testing.T, session string, a, b int) {
	t.Helper()
	k, _ := p.ws.Resolve("f.txt")
	d, err := p.get(k)
	if err != nil {
		t.Fatal(err)
	}
	p.l.RecordRead(session, "", ledger.DocKey(k), d.Rev, ledger.Range{Start: a, End: b})
	if err := p.sync.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A process that lives on and saw a document before another process read
// it (the daemon started by a command before sightline mcp's reads were
// written) takes that read in at its next call, and the other way round;
// taking in writes nothing back when it adds nothing.
func TestRefreshTakesInOtherProcessesReads(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	daemon, mcp := live(t, root, state), live(t, root, state)
	if v := daemon.view(t, "f.txt"); v.State != ledger.NeverRead {
		t.Fatalf("before any read: %+v", v)
	}
	mcp.readNow(t, "s", 1, 5)
	daemon.sync.Refresh(context.Background())
	if v := daemon.view(t, "f.txt"); !slices.Equal(v.Read, rs(1, 5)) {
		t.Fatalf("the daemon after the MCP's read: %+v", v)
	}
	daemon.readNow(t, "s", 10, 12)
	mcp.sync.Refresh(context.Background())
	if v := mcp.view(t, "f.txt"); !slices.Equal(v.Read, rs(1, 5, 10, 12)) {
		t.Fatalf("the MCP after the daemon's read: %+v", v)
	}
	// Nothing new: neither writes, so neither has anything to take in.
	clock := func() int64 {
		n, err := daemon.sync.DB().Clock(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := clock()
	for range 3 {
		for _, p := range []*process{daemon, mcp} {
			p.sync.Refresh(context.Background())
			if err := p.sync.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if after := clock(); after != before {
		t.Fatalf("entries written %d times with nothing new", after-before)
	}
	if v := daemon.view(t, "f.txt"); !slices.Equal(v.Read, rs(1, 5, 10, 12)) {
		t.Fatalf("the daemon: %+v", v)
	}
}

// A read recorded in a process that took another's in meanwhile, not yet
// written, stays, and is written with what it took in.
func TestRefreshKeepsUnwrittenReads(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	a, b := live(t, root, state), live(t, root, state)
	k, _ := a.ws.Resolve("f.txt")
	d, err := a.get(k)
	if err != nil {
		t.Fatal(err)
	}
	a.l.RecordRead("s", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 30, End: 31})
	b.readNow(t, "s", 1, 2)
	a.sync.Refresh(context.Background())
	if v := a.view(t, "f.txt"); !slices.Equal(v.Read, rs(1, 2, 30, 31)) {
		t.Fatalf("after taking in: %+v", v)
	}
	if err := a.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v := start(t, root, state).view(t, "f.txt"); !slices.Equal(v.Read, rs(1, 2, 30, 31)) {
		t.Fatalf("written: %+v", v)
	}
}

// Another text: the entry another process wrote of the file as it is now
// is moved onto the text this process holds when their lines say how.
func TestRefreshAcrossAnEdit(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	f := filepath.Join(root, "f.txt")
	os.WriteFile(f, []byte(numbered(40, same)), 0o644)
	a := live(t, root, state)
	a.view(t, "f.txt")
	os.WriteFile(f, []byte("inserted\n"+numbered(40, same)), 0o644)
	b := live(t, root, state)
	b.readNow(t, "s", 2, 6) // lines 1-5 of a's text
	a.sync.Refresh(context.Background())
	k, _ := a.ws.Resolve("f.txt")
	if v := a.l.Doc("s", ledger.DocKey(k)); !slices.Equal(v.Read, rs(1, 5)) {
		t.Fatalf("moved onto the text before the edit: %+v", v)
	}
}

// What a call costs to learn that no other process wrote (one PRAGMA,
// whatever the database holds), and to take in one entry another wrote,
// with 100 and 10,000 other entries in the database.
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprint("entries=", n), func(b *testing.B) { benchRefresh(b, n) })
	}
}

func benchRefresh(b *testing.B, n int) {
	root, state := b.TempDir(), b.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(400, same)), 0o644)
	seed := live(b, root, state)
	var es []store.Entry
	for i := range n {
		es = append(es, store.Entry{Session: fmt.Sprint("old", i%30), Doc: fmt.Sprint("file:///gone/", i), FileHash: "sha256:00", TotalLines: 1, Data: []byte{}})
	}
	if err := seed.sync.DB().PutEntries(context.Background(), es); err != nil {
		b.Fatal(err)
	}
	p, q := live(b, root, state), live(b, root, state)
	k, _ := p.ws.Resolve("f.txt")
	if _, err := p.get(k); err != nil {
		b.Fatal(err)
	}
	qd, err := q.get(k)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			p.sync.Refresh(context.Background())
		}
	})
	b.Run("one-entry", func(b *testing.B) {
		i := 0
		for b.Loop() {
			b.StopTimer()
			i = i%399 + 1
			q.l.RecordRead("s", "", ledger.DocKey(k), qd.Rev, ledger.Range{Start: i, End: i})
			if err := q.sync.Flush(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			p.sync.Refresh(context.Background())
		}
	})
}

// Two processes that live on, each recording reads, writing behind and
// taking the other's in at once from several goroutines (the daemon runs
// calls concurrently): once both wrote and took in, both hold every read.
func TestRefreshConcurrent(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(64, same)), 0o644)
	ps := []*process{live(t, root, state), live(t, root, state)}
	k, _ := ps[0].ws.Resolve("f.txt")
	revs := make([]int64, len(ps))
	for i, p := range ps {
		d, err := p.get(k)
		if err != nil {
			t.Fatal(err)
		}
		revs[i] = d.Rev
	}
	ctx := context.Background()
	done := make(chan struct{})
	for i, p := range ps {
		for g := range 2 {
			go func() {
				defer func() { done <- struct{}{} }()
				for n := range 8 {
					line := 1 + i*32 + g*16 + n
					p.l.RecordRead("s", "", ledger.DocKey(k), revs[i], ledger.Range{Start: line, End: line})
					p.sync.Refresh(ctx)
					if err := p.sync.Flush(ctx); err != nil {
						t.Error(err)
					}
				}
			}()
		}
	}
	for range 2 * len(ps) {
		<-done
	}
	for range 2 {
		for _, p := range ps {
			if err := p.sync.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			p.sync.Refresh(ctx)
		}
	}
	want := rs(1, 8, 17, 24, 33, 40, 49, 56)
	for i, p := range ps {
		if v := p.l.Doc("s", ledger.DocKey(k)); !slices.Equal(v.Read, want) {
			t.Errorf("process %d holds %v, want %v", i, v.Read, want)
		}
	}
}
