package ledger

import "testing"

// Persisted reads restored after the document changed (the restore is a
// database query, made outside every lock, while edits go on) land on the
// lines they were of: they move through the changes made since the revision
// the restore was computed for, and lines replaced since are not claimed.
func TestImportAtAnEarlierRevisionMoves(t *testing.T) {
	l := New(Options{})
	doc := DocKey("file:///w/a.go")
	l.SetTotal(doc, 1, 10)
	l.ApplyChange(doc, 1, 2, Change{Start: 1, Old: 0, New: 2}, "", 12) // two lines on top
	l.ApplyChange(doc, 2, 3, Change{Start: 9, Old: 1, New: 1}, "", 12) // old line 7 rewritten
	l.Import("s", doc, 1, Entry{TotalLines: 10, Read: []Range{{Start: 5, End: 7}}, Seen: true})
	v := l.Doc("s", doc)
	if got, want := v.Read, []Range{{Start: 7, End: 8}}; !equalRanges(got, want) {
		t.Fatalf("read %v, want %v (lines 5-7 moved down two, line 7 rewritten since)", got, want)
	}
	if got, want := v.Stale, []Range{{Start: 9, End: 9}}; !equalRanges(got, want) {
		t.Fatalf("stale %v, want %v", got, want)
	}
	// A revision the change log does not reach imports nothing.
	l.Import("t", doc, 0, Entry{TotalLines: 10, Read: []Range{{Start: 1, End: 10}}, Seen: true})
	if v := l.Doc("t", doc); len(v.Read) != 0 {
		t.Fatalf("imported %v from a revision the ledger cannot map", v.Read)
	}
}

func equalRanges(a, b []Range) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Callers that settle at once hand the ledger overlapping runs of the same
// numbered steps, each run starting after what the ledger had followed when
// it was taken: each step is applied once, in order, whoever hands it first,
// and the ledger ends as one caller applying them all would leave it.
func TestFollowAppliesEachStepOnceInOrder(t *testing.T) {
	doc := DocKey("file:///w/a.go")
	steps := []Step{
		{Seq: 1, Doc: doc, ToRev: 1, First: true, NewTotal: 10},
		{Seq: 2, Doc: doc, FromRev: 1, ToRev: 2, Changes: []Change{{Start: 1, Old: 0, New: 2}}, NewTotal: 12},
		{Seq: 3, Doc: doc, FromRev: 2, ToRev: 3, Changes: []Change{{Start: 12, Old: 1, New: 0}}, NewTotal: 11},
		{Seq: 4, Doc: doc, FromRev: 3, ToRev: 4, Changes: []Change{{Start: 5, Old: 0, New: 1}}, Author: "s", NewTotal: 12},
	}
	for range 200 {
		l := New(Options{})
		l.Follow(steps[:1])
		l.RecordRead("s", "", doc, 1, Range{Start: 1, End: 10})
		w := New(Options{})
		w.Follow(steps[:1])
		w.RecordRead("s", "", doc, 1, Range{Start: 1, End: 10})
		w.Follow(steps)
		done := make(chan int64, 3)
		for _, run := range [][]Step{steps[1:3], steps[1:], steps[1:2]} {
			go func() { done <- l.Follow(run) }()
		}
		for range 3 {
			<-done
		}
		if got, exp := l.Doc("s", doc), w.Doc("s", doc); !equalRanges(got.Read, exp.Read) || !equalRanges(got.Authored, exp.Authored) || got.Rev != exp.Rev || got.TotalLines != exp.TotalLines {
			t.Fatalf("concurrent follow: read %v authored %v rev %d total %d; one caller: read %v authored %v rev %d total %d",
				got.Read, got.Authored, got.Rev, got.TotalLines, exp.Read, exp.Authored, exp.Rev, exp.TotalLines)
		}
		if l.Followed() != 4 {
			t.Fatalf("followed %d, want 4", l.Followed())
		}
	}
}
