package ledger

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
)

const doc DocKey = "file:///w/a.go"

func newTestLedger(opts Options) *Ledger {
	if opts.Now == nil {
		t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		n := 0
		opts.Now = func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) }
	}
	return New(opts)
}

func expectView(t *testing.T, v DocView, state State, read, authored, stale, unread []Range) {
	t.Helper()
	if v.State != state {
		t.Errorf("state = %s, want %s", v.State, state)
	}
	eqRanges(t, "read", v.Read, read)
	eqRanges(t, "authored", v.Authored, authored)
	eqRanges(t, "stale", v.Stale, stale)
	eqRanges(t, "unread", v.Unread, unread)
}

func TestReadsMerge(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 680)
	expectView(t, l.Doc("s", doc), NeverRead, nil, nil, nil, rs(1, 680))
	l.RecordRead("s", "coder", doc, 1, Range{1, 200})
	l.RecordRead("s", "orchestrator", doc, 1, Range{201, 400})
	v := l.Doc("s", doc)
	expectView(t, v, PartialRead, rs(1, 400), nil, nil, rs(401, 680))
	if len(v.Records) != 2 || v.Records[0].Agent != "coder" || v.Records[1].Agent != "orchestrator" || v.Records[1].Range != (Range{201, 400}) {
		t.Errorf("records = %+v", v.Records)
	}
	l.RecordRead("s", "coder", doc, 1, Range{350, 900}) // clamped to 680
	expectView(t, l.Doc("s", doc), FullyRead, rs(1, 680), nil, nil, nil)
	if r := l.Doc("s", doc).Records[2].Range; r != (Range{350, 680}) {
		t.Errorf("clamped record range = %v", r)
	}
	// Another session is unaffected.
	expectView(t, l.Doc("other", doc), NeverRead, nil, nil, nil, rs(1, 680))
}

func TestEmptyDocument(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 0)
	expectView(t, l.Doc("s", doc), NeverRead, nil, nil, nil, nil)
	l.RecordRead("s", "", doc, 1, Range{1, 0})
	expectView(t, l.Doc("s", doc), FullyRead, nil, nil, nil, nil)
	// Someone types two lines into it: they are new to the session.
	l.ApplyChange(doc, 1, 2, Change{1, 0, 2}, "", 2)
	expectView(t, l.Doc("s", doc), PartialRead, nil, nil, nil, rs(1, 2))
}

func TestUntouchedAndUnknown(t *testing.T) {
	l := newTestLedger(Options{})
	v := l.Doc("s", "file:///nope")
	expectView(t, v, NeverRead, nil, nil, nil, nil)
	if v.Read == nil || v.Unread == nil || v.Stale == nil || v.Authored == nil {
		t.Error("slices of an unknown document should be empty, not nil")
	}
	if len(l.Docs("s")) != 0 || l.Sessions("file:///nope") != nil {
		t.Error("unknown document listed")
	}
	if _, ok := l.Export("s", "file:///nope"); ok {
		t.Error("Export of nothing")
	}
	// A read of a document never counted gives it at least the lines shown.
	l.RecordRead("s", "", "file:///new", 3, Range{1, 10})
	if total, rev, ok := l.DocInfo("file:///new"); !ok || total != 10 || rev != 3 {
		t.Errorf("DocInfo = %d %d %v", total, rev, ok)
	}
}

