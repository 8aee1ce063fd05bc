package hashline

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
)

// FuzzDecodeEdits: never panics; a refusal is an agent-facing kind and no
// edits; a success is a non-empty batch of well-formed edits that survives a
// JSON round trip.
func FuzzDecodeEdits(f *testing.F) {
	for _, s := range []string{
		`[{"type":"replace_line","ref":"2:bR7p","new_content":"  return 'hello';"}]`,
		`[{"type":"insert_after","ref":"3:0eXm|}","new_content":"\nfunction goodbye() {\n}"},{"type":"delete_range","start_ref":"1:a3Kf","end_ref":"3:0eXm"}]`,
		`{"type":"delete_line","ref":"4:abcd","note":1}`,
		`"[{\"type\":\"insert_before\",\"ref\":\"1:0000\",\"new_content\":\"\"}]"`,
		`[{"type":"replace_range","start_ref":"1:abcd","end_ref":"x","new_content":null}]`,
		`[]`, `null`, `[1,2]`, `[{"type":null}]`, `"\u0000"`, `[{"type":"delete_line","ref":"99999999999999999999:abcd"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		es, err := DecodeEdits(raw)
		if err != nil {
			if es != nil {
				t.Fatalf("edits with an error")
			}
			if k := result.KindOf(err); k != result.InvalidEdit && k != result.InvalidRef {
				t.Fatalf("kind %q: %v", k, err)
			}
			return
		}
		if len(es) == 0 {
			t.Fatal("empty batch accepted")
		}
		for i, e := range es {
			sp, ok := specOf(e.Type)
			if !ok || sp.content != (e.NewContent != nil) {
				t.Fatalf("edit %d malformed: %+v", i, e)
			}
			for _, r := range e.Refs() {
				if _, err := ParseRef(r); err != nil {
					t.Fatalf("edit %d: ref %q: %v", i, r, err)
				}
			}
		}
		js, err := json.Marshal(es)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeEdits(js)
		if err != nil || !reflect.DeepEqual(again, es) {
			t.Fatalf("round trip: %+v, %v; was %+v", again, err, es)
		}
	})
}

// FuzzPlanEdits: any text and any batch (4 bytes an op: type, start, span,
// content). Never panics; a refusal produces nothing; a plan matches the
// reference model (checkPlan) and leaves every untouched line byte-identical.
func FuzzPlanEdits(f *testing.F) {
	f.Add("a\nb\nc\n", []byte{0, 1, 0, 1}, false)
	f.Add("a\r\nb\r\nc", []byte{2, 2, 0, 3, 5, 0, 1, 0}, false)
	f.Add("\uFEFFa\rb\n\nc", []byte{4, 1, 0, 0, 3, 2, 0, 2}, true)
	f.Add("x\ry\rz\n\n", []byte{1, 0, 3, 7, 3, 3, 0, 0}, false)
	f.Add("\t\xff\n€", []byte{2, 1, 0, 0, 2, 1, 0, 0}, false)
	f.Fuzz(func(t *testing.T, text string, prog []byte, bom bool) {
		snap := textdoc.New(text)
		n := snap.LineCount()
		var ops []Op
		for i := 0; i+4 <= len(prog) && len(ops) < 16; i += 4 {
			typ := allTypes[int(prog[i])%len(allTypes)]
			start := int(prog[i+1]) % (n + 2) // sometimes out of range
			end := start
			if typ == ReplaceRange || typ == DeleteRange {
				end = start + int(prog[i+2])%8
			}
			o := Op{Index: len(ops), Type: typ, Start: start, End: end}
			if typ != DeleteLine && typ != DeleteRange {
				c := int(prog[i+3])
				for j := range 1 + c%3 {
					o.Content = append(o.Content, contents[(c/3+j)%len(contents)])
				}
			}
			ops = append(ops, o)
		}
		opts := Options{Dominant: snap.Dominant(), BOM: bom}
		p, err := PlanEdits(snap, ops, opts)
		if err != nil {
			if k := result.KindOf(err); k != result.Overlap && k != result.InvalidEdit {
				t.Fatalf("kind %q: %v", k, err)
			}
			if !reflect.DeepEqual(p, Plan{}) {
				t.Fatalf("refused batch produced %+v", p)
			}
			return
		}
		if err := checkPlan(text, opts, ops, p); err != nil {
			t.Fatal(err)
		}
		old, cur := lines.Split(text), lines.Split(Render(snap, "", p.Splices))
		for i, l := range old {
			if k, ok := NewLine(i, p.Splices); ok && cur[k] != l {
				t.Fatalf("untouched line %d %q became %q", i, l, cur[k])
			}
		}
		_ = UnifiedDiff("f", snap, p.Splices, 3)
	})
}
