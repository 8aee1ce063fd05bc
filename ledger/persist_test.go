package ledger

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestEntryMoved: a 40-line file read whole, then changed on disk (a line
// inserted at 10, old line 20 rewritten): the reads shift, the rewritten
// line is stale, the inserted one unread.
func TestEntryMoved(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 40)
	l.RecordRead("s", "coder", doc, 1, Range{1, 40})
	e, _ := l.Export("s", doc)

	moved := e.Moved([]Change{{10, 0, 1}, {21, 1, 1}}, 41)
	l2 := newTestLedger(Options{})
	l2.SetTotal(doc, 9, 41)
	l2.Import("s", doc, 9, moved)
	expectView(t, l2.Doc("s", doc), Stale, rs(1, 9, 11, 20, 22, 41), nil, rs(21, 21), rs(10, 10))
	if c := l2.Check("s", doc, rs(5, 5)); !c.Clear() {
		t.Errorf("line 5 not clear: %+v", c)
	}

	// Changes that do not add up to the new length: everything seen is stale.
	bad := e.Moved([]Change{{10, 0, 1}}, 45)
	eqRanges(t, "stale", bad.Stale, rs(1, 45))
	if len(bad.Read) != 0 || len(bad.Records) != 0 {
		t.Errorf("unfit changes kept reads: %+v", bad)
	}
	if out := e.Moved([]Change{{39, 5, 0}}, 35); len(out.Read) != 0 || !slices.Equal(out.Stale, rs(1, 35)) {
		t.Errorf("a change past the end: %+v", out)
	}
	// An unseen document stays unseen.
	if out := (Entry{TotalLines: 3}).Moved([]Change{{1, 9, 0}}, 0); len(out.Stale) != 0 {
		t.Errorf("unseen entry went stale: %+v", out)
	}
}

// TestEntryMovedMatchesApplyChange: moving an exported entry through changes
// and importing it gives the ledger that ApplyChange gives live.
func TestEntryMovedMatchesApplyChange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		total := rapid.IntRange(0, 30).Draw(t, "total")
		live := newTestLedger(Options{})
		live.SetTotal(doc, 1, total)
		rev := Rev(1)
		for range rapid.IntRange(0, 6).Draw(t, "ops") {
			a := rapid.IntRange(1, total+2).Draw(t, "start")
			r := Range{a, a + rapid.IntRange(0, 8).Draw(t, "len")}
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				live.RecordRead("s", "", doc, rev, r)
			case 1:
				live.RecordAuthored("s", "", doc, rev, r)
			default:
				start := rapid.IntRange(1, total+1).Draw(t, "cstart")
				old := rapid.IntRange(0, total+1-start).Draw(t, "cold")
				ch := Change{start, old, rapid.IntRange(0, 4).Draw(t, "cnew")}
				total += ch.New - ch.Old
				live.ApplyChange(doc, rev, rev+1, ch, "", total)
				rev++
			}
		}
		e, ok := live.Export("s", doc)
		if !ok {
			return
		}
		var changes []Change
		for range rapid.IntRange(0, 4).Draw(t, "changes") {
			start := rapid.IntRange(1, total+1).Draw(t, "mstart")
			old := rapid.IntRange(0, total+1-start).Draw(t, "mold")
			ch := Change{start, old, rapid.IntRange(0, 4).Draw(t, "mnew")}
			changes = append(changes, ch)
			total += ch.New - ch.Old
			live.ApplyChange(doc, rev, rev+1, ch, "", total)
			rev++
		}
		restored := newTestLedger(Options{})
		restored.SetTotal(doc, 100, total)
		restored.Import("s", doc, 100, e.Moved(changes, total))
		want, got := live.Doc("s", doc), restored.Doc("s", doc)
		if got.State != want.State || !slices.Equal(got.Read, want.Read) || !slices.Equal(got.Authored, want.Authored) ||
			!slices.Equal(got.Stale, want.Stale) || !slices.Equal(got.Unread, want.Unread) {
			t.Fatalf("after %v:\nrestored %+v\nlive     %+v", changes, got, want)
		}
		var wantLines, gotLines RangeSet
		for _, r := range want.Records {
			wantLines.AddAll(r.Lines)
		}
		for _, r := range got.Records {
			gotLines.AddAll(r.Lines)
		}
		if !gotLines.Equal(&wantLines) {
			t.Fatalf("record lines: restored %v, live %v", gotLines.Ranges(), wantLines.Ranges())
		}
	})
}

// TestMergeEntries: two processes' entries of one session's ledger of the
// same text merge into what both were shown or wrote, each record once.
func TestMergeEntries(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	rec := func(sec int, kind Kind, r Range) Record {
		return Record{Rev: int64(sec), Time: t0.Add(time.Duration(sec) * time.Second), Kind: kind, Range: r, Lines: []Range{r}}
	}
	shared := rec(1, KindRead, Range{1, 2})
	a := Entry{TotalLines: 10, Seen: true, Read: []Range{{1, 2}, {5, 5}}, Stale: []Range{{7, 7}},
		Records: []Record{shared, rec(3, KindRead, Range{5, 5})}}
	b := Entry{TotalLines: 10, Seen: true, Created: true, Read: []Range{{1, 2}, {7, 7}}, Authored: []Range{{5, 5}}, Stale: []Range{{9, 9}},
		Records: []Record{{Rev: 99, Time: shared.Time, Kind: shared.Kind, Range: shared.Range, Lines: shared.Lines}, rec(2, KindRead, Range{7, 7}), rec(4, KindAuthored, Range{5, 5})}}
	got := MergeEntries(a, b, 0)
	want := Entry{TotalLines: 10, Seen: true, Created: true,
		Read: []Range{{1, 2}, {7, 7}}, Authored: []Range{{5, 5}}, Stale: []Range{{9, 9}},
		Records: []Record{shared, rec(2, KindRead, Range{7, 7}), rec(3, KindRead, Range{5, 5}), rec(4, KindAuthored, Range{5, 5})}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merged:\n%+v\nwant\n%+v", got, want)
	}
	if got := MergeEntries(a, b, 2); len(got.Records) != 2 || !got.Records[1].Time.Equal(t0.Add(4*time.Second)) {
		t.Fatalf("the newest 2 records: %+v", got.Records)
	}
	if got := MergeEntries(a, a, 0); !reflect.DeepEqual(got, a) {
		t.Fatalf("an entry merged with itself: %+v", got)
	}
	other := b
	other.TotalLines = 11
	if got := MergeEntries(a, other, 0); !reflect.DeepEqual(got, a) {
		t.Fatalf("entries of another text merged: %+v", got)
	}
}