func TestShiftWithText(t *testing.T) {
	setup := func() *Ledger {
		l := newTestLedger(Options{})
		l.SetTotal(doc, 1, 100)
		l.RecordRead("s", "", doc, 1, Range{20, 40})
		return l
	}
	t.Run("edit above shifts down", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{5, 0, 3}, "", 103) // insertion by the user
		expectView(t, l.Doc("s", doc), PartialRead, rs(23, 43), nil, nil, rs(1, 22, 44, 103))
		if got := l.Doc("s", doc).Records[0]; got.Range != (Range{20, 40}) || !slices.Equal(got.Lines, rs(23, 43)) {
			t.Errorf("record = %+v", got)
		}
	})
	t.Run("deletion above shifts up", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{1, 10, 0}, "", 90)
		expectView(t, l.Doc("s", doc), PartialRead, rs(10, 30), nil, nil, rs(1, 9, 31, 90))
	})
	t.Run("edit below changes nothing", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{60, 5, 1}, "", 96)
		expectView(t, l.Doc("s", doc), PartialRead, rs(20, 40), nil, nil, rs(1, 19, 41, 96))
	})
	t.Run("someone else's change inside a read range is stale", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{30, 2, 3}, "", 101)
		v := l.Doc("s", doc)
		expectView(t, v, Stale, rs(20, 29, 33, 41), nil, rs(30, 32), rs(1, 19, 42, 101))
		if !slices.Equal(v.Records[0].Lines, rs(20, 29, 33, 41)) {
			t.Errorf("record lines = %v", v.Records[0].Lines)
		}
		// Reading them again clears it.
		l.RecordRead("s", "", doc, 2, Range{30, 32})
		expectView(t, l.Doc("s", doc), PartialRead, rs(20, 41), nil, nil, rs(1, 19, 42, 101))
	})
	t.Run("change overlapping the edge of a read range is stale", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{38, 6, 2}, "", 96)
		expectView(t, l.Doc("s", doc), Stale, rs(20, 37), nil, rs(38, 39), rs(1, 19, 40, 96))
	})
	t.Run("own change is authored", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{30, 2, 3}, "s", 101)
		v := l.Doc("s", doc)
		expectView(t, v, PartialRead, rs(20, 29, 33, 41), rs(30, 32), nil, rs(1, 19, 42, 101))
		if n := len(v.Records); n != 2 || v.Records[1].Kind != KindAuthored || v.Records[1].Rev != 2 || v.Records[1].Range != (Range{30, 32}) {
			t.Errorf("records = %+v", v.Records)
		}
		// The agent's own report names the agent on that record, no duplicate.
		l.RecordAuthored("s", "coder", doc, 2, Range{30, 32})
		v = l.Doc("s", doc)
		if n := len(v.Records); n != 2 || v.Records[1].Agent != "coder" {
			t.Errorf("records after RecordAuthored = %+v", v.Records)
		}
	})
	t.Run("pure insertion by someone else is unread", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{30, 0, 4}, "", 104)
		expectView(t, l.Doc("s", doc), PartialRead, rs(20, 29, 34, 44), nil, nil, rs(1, 19, 30, 33, 45, 104))
	})
	t.Run("pure deletion inside a read range joins it", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{30, 5, 0}, "", 95)
		expectView(t, l.Doc("s", doc), PartialRead, rs(20, 35), nil, nil, rs(1, 19, 36, 95))
	})
	t.Run("replacing unread lines leaves them unread", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{50, 5, 5}, "", 100)
		expectView(t, l.Doc("s", doc), PartialRead, rs(20, 40), nil, nil, rs(1, 19, 41, 100))
	})
	t.Run("own edit does not make other sessions' lines authored", func(t *testing.T) {
		l := setup()
		l.RecordRead("t", "", doc, 1, Range{1, 100})
		l.ApplyChange(doc, 1, 2, Change{30, 1, 1}, "s", 100)
		expectView(t, l.Doc("t", doc), Stale, rs(1, 29, 31, 100), nil, rs(30, 30), nil)
		expectView(t, l.Doc("s", doc), PartialRead, rs(20, 29, 31, 40), rs(30, 30), nil, rs(1, 19, 41, 100))
	})
	t.Run("someone else changing authored lines makes them stale", func(t *testing.T) {
		l := setup()
		l.ApplyChange(doc, 1, 2, Change{50, 0, 3}, "s", 103)
		l.ApplyChange(doc, 2, 3, Change{51, 1, 1}, "", 103)
		expectView(t, l.Doc("s", doc), Stale, rs(20, 40), rs(50, 50, 52, 52), rs(51, 51), rs(1, 19, 41, 49, 53, 103))
	})
}

func TestStatePrecedence(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 10)
	l.RecordRead("s", "", doc, 1, Range{1, 10})
	if st := l.Doc("s", doc).State; st != FullyRead {
		t.Fatalf("state %s", st)
	}
	l.ApplyChange(doc, 1, 2, Change{5, 1, 1}, "", 10)
	if st := l.Doc("s", doc).State; st != Stale {
		t.Fatalf("stale beats fully_read: %s", st)
	}
	l.MarkCreated("s", doc)
	if st := l.Doc("s", doc).State; st != ModelAuthored {
		t.Fatalf("model_authored beats stale: %s", st)
	}
	// Read + authored covering everything is fully_read.
	l2 := newTestLedger(Options{})
	l2.SetTotal(doc, 1, 10)
	l2.RecordRead("s", "", doc, 1, Range{1, 5})
	l2.RecordAuthored("s", "", doc, 1, Range{6, 10})
	expectView(t, l2.Doc("s", doc), FullyRead, rs(1, 5), rs(6, 10), nil, nil)
	// Reading authored lines keeps them authored.
	l2.RecordRead("s", "", doc, 1, Range{1, 10})
	expectView(t, l2.Doc("s", doc), FullyRead, rs(1, 5), rs(6, 10), nil, nil)
	// Authoring read or stale lines moves them to authored.
	l2.ApplyChange(doc, 1, 2, Change{1, 1, 1}, "", 10)
	l2.RecordAuthored("s", "", doc, 2, Range{1, 3})
	expectView(t, l2.Doc("s", doc), FullyRead, rs(4, 5), rs(1, 3, 6, 10), nil, nil)
}

