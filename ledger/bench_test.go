package ledger

import (
	"testing"
	"time"
)

const benchRanges = 10_000

// manyRanges is a set of benchRanges ranges: lines 1-3 of every block of 5.
func manyRanges() RangeSet {
	var s RangeSet
	for i := range benchRanges {
		s.Add(Range{i*5 + 1, i*5 + 3})
	}
	return s
}

// benchLedger is a 50,000-line document whose session has read benchRanges
// separate ranges, with a few stale lines.
func benchLedger(b *testing.B) *Ledger {
	b.Helper()
	l := New(Options{Now: func() time.Time { return time.Time{} }})
	l.SetTotal(doc, 1, benchRanges*5)
	for i := range benchRanges {
		l.RecordRead("s", "coder", doc, 1, Range{i*5 + 1, i*5 + 3})
	}
	if v := l.Doc("s", doc); len(v.Read) != benchRanges {
		b.Fatalf("%d ranges", len(v.Read))
	}
	return l
}

func BenchmarkRangeSetContains(b *testing.B) {
	s := manyRanges()
	i := 0
	for b.Loop() {
		s.Contains(i%(benchRanges*5) + 1)
		i += 7919
	}
}

func BenchmarkRangeSetCovers(b *testing.B) {
	s := manyRanges()
	i := 0
	for b.Loop() {
		k := i % benchRanges
		s.Covers(Range{k*5 + 1, k*5 + 3})
		i += 7919
	}
}

func BenchmarkRangeSetMissing(b *testing.B) {
	s := manyRanges()
	i := 0
	for b.Loop() {
		k := i % (benchRanges - 10)
		s.Missing(Range{k*5 + 2, k*5 + 40}) // an edit spanning 8 ranges
		i += 7919
	}
}

func BenchmarkRangeSetShift(b *testing.B) {
	s := manyRanges()
	i := 0
	for b.Loop() {
		// Insert a line near the top then delete it: every range moves twice.
		at := i%20 + 1
		s.Shift(Change{at, 0, 1})
		s.Shift(Change{at, 1, 0})
		i++
	}
}

func BenchmarkCheck(b *testing.B) {
	l := benchLedger(b)
	i := 0
	for b.Loop() {
		k := i % (benchRanges - 10)
		l.Check("s", doc, []Range{{k*5 + 1, k*5 + 3}})
		i += 7919
	}
}

func BenchmarkDocView(b *testing.B) {
	l := benchLedger(b)
	for b.Loop() {
		l.Doc("s", doc)
	}
}

// A realistic view: a 2,000-line document read in 100 pieces.
func BenchmarkDocView100(b *testing.B) {
	l := New(Options{})
	l.SetTotal(doc, 1, 2000)
	for i := range 100 {
		l.RecordRead("s", "coder", doc, 1, Range{i*20 + 1, i*20 + 10})
	}
	for b.Loop() {
		l.Doc("s", doc)
	}
}

func BenchmarkSummarize(b *testing.B) {
	l := benchLedger(b)
	for b.Loop() {
		l.Summarize("s", doc)
	}
}

func BenchmarkMapLine(b *testing.B) {
	l := New(Options{})
	l.SetTotal(doc, 1, 10_000)
	for rev := Rev(1); rev <= DefaultMaxChangeLog; rev++ {
		l.ApplyChange(doc, rev, rev+1, Change{int(rev)*7%9000 + 1, 1, 2}, "", 10_000+int(rev))
	}
	i := 0
	for b.Loop() {
		l.MapLine(doc, 1, i%10_000+1) // through the whole log
		i += 7919
	}
}

func BenchmarkApplyChange(b *testing.B) {
	l := benchLedger(b)
	var rev Rev = 1
	total := benchRanges * 5
	for b.Loop() {
		// A user edit near the top: every range and record below it moves.
		l.ApplyChange(doc, rev, rev+1, Change{3, 1, 2}, "", total+1)
		l.ApplyChange(doc, rev+1, rev+2, Change{3, 2, 1}, "", total)
		rev += 2
	}
}

func BenchmarkRecordRead(b *testing.B) {
	l := benchLedger(b)
	i := 0
	for b.Loop() {
		k := i % benchRanges
		l.RecordRead("s", "coder", doc, 1, Range{k*5 + 2, k*5 + 3})
		i += 7919
	}
}
