package statedb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
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

// What a process's first sight of a document costs when 30 sessions kept
// reads of it (30 reads each): restoring every session's entries (a
// long-lived process), or only those of the session a process of one call
// serves (OnlyServed).
func BenchmarkRestoreAmong30Sessions(b *testing.B) {
	root, state := b.TempDir(), b.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte(numbered(20_000, same)), 0o644)
	p := start(b, root, state)
	k, _ := p.ws.Resolve("f.txt")
	d, err := p.get(k)
	if err != nil {
		b.Fatal(err)
	}
	for s := range 30 {
		for i := range 30 {
			p.l.RecordRead(fmt.Sprintf("s%d", s), "", ledger.DocKey(k), d.Rev, ledger.Range{Start: 1 + i*600, End: 10 + i*600})
		}
	}
	if err := p.sync.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, only := range []bool{false, true} {
		name := "every session"
		if only {
			name = "the one served"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				q := start(b, root, state)
				if only {
					q.sync.OnlyServed()
					q.sync.Serve("s7")
				}
				b.StartTimer()
				if _, err := q.get(k); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if n := len(q.l.Sessions(ledger.DocKey(k))); n != 30 && !only || n != 1 && only {
					b.Fatalf("restored %d sessions", n)
				}
				q.sync.db.Close()
				b.StartTimer()
			}
		})
	}
}