func TestMarkCreated(t *testing.T) {
	l := newTestLedger(Options{})
	// Created before the document was counted: its lines are authored once it is.
	l.MarkCreated("s", doc)
	if v := l.Doc("s", doc); v.State != ModelAuthored {
		t.Fatalf("state %s", v.State)
	}
	l.SetTotal(doc, 4, 12)
	expectView(t, l.Doc("s", doc), ModelAuthored, nil, rs(1, 12), nil, nil)
	if d := l.Check("s", doc, rs(1, 100)); !d.Clear() || d.OtherStale != nil {
		t.Errorf("created document not clear: %+v", d)
	}
	l.ApplyChange(doc, 4, 5, Change{3, 1, 1}, "", 12)
	if d := l.Check("s", doc, rs(3, 3)); !d.Clear() {
		t.Errorf("created document not clear after a user edit: %+v", d)
	}
	expectView(t, l.Doc("s", doc), ModelAuthored, nil, rs(1, 2, 4, 12), rs(3, 3), nil)
	// A counted document created afterwards.
	l.SetTotal("file:///b", 1, 3)
	l.MarkCreated("s", "file:///b")
	expectView(t, l.Doc("s", "file:///b"), ModelAuthored, nil, rs(1, 3), nil, nil)
}

func TestCheck(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 200)
	l.RecordRead("s", "", doc, 1, Range{50, 100})
	d := l.Check("s", doc, rs(80, 120))
	eqRanges(t, "unread", d.Unread, rs(101, 120))
	if d.Clear() || d.Stale != nil || d.OtherStale != nil {
		t.Errorf("decision %+v", d)
	}
	if d := l.Check("s", doc, rs(60, 70, 90, 100)); !d.Clear() {
		t.Errorf("covered targets not clear: %+v", d)
	}
	l.ApplyChange(doc, 1, 2, Change{60, 3, 3}, "", 200)  // stale 60-62
	l.ApplyChange(doc, 2, 3, Change{95, 1, 1}, "", 200)  // stale 95
	l.ApplyChange(doc, 3, 4, Change{150, 1, 1}, "", 200) // unread stays unread
	d = l.Check("s", doc, rs(55, 61, 58, 59, 190, 300))
	eqRanges(t, "stale", d.Stale, rs(60, 61))
	eqRanges(t, "unread", d.Unread, rs(190, 200))
	eqRanges(t, "other stale", d.OtherStale, rs(62, 62, 95, 95))
	if d.Clear() {
		t.Error("clear")
	}
	// Only other lines stale: proceeds, with a warning.
	d = l.Check("s", doc, rs(70, 80))
	if !d.Clear() {
		t.Errorf("not clear: %+v", d)
	}
	eqRanges(t, "warning", d.OtherStale, rs(60, 62, 95, 95))
	// A session that never touched it: all targets unread.
	eqRanges(t, "stranger", l.Check("t", doc, rs(1, 5, 3, 9)).Unread, rs(1, 9))
	// A document the ledger never saw: targets unread, not clamped away.
	eqRanges(t, "unknown doc", l.Check("s", "file:///x", rs(3, 4)).Unread, rs(3, 4))
	// An empty target list is clear.
	if !l.Check("t", doc, nil).Clear() {
		t.Error("no targets")
	}
}

