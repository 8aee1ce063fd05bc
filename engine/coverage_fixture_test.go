package engine

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
)

// coverageCase is one step of the coverage changes an editor plugin gets:
// it holds prev (sent whole), receives sent (nil: nothing is sent), and
// must then hold cur.
type coverageCase struct {
	Name string          `json:"name"`
	Prev CoverageParams  `json:"prev"`
	Cur  CoverageParams  `json:"cur"`
	Sent *CoverageParams `json:"sent"`
}

// coverageFixture is where the cases live: the editor plugins' tests (VS
// Code's unit tests, Neovim's plugin test) apply them with their own code.
const coverageFixture = "../testdata/coverage/changes.json"

// TestCoverageChangeFixture: the changes the server sends are the ones the
// committed fixture holds (regenerate with SIGHTLINE_UPDATE_FIXTURES=1),
// and applying each to the coverage before, as the protocol says a client
// does, gives the coverage after.
func TestCoverageChangeFixture(t *testing.T) {
	cases := coverageCases()
	for _, c := range cases {
		got := c.Prev
		if c.Sent != nil {
			got = applyCoverageChange(c.Prev, *c.Sent)
		}
		if !reflect.DeepEqual(got, c.Cur) {
			t.Fatalf("%s: applying the change gives\n%+v\nwant\n%+v", c.Name, got, c.Cur)
		}
	}
	data, err := json.MarshalIndent(cases, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if os.Getenv("SIGHTLINE_UPDATE_FIXTURES") != "" {
		if err := os.WriteFile(coverageFixture, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(filepath.FromSlash(coverageFixture))
	if err != nil {
		t.Fatalf("%v (regenerate with SIGHTLINE_UPDATE_FIXTURES=1)", err)
	}
	if !bytes.Equal(bytes.ReplaceAll(have, []byte("\r\n"), []byte("\n")), data) {
		t.Fatal("testdata/coverage/changes.json is not what the server sends now: regenerate it with SIGHTLINE_UPDATE_FIXTURES=1 and check the editor plugins' tests")
	}
}

// applyCoverageChange is what docs/protocol.md tells a client to do with a
// change: the lines in changed take the change's ranges, the others keep
// theirs.
func applyCoverageChange(prev, sent CoverageParams) CoverageParams {
	if sent.Changed == nil {
		return sent
	}
	w := *sent.Changed
	merge := func(old, in []ledger.Range) []ledger.Range {
		out := []ledger.Range{}
		for _, r := range old {
			if r.End < w.Start || r.Start > w.End {
				out = append(out, r)
				continue
			}
			if r.Start < w.Start {
				out = append(out, ledger.Range{Start: r.Start, End: w.Start - 1})
			}
			if r.End > w.End {
				out = append(out, ledger.Range{Start: w.End + 1, End: r.End})
			}
		}
		out = append(out, in...)
		slices.SortFunc(out, func(a, b ledger.Range) int { return a.Start - b.Start })
		joined := out[:0]
		for _, r := range out {
			if n := len(joined); n > 0 && r.Start <= joined[n-1].End+1 {
				joined[n-1].End = max(joined[n-1].End, r.End)
				continue
			}
			joined = append(joined, r)
		}
		return joined
	}
	c := sent
	c.Changed = nil
	c.Read, c.Authored, c.Stale = merge(prev.Read, sent.Read), merge(prev.Authored, sent.Authored), merge(prev.Stale, sent.Stale)
	return c
}

// coverageCases are seeded random coverages of one document and a change
// of each (lines read, written, going stale, the document growing), plus
// the cases that are sent whole.
func coverageCases() []coverageCase {
	r := rand.New(rand.NewPCG(7, 11))
	states := []ledger.State{ledger.NeverRead, ledger.PartialRead, ledger.FullyRead, ledger.Stale, ledger.ModelAuthored}
	gen := func(lines []byte) CoverageParams {
		c := CoverageParams{URI: "file:///w/a.go", Session: "s", TotalLines: len(lines), Read: []ledger.Range{}, Authored: []ledger.Range{}, Stale: []ledger.Range{}}
		for i := 0; i < len(lines); {
			j := i
			for j < len(lines) && lines[j] == lines[i] {
				j++
			}
			rg := ledger.Range{Start: i + 1, End: j}
			switch lines[i] {
			case 'r':
				c.Read = append(c.Read, rg)
			case 'a':
				c.Authored = append(c.Authored, rg)
			case 's':
				c.Stale = append(c.Stale, rg)
			}
			i = j
		}
		c.State = states[r.IntN(len(states))]
		return c
	}
	kinds := []byte("..ras")
	var cases []coverageCase
	for i := range 60 {
		n := 1 + r.IntN(40)
		prev := make([]byte, n)
		for j := range prev {
			prev[j] = kinds[r.IntN(len(kinds))]
		}
		cur := slices.Clone(prev)
		switch i % 4 {
		case 0: // a run of lines changes kind
			a := r.IntN(n)
			b := min(n, a+1+r.IntN(6))
			k := kinds[r.IntN(len(kinds))]
			for j := a; j < b; j++ {
				cur[j] = k
			}
		case 1: // a few lines here and there
			for range 1 + r.IntN(3) {
				cur[r.IntN(n)] = kinds[r.IntN(len(kinds))]
			}
		case 2: // the document grows at its end
			for range 1 + r.IntN(5) {
				cur = append(cur, kinds[r.IntN(len(kinds))])
			}
		case 3: // nothing changes but perhaps the state or the version
		}
		p, c := gen(prev), gen(cur)
		if i%3 == 0 {
			v, w := int32(r.IntN(5)), int32(r.IntN(5))
			p.Version, c.Version = &v, &w
		}
		cases = append(cases, coverageCase{Name: "random", Prev: p, Cur: c})
	}
	other := gen([]byte("rr..aa"))
	other.Session = "t"
	cases = append(cases, coverageCase{Name: "another session", Prev: gen([]byte("..rrr")), Cur: other})
	for i := range cases {
		if sent, ok := CoverageChange(cases[i].Prev, cases[i].Cur); ok {
			cases[i].Sent = &sent
		}
	}
	return cases
}
