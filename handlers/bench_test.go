package handlers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
)

func source(lines int) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		if i%40 == 0 {
			fmt.Fprintf(&b, "func handler%d(w http.ResponseWriter) {\n", i)
		} else {
			fmt.Fprintf(&b, "\tx%d := compute(%d) // step\n", i, i)
		}
	}
	return b.String()
}

// BenchmarkDidChangeOneLine100k: a keystroke on a 100,000-line open document,
// through the document store and the ledger shift of a session that has read
// it in 1,000 ranges (target ≤ 50 µs).
func BenchmarkDidChangeOneLine100k(b *testing.B) {
	env := handlers.Setup(context.Background(), handlers.Options{Roots: []string{b.TempDir()}, Config: config.Default(), NoPersist: true})
	u := "file:///bench/big.go"
	d, err := env.WS.Open(u, "go", 1, source(100000))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		env.Ledger.RecordRead("default", "", ledger.DocKey(d.Key), d.Rev, ledger.Range{Start: i*100 + 1, End: i*100 + 50})
	}
	v := int32(1)
	ins := textdoc.Range{Start: textdoc.Pos{Line: 50000, Char: 1}, End: textdoc.Pos{Line: 50000, Char: 1}}
	del := textdoc.Range{Start: textdoc.Pos{Line: 50000, Char: 1}, End: textdoc.Pos{Line: 50000, Char: 2}}
	for b.Loop() {
		v++
		r, text := ins, "y"
		if v%2 == 1 {
			r, text = del, ""
		}
		if _, err := env.WS.Change(u, v, []textdoc.Change{{Range: &r, Text: text}}, textdoc.UTF16, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDidChangeNewLine100k: Enter pressed (the line count changes, so the
// ledger shifts every range below).
func BenchmarkDidChangeNewLine100k(b *testing.B) {
	env := handlers.Setup(context.Background(), handlers.Options{Roots: []string{b.TempDir()}, Config: config.Default(), NoPersist: true})
	u := "file:///bench/big.go"
	d, _ := env.WS.Open(u, "go", 1, source(100000))
	for i := 0; i < 1000; i++ {
		env.Ledger.RecordRead("default", "", ledger.DocKey(d.Key), d.Rev, ledger.Range{Start: i*100 + 1, End: i*100 + 50})
	}
	v := int32(1)
	for b.Loop() {
		v++
		r := textdoc.Range{Start: textdoc.Pos{Line: 50000, Char: 0}, End: textdoc.Pos{Line: 50000, Char: 0}}
		text := "\n"
		if v%2 == 1 {
			r = textdoc.Range{Start: textdoc.Pos{Line: 50000, Char: 0}, End: textdoc.Pos{Line: 50001, Char: 0}}
			text = ""
		}
		if _, err := env.WS.Change(u, v, []textdoc.Change{{Range: &r, Text: text}}, textdoc.UTF16, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead2000: the read path in-process (no transport): 2,000 lines,
// annotated, recorded in the ledger.
func BenchmarkRead2000(b *testing.B) {
	dir := b.TempDir()
	env := handlers.Setup(context.Background(), handlers.Options{Roots: []string{dir}, Config: config.Default(), NoPersist: true})
	u := "file:///bench/read.go"
	env.WS.Open(u, "go", 1, source(2000))
	p := handlers.ReadParams{TextDocument: handlers.TextDocument{URI: u}}
	p.Budget = &struct {
		Chars int `json:"chars"`
	}{1 << 20}
	for b.Loop() {
		res, err := env.Read(context.Background(), p)
		if err != nil || !res.OK || res.Range.End != 2000 {
			b.Fatal(err, res.Message)
		}
	}
}