func TestMapLine(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 10, 20)
	l.ApplyChange(doc, 10, 11, Change{5, 2, 0}, "", 18) // delete 5-6
	// One editor event with two changes at rev 12.
	l.ApplyChange(doc, 11, 12, Change{1, 0, 3}, "s", 21)  // insert 3 at top
	l.ApplyChange(doc, 12, 12, Change{10, 1, 2}, "s", 22) // replace line 10 (old 7+... of rev 11)
	cases := []struct {
		rev        Rev
		line, want int
		ok         bool
	}{
		{10, 1, 4, true},
		{10, 4, 7, true},
		{10, 5, 0, false},  // deleted
		{10, 7, 8, true},   // 7 → 5 (rev 11) → 8
		{10, 9, 0, false},  // 9 → 7 → 10: replaced in the second change
		{10, 10, 12, true}, // 10 → 8 → 11 → 12
		{10, 20, 22, true},
		{10, 21, 0, false}, // did not exist
		{10, 0, 0, false},
		{11, 7, 0, false},
		{11, 8, 12, true},
		{12, 22, 22, true},
		{12, 23, 0, false},
		{9, 1, 0, false},  // before the log
		{13, 1, 0, false}, // not seen yet
	}
	for _, c := range cases {
		got, ok := l.MapLine(doc, c.rev, c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("MapLine(%d, %d) = %d, %v; want %d, %v", c.rev, c.line, got, ok, c.want, c.ok)
		}
	}
	// The author's records in one event are restated in the final text of the
	// revision: lines 1-3 and 10-11 of rev 12.
	sh := l.Shown("s", doc)
	if !reflect.DeepEqual(sh, []Shown{{12, Range{1, 3}, KindAuthored, nil}, {12, Range{10, 11}, KindAuthored, nil}}) {
		t.Errorf("Shown = %+v", sh)
	}
	if _, ok := l.MapLine("file:///x", 10, 1); ok {
		t.Error("unknown doc mapped")
	}
}

func TestResplitWithinEvent(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 30)
	// One event: write 10 lines at 5, then insert 2 lines inside them, then
	// delete the top line.
	l.ApplyChange(doc, 1, 2, Change{5, 0, 10}, "s", 40)
	l.ApplyChange(doc, 2, 2, Change{8, 0, 2}, "s", 42)
	l.ApplyChange(doc, 2, 2, Change{1, 1, 0}, "s", 41)
	v := l.Doc("s", doc)
	eqRanges(t, "authored", v.Authored, rs(4, 15))
	var got []Range
	for _, r := range v.Records {
		if r.Rev != 2 || !slices.Equal(r.Lines, []Range{r.Range}) {
			t.Errorf("record %+v not restated at rev 2", r)
		}
		got = append(got, r.Range)
	}
	eqRanges(t, "records", got, rs(4, 6, 9, 15, 7, 8))
}

func TestReadAtOlderRevision(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 50)
	// The read was served at rev 1, but a change landed before it was recorded.
	l.ApplyChange(doc, 1, 2, Change{10, 2, 1}, "", 49)
	l.RecordRead("s", "", doc, 1, Range{5, 20})
	v := l.Doc("s", doc)
	expectView(t, v, PartialRead, rs(5, 9, 11, 19), nil, nil, rs(1, 4, 10, 10, 20, 49))
	if r := v.Records[0]; r.Rev != 1 || r.Range != (Range{5, 20}) {
		t.Errorf("record %+v", r)
	}
	if c := l.Sources("s", doc, 15); !slices.Equal(c, []Source{{Rev: 1, Line: 14, OK: true}}) {
		t.Errorf("Sources(15) = %v", c)
	}
	if c := l.Sources("s", doc, 10); !slices.Equal(c, []Source{{Rev: 1}}) { // line 10 of rev 1 was replaced
		t.Errorf("Sources(10) = %v", c)
	}
	if c := l.Sources("s", doc, 99); c != nil {
		t.Errorf("Sources(99) = %v", c)
	}
	// A revision the ledger has not seen yet counts as the current one.
	l.RecordRead("s", "", doc, 7, Range{1, 2})
	if r := l.Doc("s", doc).Records[1]; r.Rev != 2 || !slices.Equal(r.Lines, rs(1, 2)) {
		t.Errorf("future read record %+v", r)
	}
}

