package ledger

import "testing"

// FuzzOps runs a sequence of ledger operations decoded from bytes (reads,
// writes, changes by the user and by the session, replacements, resets) and
// checks the invariants after each: every reported range lies within the
// document, the kinds do not overlap, and together with unread they cover
// every line exactly once.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 1, 5, 2, 3, 1, 2, 4, 6})
	f.Add([]byte{0, 0, 9, 3, 0, 2, 1, 1, 4, 0, 0, 5, 7, 0, 0})
	f.Add([]byte{2, 7, 3, 0, 1, 200, 3, 3, 3, 5, 1, 1, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		l := New(Options{MaxChangeLog: 8, MaxRecords: 8})
		const doc = DocKey("file:///f")
		total, rev := 10, Rev(1)
		l.SetTotal(doc, rev, total)
		sessions := []string{"a", "b"}
		arg := func(i *int) int {
			*i++
			if *i < len(ops) {
				return int(ops[*i])
			}
			return 0
		}
		for i := 0; i < len(ops); i++ {
			s := sessions[int(ops[i]>>7)]
			switch ops[i] % 7 {
			case 0, 1: // read or write a range
				a, b := arg(&i), arg(&i)
				r := Range{Start: 1 + a%max(total, 1), End: 1 + a%max(total, 1) + b%4}
				if total == 0 {
					r = Range{Start: 1, End: 0}
				}
				r.End = min(r.End, total)
				if ops[i-2]%7 == 0 {
					l.RecordRead(s, "", doc, rev, r)
				} else if total > 0 {
					l.RecordAuthored(s, "", doc, rev, r)
				}
			case 2, 3: // a change by the user or by a session
				start := 1 + arg(&i)%(total+1)
				old := min(arg(&i)%3, total-start+1)
				nw := arg(&i) % 3
				if old == 0 && nw == 0 {
					nw = 1
				}
				author := ""
				if ops[i-3]%7 == 3 {
					author = s
				}
				total += nw - old
				l.ApplyChange(doc, rev, rev+1, Change{Start: start, Old: old, New: nw}, author, total)
				rev++
			case 4:
				total = arg(&i) % 20
				l.Replace(doc, rev+1, total)
				rev++
			case 5:
				l.ResetSession(s)
			case 6:
				a := arg(&i)
				if total > 0 {
					l.Check(s, doc, []Range{{Start: 1 + a%total, End: total}})
				}
			}
			for _, s := range sessions {
				checkView(t, l.Doc(s, doc), total)
			}
		}
	})
}

func checkView(t *testing.T, v DocView, total int) {
	t.Helper()
	if v.TotalLines != total && v.State != NeverRead {
		t.Fatalf("total %d, want %d: %+v", v.TotalLines, total, v)
	}
	seen := make([]int, total+2)
	for _, list := range [][]Range{v.Read, v.Authored, v.Stale, v.Unread} {
		for _, r := range list {
			if r.Start < 1 || r.End > total || r.Start > r.End {
				t.Fatalf("range %+v outside 1-%d: %+v", r, total, v)
			}
			for i := r.Start; i <= r.End; i++ {
				seen[i]++
			}
		}
	}
	if v.State == NeverRead {
		return
	}
	for i := 1; i <= total; i++ {
		if seen[i] != 1 {
			t.Fatalf("line %d is in %d kinds of range: %+v", i, seen[i], v)
		}
	}
}
