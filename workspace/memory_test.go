package workspace

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/textdoc"
)

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// doc1MB is a document of about 1 MB in lines of about 40 bytes.
func doc1MB() []string {
	ls := make([]string, 25000)
	for i := range ls {
		ls[i] = fmt.Sprintf("\tvalue_%06d := compute(%d, %d) // x\n", i, i, i*7)
	}
	return ls
}

// A full-text change is a line diff against the previous text: unchanged
// lines are shared with it, the ledger is told only the changed lines, and
// kept revisions cost what changed, not the whole text each.
func TestFullTextChangesShareStructure(t *testing.T) {
	if testing.Short() {
		t.Skip("memory measurement")
	}
	ls := doc1MB()
	text := strings.Join(ls, "")
	w := newWS(t, []string{t.TempDir()}, Options{})
	u := FromPath(filepath.Join(t.TempDir(), "big.go")).String()
	base := liveHeap()
	if _, err := w.Open(u, "go", 1, text); err != nil {
		t.Fatal(err)
	}
	for v := 2; v <= 1001; v++ {
		i := (v * 37) % len(ls)
		ls[i] = fmt.Sprintf("\tvalue_%06d := compute(%d, %d) // edited %d\n", i, i, i*7, v)
		seen := lastSeq(w)
		w.Acknowledge(seen) // as the ledger's follower does
		if _, err := w.Change(u, int32(v), []textdoc.Change{{Text: strings.Join(ls, "")}}, textdoc.UTF16, ""); err != nil {
			t.Fatal(err)
		}
		if events := w.ChangesSince(seen); len(events) != 1 || len(events[0].Changes) != 1 || events[0].Changes[0] != (textdoc.LineChange{Start: i, Old: 1, New: 1}) {
			t.Fatalf("change %d: events %+v, want line %d changed", v, events, i)
		}
	}
	d, _ := w.Known(Key(u))
	if got := d.Snap.Text(); got != strings.Join(ls, "") {
		t.Fatal("text differs after the changes")
	}
	grown := int64(liveHeap()) - int64(base) // text and ls are in both
	t.Logf("live heap after 1,000 full-text changes of a %d-byte document: %.1f MB (%.2fx)", len(text), float64(grown)/1e6, float64(grown)/float64(len(text)))
	if grown > int64(3*len(text)) {
		t.Fatalf("live heap grew %d bytes for a %d-byte document: over 3x", grown, len(text))
	}
	runtime.KeepAlive(w)
	runtime.KeepAlive(text)
}

// An insertion in the middle of a full-text change reports the inserted
// lines only, not everything between the first and last difference.
func TestFullTextChangeIsAMinimalDiff(t *testing.T) {
	w := newWS(t, []string{t.TempDir()}, Options{})
	u := "file:///tmp/x/a.txt"
	w.Open(u, "", 1, "a\nb\nc\nd\ne\n")
	seen := lastSeq(w) // past the first sight
	if _, err := w.Change(u, 2, []textdoc.Change{{Text: "a\nX\nb\nc\nd\nY\ne\n"}}, textdoc.UTF16, ""); err != nil {
		t.Fatal(err)
	}
	want := []textdoc.LineChange{{Start: 1, Old: 0, New: 1}, {Start: 5, Old: 0, New: 1}}
	if events := w.ChangesSince(seen); len(events) != 1 || fmt.Sprint(events[0].Changes) != fmt.Sprint(want) {
		t.Fatalf("events %+v, want %v", events, want)
	}
}

// Revisions that rewrite the whole document are kept within the byte
// budget, not only the count.
func TestKeptRevisionsCappedByBytes(t *testing.T) {
	w := newWS(t, []string{t.TempDir()}, Options{})
	u := "file:///tmp/x/big.txt"
	line := strings.Repeat("x", 99) + "\n"
	w.Open(u, "", 1, strings.Repeat(line, 10000)) // 1 MB
	for v := 2; v < 60; v++ {
		text := strings.Repeat(fmt.Sprintf("%099d\n", v), 10000)
		if _, err := w.Change(u, int32(v), []textdoc.Change{{Text: text}}, textdoc.UTF16, ""); err != nil {
			t.Fatal(err)
		}
		d, _ := w.Known(FromPath("/tmp/x/big.txt"))
		w.Pin(d.Key, d.Rev)
	}
	e := w.docs[FromPath("/tmp/x/big.txt")]
	if got, budget := keptBytes(e.past, e.doc.Snap)+keptBytes(e.pinned, e.doc.Snap), keptBudget(e.doc.Snap); got > budget+e.doc.Snap.Owned() {
		t.Fatalf("kept %d bytes of revisions (%d past, %d pinned), budget %d", got, len(e.past), len(e.pinned), budget)
	}
}

// TestSmallEditsKeepShownRevisions: a few small edits of a large document
// keep the revision the agent was shown: they share all but a few leaves
// with it, so keeping it costs little (it was once charged its whole text
// and dropped at once, which made refs from it stale-by-caution).
func TestSmallEditsKeepShownRevisions(t *testing.T) {
	w := newWS(t, []string{t.TempDir()}, Options{})
	u := "file:///tmp/x/huge.txt"
	line := strings.Repeat("x", 29) + "\n"
	d, _ := w.Open(u, "", 1, strings.Repeat(line, 200000)) // 6 MB of short lines
	// Not pinned: the recent revisions themselves must keep it (a pinned one
	// always survives the trim, so pinning would hide the accounting).
	for v := 2; v < 2+maxPast-2; v++ {
		r := textdoc.Range{Start: textdoc.Pos{Line: uint32(v * 1000)}, End: textdoc.Pos{Line: uint32(v * 1000), Char: 3}}
		if _, err := w.Change(u, int32(v), []textdoc.Change{{Range: &r, Text: "yyy"}}, textdoc.UTF16, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := w.SnapshotAt(d.Key, d.Rev); !ok {
		t.Fatalf("the shown revision was dropped after %d one-line edits", maxPast-2)
	}
}

// lastSeq is the number of the workspace's latest change (0: none).
func lastSeq(w *Workspace) int64 {
	evs := w.ChangesSince(0)
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Seq
}