func TestChangeLogBound(t *testing.T) {
	l := newTestLedger(Options{MaxChangeLog: 4})
	l.SetTotal(doc, 1, 10)
	for rev := Rev(1); rev < 8; rev++ {
		l.ApplyChange(doc, rev, rev+1, Change{1, 0, 1}, "", int(10+rev))
	}
	base, log := l.Log(doc)
	if base != 4 || len(log) != 4 || log[0].FromRev != 4 {
		t.Fatalf("base %d log %+v", base, log)
	}
	if _, ok := l.MapLine(doc, 3, 1); ok {
		t.Error("a revision older than the log mapped")
	}
	if cur, ok := l.MapLine(doc, 4, 1); !ok || cur != 5 {
		t.Errorf("MapLine(4,1) = %d %v", cur, ok)
	}
	// A read at a revision the log no longer reaches counts for nothing.
	l.RecordRead("s", "", doc, 2, Range{1, 5})
	v := l.Doc("s", doc)
	expectView(t, v, PartialRead, nil, nil, nil, rs(1, 17))
	if len(l.Shown("s", doc)) != 0 {
		t.Error("unmappable record shown")
	}

	// A multi-change event cut in the middle by the bound drops whole.
	l2 := newTestLedger(Options{MaxChangeLog: 3})
	l2.SetTotal(doc, 1, 10)
	l2.ApplyChange(doc, 1, 2, Change{1, 0, 1}, "", 11)
	l2.ApplyChange(doc, 2, 2, Change{1, 0, 1}, "", 12)
	l2.ApplyChange(doc, 2, 3, Change{1, 0, 1}, "", 13)
	l2.ApplyChange(doc, 3, 4, Change{1, 0, 1}, "", 14) // drops (1→2) first half; the second goes too
	base, log = l2.Log(doc)
	if base != 2 || len(log) != 2 {
		t.Fatalf("base %d log %+v", base, log)
	}
	if cur, ok := l2.MapLine(doc, 2, 1); !ok || cur != 3 {
		t.Errorf("MapLine(2,1) = %d %v", cur, ok)
	}
}

func TestRecordsBound(t *testing.T) {
	l := newTestLedger(Options{MaxRecords: 3})
	l.SetTotal(doc, 1, 100)
	for i := range 5 {
		l.RecordRead("s", fmt.Sprint(i), doc, 1, Range{i*10 + 1, i*10 + 5})
	}
	v := l.Doc("s", doc)
	if len(v.Records) != 3 || v.Records[0].Agent != "2" || v.Records[2].Agent != "4" {
		t.Errorf("records %+v", v.Records)
	}
	// The reads themselves are not forgotten.
	eqRanges(t, "read", v.Read, rs(1, 5, 11, 15, 21, 25, 31, 35, 41, 45))
}

// Reading the same lines of the same text again is the same record seen
// again: it moves to the end with its new time. Re-reads of one function
// do not push out what the session read elsewhere (the ledger keeps a
// bounded number of records, and with them the hashes refs are checked
// against).
func TestRereadIsOneRecord(t *testing.T) {
	l := newTestLedger(Options{MaxRecords: 4})
	l.SetTotal(doc, 1, 100)
	l.RecordShown(KindRead, "s", "a", doc, 1, Range{11, 20}, func(i int) uint32 { return uint32(i) })
	l.RecordRead("s", "a", doc, 1, Range{21, 30})
	for range 5 {
		l.RecordRead("s", "a", doc, 1, Range{1, 10})
	}
	l.RecordRead("s", "b", doc, 1, Range{21, 30}) // another agent's read is its own record
	v := l.Doc("s", doc)
	if len(v.Records) != 4 || v.Records[0].Range != (Range{11, 20}) || v.Records[1].Range != (Range{21, 30}) || v.Records[2].Range != (Range{1, 10}) || v.Records[3].Agent != "b" {
		t.Fatalf("records %+v, want 11-20, 21-30, 1-10 (a), 21-30 (b)", v.Records)
	}
	l.RecordRead("s", "a", doc, 1, Range{11, 20}) // without hashes: those kept stay
	shown := l.Shown("s", doc)
	if last := shown[len(shown)-1]; last.Range != (Range{11, 20}) || len(last.Sums) != 10 {
		t.Fatalf("the re-read of 11-20 is %+v, want its hashes kept", last)
	}
}

func TestReplace(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 50)
	l.RecordRead("s", "", doc, 1, Range{1, 10})
	l.SetTotal("file:///b", 1, 5)
	l.MarkCreated("c", "file:///b")
	l.MarkCreated("c", doc)
	l.RecordRead("empty", "", doc, 1, Range{60, 70}) // beyond the end: nothing
	l.Replace(doc, 2, 30)
	expectView(t, l.Doc("s", doc), Stale, nil, nil, rs(1, 30), nil)
	// No longer the text the session created.
	expectView(t, l.Doc("c", doc), Stale, nil, nil, rs(1, 30), nil)
	if _, ok := l.MapLine(doc, 1, 1); ok {
		t.Error("mapped across a replace")
	}
	if v := l.Doc("s", doc); len(v.Records) != 1 || len(v.Records[0].Lines) != 0 {
		t.Errorf("records %+v", v.Records)
	}
	if slices.Contains(l.Sessions(doc), "empty") {
		t.Error("an empty read created an entry")
	}
	// A session that had seen nothing of it finds it unread.
	l.SetTotal("file:///e", 1, 0)
	l.RecordRead("z", "", "file:///e", 1, Range{1, 0})
	l.Replace("file:///e", 2, 4)
	expectView(t, l.Doc("z", "file:///e"), PartialRead, nil, nil, nil, rs(1, 4))
}

