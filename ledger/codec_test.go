package ledger

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// longSession is an entry as a long session leaves it: the most records the
// ledger keeps, each a 10-line read of another part of a 200,000-line file,
// a few seconds apart, by one agent.
func longSession() Entry {
	e := Entry{TotalLines: 200_000, Seen: true}
	at := time.Date(2026, 11, 26, 22, 41, 13, 87146331, time.UTC)
	for i := range DefaultMaxRecords {
		r := Range{Start: 100 + i*700, End: 109 + i*700}
		e.Read = append(e.Read, r)
		e.Records = append(e.Records, Record{Rev: 1795732945688163, Time: at.Add(time.Duration(i) * 3217 * time.Millisecond), Agent: "claude-code", Kind: KindRead, Range: r, Lines: []Range{r}})
	}
	return e
}

// Every call that restores a document decodes its entries and every call
// that reads writes one back: what an entry takes is paid by each call of a
// session, so it must grow with what it holds, a few bytes per record, not
// with the text it was spelled in (JSON: about 145 bytes a record).
func TestEntryEncodingIsCompact(t *testing.T) {
	e := longSession()
	b, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(e)
	per := float64(len(b)) / float64(len(e.Records))
	t.Logf("%d records: %d bytes (%.1f a record); as JSON %d bytes", len(e.Records), len(b), per, len(j))
	if per > 24 {
		t.Errorf("an entry of %d records takes %d bytes, %.1f a record: want at most 24", len(e.Records), len(b), per)
	}
	var got Entry
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	sameEntry(t, got, e)
}

func TestEntryBinaryRoundTrip(t *testing.T) {
	ranges := func(label string) *rapid.Generator[[]Range] {
		return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Range {
			return Range{Start: rapid.IntRange(-5, 1<<40).Draw(t, "start"), End: rapid.IntRange(-5, 1<<40).Draw(t, "end")}
		}), 0, 6)
	}
	rapid.Check(t, func(t *rapid.T) {
		e := Entry{
			TotalLines: rapid.IntRange(0, 1<<40).Draw(t, "total"),
			Created:    rapid.Bool().Draw(t, "created"),
			Seen:       rapid.Bool().Draw(t, "seen"),
			Read:       ranges("read").Draw(t, "read"),
			Authored:   ranges("authored").Draw(t, "authored"),
			Stale:      ranges("stale").Draw(t, "stale"),
		}
		n := rapid.IntRange(0, 8).Draw(t, "records")
		for range n {
			var at time.Time
			if !rapid.Bool().Draw(t, "zero time") {
				at = time.Unix(rapid.Int64Range(-1<<40, 1<<40).Draw(t, "sec"), rapid.Int64Range(0, 999_999_999).Draw(t, "nsec"))
			}
			e.Records = append(e.Records, Record{
				Rev:   rapid.Int64().Draw(t, "rev"),
				Time:  at,
				Agent: rapid.SampledFrom([]string{"", "claude-code", "codex", "ünïcode"}).Draw(t, "agent"),
				Kind:  rapid.SampledFrom([]Kind{KindRead, KindAuthored, KindWindow, "other"}).Draw(t, "kind"),
				Range: Range{Start: rapid.Int().Draw(t, "rs"), End: rapid.Int().Draw(t, "re")},
				Lines: ranges("lines").Draw(t, "lines"),
			})
		}
		roundTrips(t, e)
	})
}

// The smallest record (every number zero: the revision and second of the
// record before it, no nanoseconds, no lines) decodes: a bound on the
// records a count of bytes can hold refused it (a random case found it).
func TestEntryOfZeroesRoundTrips(t *testing.T) {
	e := Entry{Records: []Record{{Time: time.Unix(0, 0), Kind: KindRead}, {Time: time.Unix(0, 0), Kind: KindRead}}}
	roundTrips(t, e)
}

