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
