package statedb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/linediff"
	"github.com/sightline-lsp/sightline/textdoc"
)

// A 100,000-line file: what a flush pays to hash its lines, and what a
// restore pays to diff it after one changed line.
func benchDoc(n int, changed int) *textdoc.Snapshot {
	var b strings.Builder
	for i := range n {
		if i == changed {
			b.WriteString("changed\n")
			continue
		}
		fmt.Fprintf(&b, "\tx := compute(%d, y) // a line of typical length\n", i)
	}
	return textdoc.New(b.String())
}

func BenchmarkLineHashes(b *testing.B) {
	s := benchDoc(100_000, -1)
	b.SetBytes(int64(s.Len()))
	for b.Loop() {
		lineHashes(s)
	}
}

func BenchmarkRestoreDiff(b *testing.B) {
	old, cur := benchDoc(100_000, -1), benchDoc(100_000, 50_000)
	blob := lineHashes(old)
	for b.Loop() {
		a, _ := unpackHashes(blob, old.LineCount())
		changes(linediff.Diff(a, unpackHashesOf(cur)))
	}
}
