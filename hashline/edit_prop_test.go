package hashline

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"pgregory.net/rapid"
)

// Line contents: empty lines and duplicates (the "}" trap), tabs, non-ASCII,
// invalid UTF-8.
var contents = []string{"", "", "}", "}", "\tx := 1", "  return nil", "é😀€", "a", "\xff\xfe", "\t\t"}

// genFile draws a file: lines with mixed terminators (each file has its own
// mix, so some are all-CRLF and some all-CR), maybe a mark, maybe no final
// newline.
func genFile(t *rapid.T) (text string, bom bool) {
	n := rapid.IntRange(0, 40).Draw(t, "lines")
	if rapid.IntRange(0, 9).Draw(t, "big") == 0 {
		n = rapid.IntRange(40, 400).Draw(t, "manyLines")
	}
	terms := rapid.SliceOfN(rapid.SampledFrom([]string{"\n", "\r\n", "\r"}), 1, 3).Draw(t, "termMix")
	var b strings.Builder
	bom = rapid.IntRange(0, 4).Draw(t, "bom") == 0
	if bom {
		b.WriteString("\uFEFF")
	}
	for range n {
		b.WriteString(rapid.SampledFrom(contents).Draw(t, "content"))
		b.WriteString(rapid.SampledFrom(terms).Draw(t, "term"))
	}
	if n > 0 && rapid.Bool().Draw(t, "noFinalNewline") {
		b.WriteString(rapid.SampledFrom(contents[2:]).Draw(t, "tail")) // non-empty: a last line without terminator
	}
	return b.String(), bom
}

var allTypes = []string{ReplaceLine, ReplaceRange, InsertAfter, InsertBefore, DeleteLine, DeleteRange}

// genOp draws an op on a document of n >= 1 lines.
func genOp(t *rapid.T, n int) Op {
	typ := rapid.SampledFrom(allTypes).Draw(t, "type")
	start := rapid.IntRange(1, n).Draw(t, "start")
	end := start
	if typ == ReplaceRange || typ == DeleteRange {
		end = rapid.IntRange(start, min(n, start+rapid.IntRange(0, 6).Draw(t, "span"))).Draw(t, "end")
	}
	o := Op{Type: typ, Start: start, End: end}
	if typ != DeleteLine && typ != DeleteRange {
		o.Content = rapid.SliceOfN(rapid.SampledFrom(contents), 1, 4).Draw(t, "newContent")
	}
	return o
}

// genValidOps draws a batch without overlaps, in random order.
func genValidOps(t *rapid.T, n int) []Op {
	var ops []Op
	for range rapid.IntRange(1, 12).Draw(t, "tries") {
		o := genOp(t, n)
		if !refOverlap(append(ops[:len(ops):len(ops)], o)) {
			ops = append(ops, o)
		}
	}
	perm := rapid.Permutation(ops).Draw(t, "order")
	for i := range perm {
		perm[i].Index = i
	}
	return perm
}

// TestPlanProperty: random files × random valid batches give the reference
// model's text, through Render and through Changes applied to a snapshot, and
// all the plan's invariants hold (checkPlan).
func TestPlanProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text, bom := genFile(t)
		snap := textdoc.New(text)
		if snap.LineCount() == 0 {
			return
		}
		ops := genValidOps(t, snap.LineCount())
		opts := Options{Dominant: snap.Dominant(), BOM: bom}
		p, err := PlanEdits(snap, ops, opts)
		if err != nil {
			t.Fatalf("valid batch refused: %v", err)
		}
		if err := checkPlan(text, opts, ops, p); err != nil {
			t.Fatal(err)
		}
		// The diff names exactly the changed lines.
		diff := UnifiedDiff("f", snap, p.Splices, rapid.IntRange(0, 4).Draw(t, "context"))
		minus, plus := 0, 0
		for _, l := range strings.Split(diff, "\n")[2:] {
			switch {
			case strings.HasPrefix(l, "-"):
				minus++
			case strings.HasPrefix(l, "+"):
				plus++
			}
		}
		wantMinus, wantPlus := 0, 0
		for _, s := range p.Splices {
			wantMinus += s.Old
			wantPlus += len(s.New)
		}
		if minus != wantMinus || plus != wantPlus {
			t.Fatalf("diff has -%d +%d lines, splices -%d +%d:\n%s", minus, plus, wantMinus, wantPlus, diff)
		}
	})
}