func TestSetTotal(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 20)
	l.RecordRead("s", "", doc, 1, Range{5, 20})
	// A new revision with the same lines keeps reads and mappings.
	l.SetTotal(doc, 2, 20)
	expectView(t, l.Doc("s", doc), PartialRead, rs(5, 20), nil, nil, rs(1, 4))
	if cur, ok := l.MapLine(doc, 1, 7); !ok || cur != 7 {
		t.Errorf("MapLine across identity = %d %v", cur, ok)
	}
	// Cut at the end.
	l.SetTotal(doc, 3, 15)
	expectView(t, l.Doc("s", doc), PartialRead, rs(5, 15), nil, nil, rs(1, 4))
	// Grown at the end: new lines unread.
	l.SetTotal(doc, 4, 18)
	expectView(t, l.Doc("s", doc), PartialRead, rs(5, 15), nil, nil, rs(1, 4, 16, 18))
	if cur, ok := l.MapLine(doc, 1, 15); !ok || cur != 15 {
		t.Errorf("MapLine = %d %v", cur, ok)
	}
	// Same revision, different count: the log restarts.
	l.SetTotal(doc, 4, 10)
	if _, ok := l.MapLine(doc, 1, 1); ok {
		t.Error("mapped across an inconsistent count")
	}
	if total, rev, _ := l.DocInfo(doc); total != 10 || rev != 4 {
		t.Errorf("DocInfo %d %d", total, rev)
	}
}

func TestInconsistentChangeIsReplace(t *testing.T) {
	for name, apply := range map[string]func(l *Ledger){
		"gap in revisions": func(l *Ledger) { l.ApplyChange(doc, 5, 6, Change{1, 0, 1}, "", 21) },
		"out of range":     func(l *Ledger) { l.ApplyChange(doc, 1, 2, Change{18, 5, 0}, "", 15) },
		"bad total":        func(l *Ledger) { l.ApplyChange(doc, 1, 2, Change{1, 1, 1}, "", 25) },
		"negative":         func(l *Ledger) { l.ApplyChange(doc, 1, 2, Change{1, -1, 0}, "", 21) },
	} {
		t.Run(name, func(t *testing.T) {
			l := newTestLedger(Options{})
			l.SetTotal(doc, 1, 20)
			l.RecordRead("s", "", doc, 1, Range{1, 5})
			apply(l)
			v := l.Doc("s", doc)
			if v.State != Stale || len(v.Read) != 0 || countLines(v.Stale) != v.TotalLines {
				t.Errorf("view %+v", v)
			}
		})
	}
}

