package statedb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// readAs starts a process that reads lines start-end of f.txt as session
// (end 0: to the last line) and exits.
func readAs(t *testing.T, root, state, session string, start_, end int) {
	t.Helper()
	p := start(t, root, state)
	k, _ := p.ws.Resolve("f.txt")
	d, err := p.get(k)
	if err != nil {
		t.Fatal(err)
	}
	if end == 0 {
		end = d.Snap.LineCount()
	}
	p.l.RecordRead(session, "", ledger.DocKey(k), d.Rev, ledger.Range{Start: start_, End: end})
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A process of one call (OnlyServed) restores the entries of the session it
// serves, not those of every session that ever read the document: entries
// do not expire, and each one cost every later command that read the file
// (29 other sessions of 30 reads each: 4.7 ms of a range read). The others
// stay as the database holds them.
func TestOneCallProcessRestoresTheSessionItServes(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	for i := 1; i <= 8; i++ {
		readAs(t, root, state, fmt.Sprintf("s%d", i), i, i)
	}
	p, k, d := oneCall(t, root, state, "s3")
	if got := p.l.Sessions(ledger.DocKey(k)); !slices.Equal(got, []string{"s3"}) {
		t.Fatalf("a process serving s3 restored the entries of %v", got)
	}
	p.l.RecordRead("s3", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 30, End: 31})
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	q := start(t, root, state)
	for i := 1; i <= 8; i++ {
		s := fmt.Sprintf("s%d", i)
		want := rs(i, i)
		if s == "s3" {
			want = rs(3, 3, 30, 31)
		}
		if v := q.viewAs(t, s, "f.txt"); !slices.Equal(v.Read, want) {
			t.Errorf("%s after the process serving s3: read %v, want %v", s, v.Read, want)
		}
	}
}

// A session served after the document was restored is restored then, before
// its call records anything.
func TestSessionServedLaterIsRestoredThen(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	readAs(t, root, state, "a", 1, 2)
	readAs(t, root, state, "b", 5, 9)
	p, k, d := oneCall(t, root, state, "a")
	p.sync.Serve("b")
	if v := p.l.Doc("b", ledger.DocKey(k)); !slices.Equal(v.Read, rs(5, 9)) {
		t.Fatalf("b served after the restore: read %v", v.Read)
	}
	p.l.RecordRead("b", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 20, End: 20})
	if err := p.sync.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v := start(t, root, state).viewAs(t, "b", "f.txt"); !slices.Equal(v.Read, rs(5, 9, 20, 20)) {
		t.Fatalf("b's entry after: %v", v.Read)
	}
}

// What a process of one call records for a session whose entry it never
// restored is not written over the entry the database holds: that would
// lose the session's reads. (Every door serves its caller's session before
// the call; this is the net.)
func TestAnEntryNeverRestoredIsNotOverwritten(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(40, same)), 0o644)
	readAs(t, root, state, "other", 10, 19)
	p, k, d := oneCall(t, root, state, "mine")
	p.l.RecordRead("other", "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 1, End: 1})
	p.sync.Close(context.Background())
	if v := start(t, root, state).viewAs(t, "other", "f.txt"); !slices.Equal(v.Read, rs(10, 19)) {
		t.Fatalf("the unrestored session's entry became %v", v.Read)
	}
}

// A write by a process of one call leaves other sessions' entries as they
// were; each follows the change when a process of its session restores it,
// by the line hashes of both texts, as after a change made while no
// sightline ran.
func TestOtherSessionsFollowAWriteAtTheirRestore(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	file := filepath.Join(root, "f.txt")
	os.WriteFile(file, []byte(numbered(40, same)), 0o644)
	readAll(t, root, state) // session "s": every line
	readAs(t, root, state, "w", 1, 40)
	p, k, _ := oneCall(t, root, state, "w")
	// The writer changes line 20 and inserts a line after 30.
	os.WriteFile(file, []byte(numbered(40, func(i int) string {
		switch i {
		case 20:
			return "changed\n"
		case 30:
			return same(i) + "inserted\n"
		}
		return same(i)
	})), 0o644)
	if _, err := p.get(k); err != nil {
		t.Fatal(err)
	}
	p.sync.Close(context.Background())
	v := start(t, root, state).viewAs(t, "s", "f.txt")
	if !slices.Equal(v.Read, rs(1, 19, 21, 30, 32, 41)) || !slices.Equal(v.Stale, rs(20, 20)) || !slices.Equal(v.Unread, rs(31, 31)) {
		t.Fatalf("s after another session's process changed the file: %+v", v)
	}
}

// oneCall starts a process of one call serving session (OnlyServed), and
// has it see f.txt.
func oneCall(t *testing.T, root, state, session string) (*process, workspace.Key, workspace.Doc) {
	t.Helper()
	p := start(t, root, state)
	p.sync.OnlyServed()
	p.sync.Serve(session)
	k, _ := p.ws.Resolve("f.txt")
	d, err := p.get(k)
	if err != nil {
		t.Fatal(err)
	}
	return p, k, d
}

// viewAs is the ledger of path for session, after the process sees it.
func (p *process) viewAs(t *testing.T, session, path string) ledger.DocView {
	t.Helper()
	k, err := p.ws.Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.get(k); err != nil {
		t.Fatal(err)
	}
	return p.l.Doc(session, ledger.DocKey(k))
}
