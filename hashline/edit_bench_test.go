package hashline

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sightline-lsp/sightline/textdoc"
)

// benchBatch returns a 200,000-line snapshot and the JSON of 100 edits of
// every type, spread over the whole file, with refs as a read shows them.
func benchBatch(b *testing.B) (*textdoc.Snapshot, []byte) {
	b.Helper()
	snap := textdoc.New(sourceLike(200_000))
	ref := func(line int) string { return fmt.Sprintf("%d:%s", line, Hash(snap.Line(line-1).Content)) }
	var edits []map[string]any
	for i := range 100 {
		line := 1 + i*1999 // spread, never adjacent
		e := map[string]any{"type": allTypes[i%len(allTypes)]}
		switch e["type"] {
		case ReplaceRange, DeleteRange:
			e["start_ref"], e["end_ref"] = ref(line), ref(line+3)
		default:
			e["ref"] = ref(line)
		}
		switch e["type"] {
		case ReplaceLine, ReplaceRange, InsertAfter, InsertBefore:
			e["new_content"] = "\tif err != nil {\n\t\treturn fmt.Errorf(\"edit %d: %w\", err)\n\t}"
		}
		edits = append(edits, e)
	}
	js, err := json.Marshal(edits)
	if err != nil {
		b.Fatal(err)
	}
	return snap, js
}

// resolve decodes the batch and resolves its refs at their own lines (the
// lead's resolver does more; this is the cost floor of the engine's part).
func resolve(b *testing.B, snap *textdoc.Snapshot, js []byte) []Op {
	es, err := DecodeEdits(js)
	if err != nil {
		b.Fatal(err)
	}
	ops := make([]Op, len(es))
	for i, e := range es {
		var at [2]int
		for k, s := range e.Refs() {
			r, err := ParseRef(s)
			if err != nil || Hash(snap.Line(r.Line-1).Content) != r.Hash {
				b.Fatalf("ref %q: %v", s, err)
			}
			at[k] = r.Line
		}
		if len(e.Refs()) == 1 {
			at[1] = at[0]
		}
		if ops[i], err = e.Op(i, at[0], at[1]); err != nil {
			b.Fatal(err)
		}
	}
	return ops
}

// BenchmarkEdit100on200k is the budget (≤ 5 ms): 100 edits decoded,
// resolved, planned and applied to a 200,000-line snapshot as textdoc
// changes. The sub-benchmarks split the cost; render and diff are the extra
// work of a disk write and of the answer.
func BenchmarkEdit100on200k(b *testing.B) {
	snap, js := benchBatch(b)
	opts := Options{Dominant: snap.Dominant()}
	b.Run("total", func(b *testing.B) {
		for b.Loop() {
			ops := resolve(b, snap, js)
			p, err := PlanEdits(snap, ops, opts)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := p.Apply(snap); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Text in, text out: the document built from the file's text, the
	// edits decoded, resolved, planned and applied, and the new text
	// written out, as a CLI edit of a closed file does in memory.
	b.Run("text-in-text-out", func(b *testing.B) {
		text := snap.Text()
		b.SetBytes(int64(len(text)))
		var out []byte
		for b.Loop() {
			s := textdoc.New(text)
			p, err := PlanEdits(s, resolve(b, s, js), Options{Dominant: s.Dominant()})
			if err != nil {
				b.Fatal(err)
			}
			next, _, err := p.Apply(s)
			if err != nil {
				b.Fatal(err)
			}
			out = next.AppendText(out[:0], 0, next.LineCount())
		}
	})
	ops := resolve(b, snap, js)
	b.Run("decode+resolve", func(b *testing.B) {
		for b.Loop() {
			resolve(b, snap, js)
		}
	})
	b.Run("plan", func(b *testing.B) {
		for b.Loop() {
			if _, err := PlanEdits(snap, ops, Options{Dominant: snap.Dominant()}); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, err := PlanEdits(snap, ops, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("changes+apply", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := p.Apply(snap); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("diff", func(b *testing.B) {
		for b.Loop() {
			_ = UnifiedDiff("f.go", snap, p.Splices, 3)
		}
	})
	b.Run("render", func(b *testing.B) {
		b.SetBytes(int64(snap.Len()))
		for b.Loop() {
			_ = Render(snap, "", p.Splices)
		}
	})
}