func TestExportImport(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 100)
	l.RecordRead("s", "coder", doc, 1, Range{1, 40})
	l.ApplyChange(doc, 1, 2, Change{10, 2, 2}, "", 100)
	l.ApplyChange(doc, 2, 3, Change{50, 0, 5}, "s", 105)
	l.ApplyChange(doc, 3, 4, Change{1, 0, 1}, "", 106)
	e, ok := l.Export("s", doc)
	if !ok {
		t.Fatal("no export")
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back Entry
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}

	l2 := newTestLedger(Options{})
	l2.SetTotal(doc, 77, 106)
	l2.Import("s", doc, 77, back)
	a, b := l.Doc("s", doc), l2.Doc("s", doc)
	expectView(t, b, a.State, a.Read, a.Authored, a.Stale, a.Unread)
	// Records come back at the new revision, one per run of current lines.
	var lines []Range
	for _, r := range a.Records {
		lines = append(lines, r.Lines...)
	}
	var got []Range
	for _, r := range b.Records {
		if r.Rev != 77 || !slices.Equal(r.Lines, []Range{r.Range}) {
			t.Errorf("imported record %+v", r)
		}
		got = append(got, r.Range)
	}
	eqRanges(t, "record lines", got, lines)
	if b.Records[0].Agent != "coder" || !b.Records[0].Time.Equal(a.Records[0].Time) {
		t.Errorf("record metadata lost: %+v", b.Records[0])
	}
	if sh := l2.Shown("s", doc); len(sh) != len(got) {
		t.Errorf("Shown after import %+v", sh)
	}

	// A corrupt snapshot is cleaned: clamped, disjoint, stale first.
	l3 := newTestLedger(Options{})
	l3.Import("s", doc, 5, Entry{
		TotalLines: 20,
		Read:       rs(1, 10, 5, 25, 0, 0),
		Authored:   rs(8, 12),
		Stale:      rs(11, 11, 30, 40),
		Records:    []Record{{Kind: "bogus", Lines: rs(3, 4, 6, 6, 50, 60)}},
	})
	v := l3.Doc("s", doc)
	expectView(t, v, Stale, rs(1, 7, 13, 20), rs(8, 10, 12, 12), rs(11, 11), nil)
	if len(v.Records) != 2 || v.Records[0].Kind != KindRead {
		t.Errorf("records %+v", v.Records)
	}
	// Import replaces what the session had.
	l3.Import("s", doc, 5, Entry{TotalLines: 20})
	expectView(t, l3.Doc("s", doc), NeverRead, nil, nil, nil, rs(1, 20))
	// An empty document counts as fully read only if it was read.
	l3.SetTotal("file:///e", 1, 0)
	l3.Import("s", "file:///e", 1, Entry{})
	expectView(t, l3.Doc("s", "file:///e"), NeverRead, nil, nil, nil, nil)
	l3.Import("s", "file:///e", 1, Entry{Seen: true})
	expectView(t, l3.Doc("s", "file:///e"), FullyRead, nil, nil, nil, nil)
}

func TestSessionsDocsEntriesResetForget(t *testing.T) {
	var mu sync.Mutex
	dirty := map[EntryKey]int{}
	var l *Ledger
	l = newTestLedger(Options{OnDirty: func(s string, d DocKey) {
		_ = l.Doc(s, d) // calling back must not deadlock
		mu.Lock()
		dirty[EntryKey{s, d}]++
		mu.Unlock()
	}})
	b := DocKey("file:///w/b.go")
	l.SetTotal(doc, 1, 10)
	l.SetTotal(b, 2, 10)
	if len(dirty) != 0 {
		t.Errorf("SetTotal of untracked docs dirtied %v", dirty)
	}
	l.RecordRead("s", "", b, 2, Range{1, 3})
	l.RecordRead("s", "", doc, 1, Range{1, 3})
	l.RecordRead("t", "", doc, 1, Range{1, 3})
	if dirty[EntryKey{"s", b}] != 1 || dirty[EntryKey{"t", doc}] != 1 {
		t.Errorf("dirty %v", dirty)
	}
	l.ApplyChange(doc, 1, 2, Change{9, 1, 1}, "", 10)
	if dirty[EntryKey{"s", doc}] != 2 || dirty[EntryKey{"t", doc}] != 2 || dirty[EntryKey{"s", b}] != 1 {
		t.Errorf("dirty after change %v", dirty)
	}
	if got := l.Sessions(doc); !slices.Equal(got, []string{"s", "t"}) {
		t.Errorf("Sessions %v", got)
	}
	docs := l.Docs("s")
	if len(docs) != 2 || docs[0].Doc != doc || docs[1].Doc != b {
		t.Errorf("Docs %+v", docs)
	}
	want := []EntryKey{{"s", doc}, {"s", b}, {"t", doc}}
	if got := l.Entries(); !slices.Equal(got, want) {
		t.Errorf("Entries %v", got)
	}
	l.ResetSession("s")
	if len(l.Docs("s")) != 0 || !slices.Equal(l.Sessions(doc), []string{"t"}) {
		t.Error("reset left entries")
	}
	if dirty[EntryKey{"s", b}] != 2 {
		t.Errorf("reset did not dirty: %v", dirty)
	}
	expectView(t, l.Doc("s", doc), NeverRead, nil, nil, nil, rs(1, 10))
	l.Forget(doc)
	if len(l.Docs("t")) != 0 || l.Sessions(doc) != nil || len(l.Entries()) != 0 {
		t.Error("forget left entries")
	}
	if _, _, ok := l.DocInfo(doc); ok {
		t.Error("forgotten doc still known")
	}
	if dirty[EntryKey{"t", doc}] != 3 {
		t.Errorf("forget did not dirty: %v", dirty)
	}
}