// TestOverlapProperty: any batch is refused as overlap exactly when two ops
// overlap by the pairwise rule, and a refused batch produces nothing.
func TestOverlapProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(t, "n")
		var b strings.Builder
		for i := range n {
			b.WriteString(contents[i%len(contents)] + "\n")
		}
		src := TextSource(b.String())
		ops := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Op { return genOp(t, n) }), 1, 6).Draw(t, "ops")
		for i := range ops {
			ops[i].Index = i
		}
		p, err := PlanEdits(src, ops, Options{})
		if want := refOverlap(ops); want != (result.KindOf(err) == result.Overlap) {
			t.Fatalf("overlap = %v, PlanEdits err = %v", want, err)
		}
		if err != nil && !reflect.DeepEqual(p, Plan{}) {
			t.Fatalf("refused batch produced %+v", p)
		}
		if err == nil {
			if err := checkPlan(b.String(), Options{}, ops, p); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestEditsEndToEnd: the model's path. Edits written as JSON with refs taken
// from an annotated read decode, resolve (by line and hash) and plan to the
// reference model's text.
func TestEditsEndToEnd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text, bom := genFile(t)
		snap := textdoc.New(text)
		n := snap.LineCount()
		if n == 0 {
			return
		}
		// What the model saw: the annotated read, mark left out.
		shown := make([]string, n)
		for i := range n {
			c := snap.Line(i).Content
			if bom && i == 0 {
				_, c = StripBOM(c)
			}
			shown[i] = string(AppendLine(nil, i+1, c))
		}
		ref := func(line int) string {
			r := shown[line-1]
			if rapid.Bool().Draw(t, "withTail") {
				return r // the whole annotated line: the tail is ignored
			}
			return r[:strings.IndexByte(r, '|')]
		}
		ops := genValidOps(t, n)
		var raw []map[string]any
		for _, o := range ops {
			m := map[string]any{"type": o.Type}
			if o.Type == ReplaceRange || o.Type == DeleteRange {
				m["start_ref"], m["end_ref"] = ref(o.Start), ref(o.End)
			} else {
				m["ref"] = ref(o.Start)
			}
			if o.Content != nil {
				sep := rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "sep")
				nc := strings.Join(o.Content, sep)
				if o.Content[len(o.Content)-1] == "" || rapid.Bool().Draw(t, "trailingNewline") {
					nc += sep
				}
				m["new_content"] = nc
			}
			raw = append(raw, m)
		}
		js, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		edits, err := DecodeEdits(js)
		if err != nil {
			t.Fatalf("DecodeEdits(%s): %v", js, err)
		}
		var got []Op
		for i, e := range edits {
			var resolved []int
			for _, s := range e.Refs() {
				r, err := ParseRef(s)
				if err != nil {
					t.Fatal(err)
				}
				c := snap.Line(r.Line - 1).Content
				if bom && r.Line == 1 {
					_, c = StripBOM(c)
				}
				if Hash(c) != r.Hash {
					t.Fatalf("ref %s does not match line %q", s, c)
				}
				resolved = append(resolved, r.Line)
			}
			o, err := e.Op(i, resolved[0], resolved[len(resolved)-1])
			if err != nil {
				t.Fatal(err)
			}
			want := ops[i]
			if want.Content != nil {
				// JSON carries invalid UTF-8 as U+FFFD.
				want.Content = make([]string, len(ops[i].Content))
				for j, c := range ops[i].Content {
					b, _ := json.Marshal(c)
					_ = json.Unmarshal(b, &want.Content[j])
				}
			}
			if !reflect.DeepEqual(o, want) {
				t.Fatalf("Op = %+v, want %+v", o, want)
			}
			got = append(got, o)
		}
		opts := Options{Dominant: snap.Dominant(), BOM: bom}
		p, err := PlanEdits(snap, got, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkPlan(text, opts, got, p); err != nil {
			t.Fatal(err)
		}
		// The window's fresh refs name the new lines by the same rules.
		next, _, err := p.Apply(snap)
		if err != nil {
			t.Fatal(err)
		}
		// The byte splices (what the history keeps) make the same text.
		bs, ok := p.ByteSplices(snap)
		if !ok {
			t.Fatal("ByteSplices: a change does not map")
		}
		var b strings.Builder
		end := 0
		for _, x := range bs {
			b.WriteString(text[end:x.Off])
			b.WriteString(x.Ins)
			end = x.Off + x.Del
		}
		if b.WriteString(text[end:]); b.String() != next.Text() {
			t.Fatalf("byte splices give %q, Apply %q", b.String(), next.Text())
		}
		for _, w := range p.Window {
			ann := AnnotateRange(nil, next, w.Start, w.End, bom)
			for k, l := range strings.SplitAfter(strings.TrimSuffix(string(ann), "\n"), "\n") {
				i := w.Start + k
				c := next.Line(i - 1).Content
				if bom && i == 1 {
					_, c = StripBOM(c)
				}
				if want := string(AppendLine(nil, i, c)) + "\n"; strings.TrimSuffix(l, "\n")+"\n" != want {
					t.Fatalf("window line %d = %q, want %q", i, l, want)
				}
			}
		}
	})
}

// TestAnnotateStripIdentity: stripping the prefixes off an annotated text
// gives back its lines' contents, whatever the terminators.
func TestAnnotateStripIdentity(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text, _ := genFile(t)
		first := rapid.IntRange(1, 100000).Draw(t, "first")
		ann := string(Annotate(nil, text, first))
		want := lines.Split(text)
		got := strings.Split(ann, "\n")
		if got[len(got)-1] != "" {
			t.Fatalf("annotated text does not end in a newline")
		}
		got = got[:len(got)-1]
		if len(got) != len(want) {
			t.Fatalf("%d annotated lines, want %d", len(got), len(want))
		}
		for i, l := range got {
			if !HasPrefix(l) {
				t.Fatalf("line %q lacks a prefix", l)
			}
			pre, content, _ := strings.Cut(l, "|")
			r, err := ParseRef(pre)
			if err != nil || r.Line != first+i || r.Hash != Hash(want[i].Content) {
				t.Fatalf("prefix %q: %+v %v", pre, r, err)
			}
			if content != want[i].Content {
				t.Fatalf("line %d: %q, want %q", i, content, want[i].Content)
			}
		}
	})
}
