package hashline

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
)

func op(typ string, start, end int, content ...string) Op {
	o := Op{Type: typ, Start: start, End: end}
	if typ != DeleteLine && typ != DeleteRange {
		o.Content = content
	}
	return o
}

func indexed(ops ...Op) []Op {
	for i := range ops {
		ops[i].Index = i
	}
	return ops
}

func TestPlanEdits(t *testing.T) {
	const bom = "\uFEFF"
	cases := []struct {
		name string
		text string
		bom  bool
		ops  []Op
		want string
	}{
		// Each op, LF.
		{"replace_line", "a\nb\nc\n", false, indexed(op(ReplaceLine, 2, 2, "B")), "a\nB\nc\n"},
		{"replace_range grows", "a\nb\nc\n", false, indexed(op(ReplaceRange, 1, 2, "x", "y", "z")), "x\ny\nz\nc\n"},
		{"replace_range shrinks", "a\nb\nc\nd\n", false, indexed(op(ReplaceRange, 2, 4, "m")), "a\nm\n"},
		{"insert_after", "a\nb\n", false, indexed(op(InsertAfter, 1, 1, "x")), "a\nx\nb\n"},
		{"insert_before", "a\nb\n", false, indexed(op(InsertBefore, 1, 1, "x", "y")), "x\ny\na\nb\n"},
		{"delete_line", "a\nb\nc\n", false, indexed(op(DeleteLine, 2, 2)), "a\nc\n"},
		{"delete_range", "a\nb\nc\nd\n", false, indexed(op(DeleteRange, 2, 3)), "a\nd\n"},
		{"replace with empty line", "a\nb\nc\n", false, indexed(op(ReplaceLine, 2, 2, "")), "a\n\nc\n"},

		// Terminators: untouched lines keep theirs, new lines take the
		// dominant one, the last replacement line the replaced line's.
		{"CRLF replace", "a\r\nb\r\nc\r\n", false, indexed(op(ReplaceLine, 2, 2, "B", "B2")), "a\r\nB\r\nB2\r\nc\r\n"},
		{"CRLF insert", "a\r\nb\r\n", false, indexed(op(InsertAfter, 1, 1, "x")), "a\r\nx\r\nb\r\n"},
		{"CR file", "a\rb\rc\r", false, indexed(op(InsertBefore, 2, 2, "x"), op(ReplaceLine, 3, 3, "C")), "a\rx\rb\rC\r"},
		{"mixed: last new line takes the replaced terminator", "a\nb\r\nc\rd\n", false,
			indexed(op(ReplaceLine, 2, 2, "X", "Y")), "a\nX\nY\r\nc\rd\n"},
		{"mixed: untouched bytes kept", "a\r\nb\nc\r\n\td\re\n", false,
			indexed(op(DeleteLine, 2, 2), op(InsertAfter, 4, 4, "n")), "a\r\nc\r\n\td\rn\ne\n"},
		{"tabs and non-ASCII", "\tfé😀\n\t\tb\n€\n", false, indexed(op(ReplaceLine, 2, 2, "\t\tΩ")), "\tfé😀\n\t\tΩ\n€\n"},

		// Final newline.
		{"replace last, no final newline", "a\nb", false, indexed(op(ReplaceLine, 2, 2, "c", "d")), "a\nc\nd"},
		{"replace last, final newline", "a\nb\n", false, indexed(op(ReplaceLine, 2, 2, "c")), "a\nc\n"},
		{"replace last with empty, no final newline", "a\nb", false, indexed(op(ReplaceLine, 2, 2, "")), "a\n\n"},
		{"insert after last, no final newline", "a\nb", false, indexed(op(InsertAfter, 2, 2, "x", "y")), "a\nb\nx\ny"},
		{"insert after last, no final newline, CRLF", "a\r\nb", false, indexed(op(InsertAfter, 2, 2, "x")), "a\r\nb\r\nx"},
		{"insert after last, final newline", "a\nb\n", false, indexed(op(InsertAfter, 2, 2, "x")), "a\nb\nx\n"},
		{"insert empty after last, no final newline", "a\nb", false, indexed(op(InsertAfter, 2, 2, "")), "a\nb\n\n"},
		{"delete last, no final newline", "a\nb", false, indexed(op(DeleteLine, 2, 2)), "a"},
		{"delete last lines, no final newline, CRLF", "a\r\nb\r\nc", false, indexed(op(DeleteRange, 2, 3)), "a"},
		{"delete last, final newline", "a\r\nb\n", false, indexed(op(DeleteLine, 2, 2)), "a\r\n"},
		{"delete last, new last empty keeps its newline", "a\n\nb", false, indexed(op(DeleteLine, 3, 3)), "a\n\n"},
		{"delete all", "a\nb", false, indexed(op(DeleteRange, 1, 2)), ""},
		{"single line, no newline", "a", false, indexed(op(ReplaceLine, 1, 1, "b")), "b"},
		{"single line to empty", "a", false, indexed(op(ReplaceLine, 1, 1, "")), "\n"},
		{"replace before deleting the last", "a\nb\nc", false,
			indexed(op(ReplaceLine, 1, 1, "A"), op(DeleteLine, 3, 3)), "A\nb"},

		// BOM (a Source that kept it).
		{"BOM replace line 1", bom + "a\nb\n", true, indexed(op(ReplaceLine, 1, 1, "X")), bom + "X\nb\n"},
		{"BOM insert before line 1", bom + "a\nb\n", true, indexed(op(InsertBefore, 1, 1, "x")), bom + "x\na\nb\n"},
		{"BOM delete line 1", bom + "a\nb\n", true, indexed(op(DeleteLine, 1, 1)), bom + "b\n"},
		{"BOM delete all", bom + "a\nb\n", true, indexed(op(DeleteRange, 1, 2)), ""},
		{"BOM untouched", bom + "a\nb\n", true, indexed(op(ReplaceLine, 2, 2, "B")), bom + "a\nB\n"},
		{"BOM insert after the only line", bom + "a", true, indexed(op(InsertAfter, 1, 1, "x")), bom + "a\nx"},
		{"BOM delete first of two, no final newline", bom + "a\nb", true, indexed(op(DeleteLine, 1, 1)), bom + "b"},
		{"BOM off: a leading U+FEFF is content", bom + "a\nb\n", false, indexed(op(ReplaceLine, 1, 1, "X")), "X\nb\n"},

		// Several ops, each in original coordinates, adjacent ones merged.
		{"bottom to top", "1\n2\n3\n4\n5\n6\n", false,
			indexed(op(DeleteLine, 2, 2), op(InsertAfter, 3, 3, "x"), op(ReplaceRange, 5, 6, "y")), "1\n3\nx\n4\ny\n"},
		{"adjacent ops", "1\n2\n3\n4\n", false,
			indexed(op(InsertAfter, 1, 1, "i"), op(ReplaceLine, 2, 2, "r"), op(DeleteLine, 3, 3), op(InsertBefore, 4, 4, "j")),
			"1\ni\nr\nj\n4\n"},
		{"replace then insert_before the next", "1\n2\n3\n", false,
			indexed(op(ReplaceLine, 1, 1, "r"), op(InsertBefore, 2, 2, "i")), "r\ni\n2\n3\n"},

		// A bare CR then an empty LF line would read as one CRLF.
		{"insert empty after a CR line", "a\rb\nc\n", false, indexed(op(InsertAfter, 1, 1, "")), "a\r\r\nb\nc\n"},
		{"delete between a CR line and an empty LF line", "a\rb\n\nc\n", false, indexed(op(DeleteLine, 2, 2)), "a\r\r\nc\n"},
		{"new CR line before an empty LF line", "a\rb\rc\rz\n\n", false, indexed(op(InsertBefore, 5, 5, "N")), "a\rb\rc\rz\nN\r\n\n"},
		{"CR new lines, empty last replacement line takes LF", "a\rb\rc\nd\r", false,
			indexed(op(ReplaceLine, 3, 3, "x", "")), "a\rb\rx\r\r\nd\r"},
		{"CR new lines without a join", "a\rb\rc\r\n", false, indexed(op(ReplaceLine, 1, 1, "x", "", "y")), "x\r\ry\rb\rc\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snap := textdoc.New(c.text)
			opts := Options{Dominant: snap.Dominant(), BOM: c.bom}
			p, err := PlanEdits(snap, c.ops, opts)
			if err != nil {
				t.Fatalf("PlanEdits: %v", err)
			}
			if got := Render(snap, "", p.Splices); got != c.want {
				t.Errorf("Render = %q, want %q", got, c.want)
			}
			if err := checkPlan(c.text, opts, c.ops, p); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestPlanDetails(t *testing.T) {
	text := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n"
	snap := textdoc.New(text)
	ops := indexed(op(ReplaceLine, 3, 3, "a", "b"), op(DeleteRange, 5, 6), op(InsertAfter, 18, 18, "x"))
	p, err := PlanEdits(snap, ops, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []LineRange{{3, 3}, {5, 6}, {18, 18}}; !slices.Equal(p.Targets, want) {
		t.Errorf("Targets = %v, want %v", p.Targets, want)
	}
	// New text: 1 2 a b 4 7 ... 18 x 19 20 (21 - 2 + 1 = 20 lines).
	if p.NewLines != 20 || p.OldLines != 20 {
		t.Errorf("lines %d -> %d", p.OldLines, p.NewLines)
	}
	if want := []LineRange{{3, 4}, {18, 18}}; !slices.Equal(p.Written, want) {
		t.Errorf("Written = %v, want %v", p.Written, want)
	}
	// a,b at new 3-4 (window 1-9); the deletion at new 6 (1-10); x at 18
	// (13-20).
	if want := []LineRange{{1, 10}, {13, 20}}; !slices.Equal(p.Window, want) {
		t.Errorf("Window = %v, want %v", p.Window, want)
	}
	for _, c := range []struct{ old, new int }{{0, 0}, {1, 1}, {3, 4}, {6, 5}, {17, 16}, {18, 18}, {19, 19}} {
		if got, ok := NewLine(c.old, p.Splices); !ok || got != c.new {
			t.Errorf("NewLine(%d) = %d,%v, want %d", c.old, got, ok, c.new)
		}
	}
	for _, old := range []int{2, 4, 5} {
		if _, ok := NewLine(old, p.Splices); ok {
			t.Errorf("NewLine(%d) survived", old)
		}
	}
	// Terminator-only rewrites are splices but not written.
	q, err := PlanEdits(TextSource("a\nb"), indexed(op(InsertAfter, 2, 2, "c")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []LineRange{{3, 3}}; !slices.Equal(q.Written, want) {
		t.Errorf("Written = %v, want %v", q.Written, want)
	}
	if _, ok := NewLine(1, q.Splices); ok {
		t.Errorf("the old last line that gained a newline is reported untouched")
	}
	// A bad dominant terminator is a programming error, not a refusal.
	if _, err := PlanEdits(snap, ops, Options{Dominant: "\t"}); err == nil || result.KindOf(err) != "" {
		t.Errorf("bad Dominant: %v", err)
	}
}

func TestPlanOverlap(t *testing.T) {
	src := TextSource("1\n2\n3\n4\n5\n6\n7\n8\n")
	refused := []struct {
		name string
		ops  []Op
		msg  string
	}{
		{"ranges", indexed(op(ReplaceRange, 2, 4, "x"), op(DeleteLine, 4, 4)),
			"edits[0] (replace_range, lines 2-4) and edits[1] (delete_line, line 4) both target line 4"},
		{"same line", indexed(op(ReplaceLine, 3, 3, "x"), op(ReplaceLine, 3, 3, "y")), "both target line 3"},
		{"nested ranges", indexed(op(DeleteRange, 1, 8), op(ReplaceRange, 3, 5, "y")), "both target lines 3-5"},
		{"insert anchored on a replaced line", indexed(op(ReplaceRange, 2, 4, "x"), op(InsertAfter, 3, 3, "y")),
			"edits[0] (replace_range, lines 2-4) and edits[1] (insert_after line 3) both target line 3"},
		{"insert anchored on a deleted line", indexed(op(InsertBefore, 5, 5, "y"), op(DeleteLine, 5, 5)), "both target line 5"},
		{"two inserts after one line", indexed(op(InsertAfter, 3, 3, "x"), op(InsertAfter, 3, 3, "y")), "both target line 3"},
		{"insert before and after one line", indexed(op(InsertAfter, 3, 3, "x"), op(InsertBefore, 3, 3, "y")), "both target line 3"},
		{"one gap from both sides", indexed(op(ReplaceLine, 1, 1, "z"), op(InsertBefore, 4, 4, "y"), op(InsertAfter, 3, 3, "x")),
			"edits[1] (insert_before line 4) and edits[2] (insert_after line 3) both insert between lines 3 and 4"},
		{"reported in index order", indexed(op(DeleteLine, 6, 6), op(DeleteRange, 5, 7)),
			"edits[0] (delete_line, line 6) and edits[1] (delete_range, lines 5-7)"},
	}
	for _, c := range refused {
		p, err := PlanEdits(src, c.ops, Options{})
		if result.KindOf(err) != result.Overlap {
			t.Errorf("%s: err = %v, want overlap", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: message %q lacks %q", c.name, err, c.msg)
		}
		if p.Splices != nil || p.NewLines != 0 || p.Targets != nil {
			t.Errorf("%s: a refused batch produced %+v", c.name, p)
		}
	}
	fine := [][]Op{
		indexed(op(InsertAfter, 3, 3, "x"), op(ReplaceLine, 4, 4, "y")),
		indexed(op(ReplaceLine, 3, 3, "x"), op(InsertBefore, 4, 4, "y")),
		indexed(op(DeleteLine, 3, 3), op(DeleteLine, 4, 4)),
		indexed(op(InsertBefore, 1, 1, "x"), op(InsertAfter, 8, 8, "y"), op(InsertAfter, 2, 2, "z")),
	}
	for _, ops := range fine {
		if _, err := PlanEdits(src, ops, Options{}); err != nil {
			t.Errorf("%v: %v", ops, err)
		}
	}
	// Ops outside the document are refused before anything else.
	for _, o := range []Op{op(ReplaceLine, 9, 9, "x"), op(DeleteRange, 0, 2), op(ReplaceRange, 4, 3, "x"),
		op(InsertAfter, 2, 3, "x"), op(ReplaceLine, 1, 1), {Type: "move_line", Start: 1, End: 1},
		op(ReplaceLine, 1, 1, "a\nb")} {
		if _, err := PlanEdits(src, []Op{o}, Options{}); result.KindOf(err) != result.InvalidEdit {
			t.Errorf("%+v: err = %v, want invalid_edit", o, err)
		}
	}
}

func TestSplitContent(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"\n", []string{""}},
		{"a\n\n", []string{"a", ""}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\nb", []string{"a", "b"}},
		{"\tx\r\n\n", []string{"\tx", ""}},
		{"a\rb", []string{"a", "b"}},
	}
	for _, c := range cases {
		if got := SplitContent(c.in); !slices.Equal(got, c.want) {
			t.Errorf("SplitContent(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func ptr(s string) *string { return &s }

func TestEditOp(t *testing.T) {
	e := Edit{Type: ReplaceRange, StartRef: "9:abcd", EndRef: "5:efgh", NewContent: ptr("x")}
	if _, err := e.Op(2, 9, 5); result.KindOf(err) != result.InvalidEdit ||
		!strings.Contains(err.Error(), "edits[2] (replace_range): start_ref 9:abcd (line 9) comes after end_ref 5:efgh (line 5)") {
		t.Errorf("reversed range: %v", err)
	}
	o, err := Edit{Type: InsertAfter, Ref: "3:abcd", NewContent: ptr("x\r\ny\n")}.Op(1, 3, 3)
	if err != nil || o.Index != 1 || o.Start != 3 || o.End != 3 || !slices.Equal(o.Content, []string{"x", "y"}) {
		t.Errorf("Op = %+v, %v", o, err)
	}
	o, err = Edit{Type: DeleteRange, StartRef: "3:abcd", EndRef: "4:abcd"}.Op(0, 3, 4)
	if err != nil || o.Content != nil {
		t.Errorf("delete Op = %+v, %v", o, err)
	}

	// Echoed prefixes are refused, never stripped.
	echo := []string{"1:abcd|x", "12:a3Kf|func f() {\n13:0000|\n14:zzzz|}", "1:abcd|x\n\n2:abcd|y\n"}
	for _, nc := range echo {
		_, err := Edit{Type: ReplaceLine, Ref: "1:abcd", NewContent: ptr(nc)}.Op(0, 1, 1)
		if result.KindOf(err) != result.InvalidEdit || !strings.Contains(err.Error(), "hashline prefix") {
			t.Errorf("echo %q: %v", nc, err)
		}
	}
	notEcho := []string{"", "\n\n", "1:abcd|x\nplain", "x = 1:abcd|y", "12:abc|x", "12:abcde|x"}
	for _, nc := range notEcho {
		if _, err := (Edit{Type: InsertBefore, Ref: "1:abcd", NewContent: ptr(nc)}).Op(0, 1, 1); err != nil {
			t.Errorf("%q refused: %v", nc, err)
		}
	}
	bad := []struct {
		e          Edit
		start, end int
	}{
		{Edit{Type: "replace"}, 1, 1},
		{Edit{Type: ReplaceLine, Ref: "1:abcd"}, 1, 1},                      // no new_content
		{Edit{Type: DeleteLine, Ref: "1:abcd", NewContent: ptr("x")}, 1, 1}, // new_content on a delete
		{Edit{Type: ReplaceLine, Ref: "1:abcd", NewContent: ptr("x")}, 1, 2},
		{Edit{Type: DeleteLine, Ref: "1:abcd"}, 0, 0},
	}
	for _, b := range bad {
		if _, err := b.e.Op(0, b.start, b.end); result.KindOf(err) != result.InvalidEdit {
			t.Errorf("%+v %d-%d: %v", b.e, b.start, b.end, err)
		}
	}
}

func TestRefs(t *testing.T) {
	if got := (Edit{Type: ReplaceRange, StartRef: "1:aaaa", EndRef: "2:bbbb", Ref: "9:zzzz"}).Refs(); !slices.Equal(got, []string{"1:aaaa", "2:bbbb"}) {
		t.Errorf("range Refs = %q", got)
	}
	if got := (Edit{Type: InsertAfter, Ref: "3:cccc"}).Refs(); !slices.Equal(got, []string{"3:cccc"}) {
		t.Errorf("Refs = %q", got)
	}
}

func TestDecodeEdits(t *testing.T) {
	good := `[
	  {"type": "replace_line", "ref": "2:bR7p", "new_content": "  return 'hello';"},
	  {"type": "insert_after", "ref": "3:0eXm|}", "new_content": "\nfunction goodbye() {\n  return 'bye';\n}"},
	  {"type": "replace_range", "start_ref": "1:a3Kf", "end_ref": "3:0eXm", "new_content": ""},
	  {"type": "delete_line", "ref": "4:abcd", "new_content": null, "description": "drop it"},
	  {"type": "delete_range", "start_ref": "5:abcd", "end_ref": "6:abcd"},
	  {"type": "insert_before", "ref": " 7:abcd ", "new_content": "x"}
	]`
	es, err := DecodeEdits([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 6 || es[0].Ref != "2:bR7p" || *es[0].NewContent != "  return 'hello';" || es[2].StartRef != "1:a3Kf" ||
		*es[2].NewContent != "" || es[3].NewContent != nil || es[4].EndRef != "6:abcd" {
		t.Errorf("decoded %+v", es)
	}
	// Lenient: one object, and the array as a JSON string.
	for _, raw := range []string{`{"type":"delete_line","ref":"4:abcd"}`, `"[{\"type\":\"delete_line\",\"ref\":\"4:abcd\"}]"`} {
		if es, err := DecodeEdits([]byte(raw)); err != nil || len(es) != 1 || es[0].Ref != "4:abcd" {
			t.Errorf("%s: %+v, %v", raw, es, err)
		}
	}

	bad := []struct {
		raw  string
		kind result.Kind
		msg  string
	}{
		{``, result.InvalidEdit, "JSON array"},
		{`null`, result.InvalidEdit, "JSON array"},
		{`[]`, result.InvalidEdit, "empty"},
		{`[{"type": "replace_line"`, result.InvalidEdit, "invalid JSON"},
		{`[1]`, result.InvalidEdit, "edits[0]: each edit must be a JSON object"},
		{`[{"ref": "1:abcd"}]`, result.InvalidEdit, "edits[0]: type is required"},
		{`[{"kind": "delete_line", "ref": "1:abcd"}]`, result.InvalidEdit, `did you mean "type"`},
		{`[{"type": 3}]`, result.InvalidEdit, "type must be a string"},
		{`[{"type": "move_line", "ref": "1:abcd"}]`, result.InvalidEdit, `unknown type "move_line"`},
		{`[{"type":"delete_line","ref":"1:abcd"},{"type": "replace_range", "start_ref": "1:abcd", "new_content": "x"}]`,
			result.InvalidEdit, "edits[1] (replace_range): end_ref is required"},
		{`[{"type": "replace_line", "ref": "1:abcd", "newContent": "x"}]`, result.InvalidEdit,
			`edits[0] (replace_line): new_content is required (got "newContent": did you mean "new_content"?)`},
		{`[{"type": "replace_line", "ref": "1:abcd", "content": "x"}]`, result.InvalidEdit, `did you mean "new_content"`},
		{`[{"type": "replace_line", "ref": "1:abcd", "zzz": "x"}]`, result.InvalidEdit, `unknown fields ignored: "zzz"`},
		{`[{"type": "replace_line", "new_content": "x"}]`, result.InvalidEdit, "ref is required"},
		{`[{"type": "delete_line", "ref": "1:abcd", "end_ref": "3:abcd"}]`, result.InvalidEdit, "use delete_range"},
		{`[{"type": "replace_range", "ref": "1:abcd", "new_content": "x"}]`, result.InvalidEdit, "use replace_line"},
		{`[{"type": "delete_range", "start_ref": "1:abcd", "end_ref": "3:abcd", "new_content": "x"}]`, result.InvalidEdit,
			"takes no new_content (use replace_range"},
		{`[{"type": "insert_after", "ref": "1:abcd"}]`, result.InvalidEdit, "new_content is required"},
		{`[{"type": "insert_after", "ref": "1:abcd", "new_content": ["a", "b"]}]`, result.InvalidEdit, "new_content must be a string"},
		{`[{"type": "replace_line", "ref": "12", "new_content": "x"}]`, result.InvalidRef, "edits[0] (replace_line): ref: invalid ref"},
		{`[{"type": "replace_range", "start_ref": "1:abcd", "end_ref": "0:abcd", "new_content": "x"}]`, result.InvalidRef, "end_ref: invalid ref"},
		{`[{"type": "delete_line", "ref": 12}]`, result.InvalidRef, "ref must be a string"},
	}
	for _, b := range bad {
		es, err := DecodeEdits([]byte(b.raw))
		if es != nil || result.KindOf(err) != b.kind || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%s: %v (%s), want %s containing %q", b.raw, err, result.KindOf(err), b.kind, b.msg)
		}
		if b.kind == result.InvalidRef && !errors.Is(err, ErrInvalidRef) {
			t.Errorf("%s: %v does not wrap ErrInvalidRef", b.raw, err)
		}
	}
}

func TestRender(t *testing.T) {
	src := TextSource("a\nb\n")
	sp := []Splice{{Start: 0, Old: 1, New: []lines.Line{{Content: "x", Term: "\n"}}}}
	if got := Render(src, "\uFEFF", sp); got != "\uFEFFx\nb\n" {
		t.Errorf("Render with a stripped mark = %q", got)
	}
	if got := Render(TextSource("\uFEFFa\nb\n"), "\uFEFF", nil); got != "\uFEFFa\nb\n" {
		t.Errorf("Render doubles a kept mark: %q", got)
	}
	if got := Render(src, "\uFEFF", []Splice{{Start: 0, Old: 2}}); got != "" {
		t.Errorf("Render of nothing with a mark = %q", got)
	}
	if bom, rest := StripBOM("\uFEFFab"); bom != "\uFEFF" || rest != "ab" {
		t.Errorf("StripBOM = %q, %q", bom, rest)
	}
	if bom, rest := StripBOM("ab\uFEFF"); bom != "" || rest != "ab\uFEFF" {
		t.Errorf("StripBOM = %q, %q", bom, rest)
	}
}

func TestUnifiedDiff(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		ops     []Op
		context int
		want    string
	}{
		{"replace in the middle", "1\n2\n3\n4\n5\n6\n7\n", indexed(op(ReplaceLine, 4, 4, "four", "4b")), 2,
			"@@ -2,5 +2,6 @@\n 2\n 3\n-4\n+four\n+4b\n 5\n 6\n"},
		{"hunks merge when their context touches", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", indexed(op(DeleteLine, 2, 2), op(ReplaceLine, 6, 6, "x")), 2,
			"@@ -1,8 +1,7 @@\n 1\n-2\n 3\n 4\n 5\n-6\n+x\n 7\n 8\n"},
		{"separate hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", indexed(op(DeleteLine, 2, 2), op(ReplaceLine, 8, 8, "x")), 1,
			"@@ -1,3 +1,2 @@\n 1\n-2\n 3\n@@ -7,3 +6,3 @@\n 7\n-8\n+x\n 9\n"},
		{"insert at the top", "a\nb\n", indexed(op(InsertBefore, 1, 1, "x")), 0, "@@ -0,0 +1 @@\n+x\n"},
		{"delete, no context", "a\nb\nc\n", indexed(op(DeleteLine, 2, 2)), 0, "@@ -2 +1,0 @@\n-b\n"},
		{"no final newline, context", "a\nb\nc", indexed(op(ReplaceLine, 1, 1, "A")), 3,
			"@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n"},
		{"no final newline, last replaced", "a\nb", indexed(op(ReplaceLine, 2, 2, "B")), 1,
			"@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n"},
		{"no final newline, insert after last", "a\nb", indexed(op(InsertAfter, 2, 2, "c")), 1,
			"@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n\\ No newline at end of file\n"},
		{"final newline gained", "a\nb", indexed(op(ReplaceLine, 2, 2, "")), 0,
			"@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+\n"},
	}
	for _, c := range cases {
		src := TextSource(c.text)
		p, err := PlanEdits(src, c.ops, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := "--- a/f.go\n+++ b/f.go\n" + c.want
		if got := UnifiedDiff("f.go", src, p.Splices, c.context); got != want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", c.name, got, want)
		}
	}
	if got := UnifiedDiff("f", TextSource("a\n"), nil, 3); got != "" {
		t.Errorf("no splices: %q", got)
	}
	// A name holding a line break stays on its header line, quoted as git
	// quotes it.
	p, _ := PlanEdits(TextSource("a\n"), indexed(op(ReplaceLine, 1, 1, "b")), Options{})
	if got := UnifiedDiff("x\n+++ b/y", TextSource("a\n"), p.Splices, 0); !strings.HasPrefix(got, "--- \"a/x\\n+++ b/y\"\n+++ \"b/x\\n+++ b/y\"\n@@") {
		t.Errorf("a name with a line break:\n%s", got)
	}
}

func TestAnnotateRange(t *testing.T) {
	src := TextSource("\uFEFFa\r\nb\n")
	got := string(AnnotateRange(nil, src, 0, 9, true))
	if want := "1:" + Hash("a") + "|a\n2:" + Hash("b") + "|b\n"; got != want {
		t.Errorf("AnnotateRange = %q, want %q", got, want)
	}
	if got := string(AnnotateRange(nil, src, 2, 2, true)); got != "2:"+Hash("b")+"|b\n" {
		t.Errorf("AnnotateRange(2,2) = %q", got)
	}
}
