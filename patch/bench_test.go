package patch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/textdoc"
)

// BenchmarkApply1000Hunks: a 1,000-hunk unified diff (3 lines of context,
// one line changed each) applied to a 200,000-line file in process: parse,
// match every hunk exactly, apply the plan. Target ≤ 20 ms
// (docs/performance.md).
func BenchmarkApply1000Hunks(b *testing.B) { benchApply1000(b, false) }

// BenchmarkApply1000HunksV4A: the same hunks as V4A chunks, placed by the
// ordered seek.
func BenchmarkApply1000HunksV4A(b *testing.B) { benchApply1000(b, true) }

func benchApply1000(b *testing.B, v4a bool) {
	const n, hunks = 200_000, 1000
	var src strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&src, "\tx%d := compute(%d) // line %d\n", i, i*7, i)
	}
	text := src.String()
	var p strings.Builder
	p.WriteString("--- a/big.go\n+++ b/big.go\n")
	if v4a {
		p.Reset()
		p.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	}
	step := n / hunks
	for h := range hunks {
		c := h*step + step/2 // the changed line, 1-based
		if v4a {
			p.WriteString("@@\n")
		} else {
			fmt.Fprintf(&p, "@@ -%d,7 +%d,7 @@\n", c-3, c-3)
		}
		for l := c - 3; l < c; l++ {
			fmt.Fprintf(&p, " \tx%d := compute(%d) // line %d\n", l, l*7, l)
		}
		fmt.Fprintf(&p, "-\tx%d := compute(%d) // line %d\n", c, c*7, c)
		fmt.Fprintf(&p, "+\tx%d := compute(%d) // line %d changed\n", c, c*7, c)
		for l := c + 1; l <= c+3; l++ {
			fmt.Fprintf(&p, " \tx%d := compute(%d) // line %d\n", l, l*7, l)
		}
	}
	if v4a {
		p.WriteString("*** End Patch\n")
	}
	diff := p.String()
	s := textdoc.New(text)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		files, err := patch.Parse(diff)
		if err != nil || len(files) != 1 || len(files[0].Hunks) != hunks {
			b.Fatalf("parse: %v", err)
		}
		plan, _, fail := patch.Plan(s, files[0], s.Dominant())
		if fail != nil {
			b.Fatal(fail.Err)
		}
		next, _, err := plan.Apply(s)
		if err != nil || next.LineCount() != n {
			b.Fatal(err)
		}
	}
}