// roundTrips checks that e decodes from its binary form as it was.
func roundTrips(t fataler, e Entry) {
	t.Helper()
	b, err := e.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Entry
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatalf("decode %x: %v", b, err)
	}
	sameEntry(t, got, e)
}

// An entry that is not one (cut short, another format, garbage) is refused
// with an error, never decoded into something else.
func TestEntryBinaryRefusesWhatIsNotOne(t *testing.T) {
	b, err := longSession().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, {}, []byte(`{"totalLines":3}`), b[:len(b)-1], b[:len(b)/2], append(append([]byte{}, b...), 0), {entryFormat, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		var e Entry
		if err := e.UnmarshalBinary(bad); err == nil {
			t.Errorf("%d bytes decoded without an error", len(bad))
		}
	}
}

func FuzzEntryUnmarshalBinary(f *testing.F) {
	b, _ := longSession().MarshalBinary()
	f.Add(b)
	small, _ := (&Entry{TotalLines: 3, Read: []Range{{1, 2}}, Records: []Record{{Rev: 1, Kind: KindRead, Range: Range{1, 2}, Lines: []Range{{1, 2}}}}}).MarshalBinary()
	f.Add(small)
	f.Fuzz(func(t *testing.T, data []byte) {
		var e Entry
		if e.UnmarshalBinary(data) != nil {
			return
		}
		again, err := e.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Entry
		if err := back.UnmarshalBinary(again); err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		sameEntry(t, back, e)
	})
}

// fataler is what the checks need of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}

func sameEntry(t fataler, got, want Entry) {
	t.Helper()
	eq := slices.Equal[[]Range]
	if got.TotalLines != want.TotalLines || got.Created != want.Created || got.Seen != want.Seen ||
		!eq(got.Read, want.Read) || !eq(got.Authored, want.Authored) || !eq(got.Stale, want.Stale) || len(got.Records) != len(want.Records) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	for i, r := range want.Records {
		g := got.Records[i]
		if g.Rev != r.Rev || !g.Time.Equal(r.Time) || g.Agent != r.Agent || g.Kind != r.Kind || g.Range != r.Range || !eq(g.Lines, r.Lines) {
			t.Fatalf("record %d decoded %+v, want %+v", i, g, r)
		}
	}
}

func BenchmarkEntryCodec(b *testing.B) {
	e := longSession()
	data, _ := e.MarshalBinary()
	js, _ := json.Marshal(e)
	b.Run("binary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var got Entry
			if err := got.UnmarshalBinary(data); err != nil {
				b.Fatal(err)
			}
			if _, err := got.MarshalBinary(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var got Entry
			if err := json.Unmarshal(js, &got); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(got); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Every call of a session that reads a document restores its entry and
// exports it again to be written back (a CLI call does both once): their
// cost is paid by every call of a long session, and in a process that lives
// for one call every allocation is fresh memory. They allocate in bulk, not
// a line set or two per record (808 allocations for 256 records before).
func TestRestoreAndExportOfALongSessionAllocateInBulk(t *testing.T) {
	if raceOn {
		t.Skip("allocations are not counted under the race detector")
	}
	e := longSession()
	allocs := testing.AllocsPerRun(20, func() {
		l := New(Options{})
		l.ImportShown("s", "d", 1, e, nil)
		if _, ok := l.Export("s", "d"); !ok {
			t.Fatal("nothing to export")
		}
	})
	if allocs > 40 {
		t.Errorf("restoring and exporting %d records made %.0f allocations, want at most 40", len(e.Records), allocs)
	}
}

// BenchmarkRestoreAndExport: what every call of a long session pays in the
// ledger for the document it reads, its entry imported and exported again.
func BenchmarkRestoreAndExport(b *testing.B) {
	e := longSession()
	b.ReportAllocs()
	for b.Loop() {
		l := New(Options{})
		l.ImportShown("s", "d", 1, e, nil)
		if _, ok := l.Export("s", "d"); !ok {
			b.Fatal("nothing to export")
		}
	}
}
