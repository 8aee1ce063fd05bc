package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
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
	root := b.TempDir()
	env := engine.SetupTest(b, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(root, "big.go")))
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
	root := b.TempDir()
	env := engine.SetupTest(b, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(root, "big.go")))
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
	env := engine.SetupTest(b, engine.Options{Roots: []string{dir}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(dir, "read.go")))
	env.WS.Open(u, "go", 1, source(2000))
	p := engine.ReadParams{TextDocument: engine.TextDocument{URI: u}}
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

// BenchmarkEdit100On200k: one sightline/edit call with 100 replace_line edits
// spread over a 200,000-line open document, in-process: decode, ref
// resolution, guard, plan, apply to the buffer (target ≤ 5 ms).
func BenchmarkEdit100On200k(b *testing.B) {
	root := b.TempDir()
	ed := &lsptest.BufferEditor{Fast: true}
	env := engine.SetupTest(b, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true, Editor: ed})
	ed.WS = env.WS
	u := string(workspace.FromPath(filepath.Join(root, "big.go")))
	src := source(200000)
	d, _ := env.WS.Open(u, "go", 1, src)
	env.Ledger.RecordRead("default", "", ledger.DocKey(d.Key), d.Rev, ledger.Range{Start: 1, End: 200000})
	lines := strings.Split(src, "\n")
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		edits := make([]map[string]string, 0, 100)
		for i := 0; i < 100; i++ {
			n := i*2000 + 1 + round%2 // alternate lines so each round edits fresh ones
			edits = append(edits, map[string]string{"type": "replace_line", "ref": fmt.Sprintf("%d:%s", n, hashline.Hash(lines[n-1])), "new_content": fmt.Sprintf("\tedited%d := %d", round, i)})
		}
		raw, _ := json.Marshal(edits)
		b.StartTimer()
		res, err := env.Edit(context.Background(), engine.EditParams{TextDocument: engine.TextDocument{URI: u}, Edits: raw})
		if err != nil || !res.OK {
			b.Fatalf("round %d: %v %+v", round, err, res.Outcome)
		}
		b.StopTimer()
		for i, e := range edits {
			n := i*2000 + 1 + round%2
			lines[n-1] = e["new_content"]
		}
		b.StartTimer()
	}
}