func TestViewsDoNotAlias(t *testing.T) {
	l := newTestLedger(Options{})
	l.SetTotal(doc, 1, 100)
	l.RecordRead("s", "", doc, 1, Range{1, 10})
	v := l.Doc("s", doc)
	v.Read[0].End = 99
	v.Records[0].Lines[0].End = 99
	e, _ := l.Export("s", doc)
	e.Read[0].End = 99
	v2 := l.Doc("s", doc)
	if v2.Read[0].End != 10 || v2.Records[0].Lines[0].End != 10 {
		t.Error("a view aliases the ledger")
	}
}

func TestConcurrentUse(t *testing.T) {
	l := newTestLedger(Options{Now: time.Now, OnDirty: func(string, DocKey) {}})
	l.SetTotal(doc, 0, 1000)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			s := fmt.Sprint("s", w)
			for i := range 200 {
				l.RecordRead(s, "", doc, 0, Range{i, i + 20})
				_ = l.Check(s, doc, rs(i, i+5))
				_ = l.Doc(s, doc)
				_ = l.Docs(s)
			}
		})
	}
	wg.Go(func() {
		for rev := Rev(0); rev < 200; rev++ {
			l.ApplyChange(doc, rev, rev+1, Change{int(rev)%900 + 1, 1, 1}, "", 1000)
			_, _ = l.MapLine(doc, rev/2, 10)
		}
	})
	wg.Wait()
	if _, rev, _ := l.DocInfo(doc); rev != 200 {
		t.Errorf("rev %d", rev)
	}
}

// TestShownKeepsLineHashes: the hashes of the lines recorded as shown are
// kept with them, at their revision, whatever changed since; lines recorded
// without them have none.
func TestShownKeepsLineHashes(t *testing.T) {
	l := New(Options{})
	l.SetTotal(doc, 1, 5)
	l.RecordShown(KindRead, "s", "", doc, 1, Range{2, 4}, func(line int) uint32 { return uint32(100 + line) })
	l.RecordRead("s", "", doc, 1, Range{5, 5})
	l.ApplyChange(doc, 1, 2, Change{Start: 3, Old: 1, New: 2}, "", 6)
	sh := l.Shown("s", doc)
	if len(sh) != 2 {
		t.Fatalf("Shown = %+v", sh)
	}
	for line, want := range map[int]uint32{2: 102, 3: 103, 4: 104} {
		if got, ok := sh[0].Sum(line); !ok || got != want {
			t.Errorf("line %d at rev 1: %d %v, want %d", line, got, ok, want)
		}
	}
	if _, ok := sh[0].Sum(5); ok {
		t.Error("line 5 was not shown by that record")
	}
	if _, ok := sh[1].Sum(5); ok {
		t.Error("line 5 was recorded without its hash")
	}
}

// RecordShownRanges records each range as RecordShown does: the same
// lines read, the same records in the same order (those shown again moved
// to the end with their new hashes), and each entry told of once.
func TestRecordShownRangesIsEachRange(t *testing.T) {
	sum := func(i int) uint32 { return uint32(i * 7) }
	rs := []Range{{3, 3}, {10, 12}, {40, 40}}
	one, batch := newTestLedger(Options{}), newTestLedger(Options{})
	told := 0
	batch.onDirty = func(string, DocKey) { told++ }
	for _, l := range []*Ledger{one, batch} {
		l.SetTotal(doc, 1, 50)
		l.RecordShown(KindRead, "s", "a", doc, 1, Range{10, 12}, nil)
		l.RecordRead("s", "a", doc, 1, Range{20, 25})
	}
	for _, r := range rs {
		one.RecordShown(KindRead, "s", "a", doc, 1, r, sum)
	}
	told = 0
	batch.RecordShownRanges(KindRead, "s", "a", doc, 1, rs, sum)
	if told != 1 {
		t.Errorf("the entry was told of %d times, want once", told)
	}
	a, b := one.Doc("s", doc), batch.Doc("s", doc)
	eqRanges(t, "read", b.Read, a.Read)
	if len(a.Records) != len(b.Records) {
		t.Fatalf("records %+v, want %+v", b.Records, a.Records)
	}
	for i := range a.Records {
		if a.Records[i].Range != b.Records[i].Range || a.Records[i].Kind != b.Records[i].Kind {
			t.Fatalf("record %d: %+v, want %+v", i, b.Records[i], a.Records[i])
		}
	}
	sa, sb := one.Shown("s", doc), batch.Shown("s", doc)
	for i := range sa {
		if !slices.Equal(sa[i].Sums, sb[i].Sums) {
			t.Errorf("hashes of %v: %v, want %v", sa[i].Range, sb[i].Sums, sa[i].Sums)
		}
	}
}
