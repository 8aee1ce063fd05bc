package editblock

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/textdoc"
)

// apply matches b against text and returns the new text, or the diagnostic.
func apply(t *testing.T, text string, b Block, dom string) (string, Match, *Diagnostic) {
	t.Helper()
	src := hashline.TextSource(text)
	m, d := MatchBlock(src, b, dom)
	// The same against a snapshot (the LSP side's Source, walked through
	// its Lines iterator).
	m2, d2 := MatchBlock(textdoc.New(text), b, dom)
	if (d == nil) != (d2 == nil) || d != nil && !reflect.DeepEqual(d, d2) || !reflect.DeepEqual(m, m2) {
		t.Fatalf("TextSource and Snapshot disagree: %+v %+v / %+v %+v", m, d, m2, d2)
	}
	if d != nil {
		if m.Plan.Splices != nil || m.Start != 0 || m.NoOp {
			t.Fatalf("failed match carries a change: %+v", m)
		}
		return text, m, d
	}
	if m.NoOp {
		return text, m, nil
	}
	return render(src, m.Plan.Splices), m, nil
}

func blk(old, new string) Block {
	split := func(s string) []string {
		if s == "" {
			return []string{}
		}
		return strings.Split(s, "\n")
	}
	return Block{Path: "f.txt", Old: split(old), New: split(new)}
}

func TestMatchTerminators(t *testing.T) {
	cases := []struct {
		name, text string
		b          Block
		dom        string
		want       string
		start, end int
	}{
		{"lf output on crlf file", "a\r\nb\r\nc\r\n", blk("a\nb", "a\nB\nB2"), "\r\n", "a\r\nB\r\nB2\r\nc\r\n", 1, 2},
		{"replace the last line without final newline", "a\nb", blk("a\nb", "a\nB\nC"), "\n", "a\nB\nC", 1, 2},
		{"insert after the last line without final newline", "a\r\nb", blk("b", "b\nc"), "\r\n", "a\r\nb\r\nc", 2, 2},
		{"delete the last line of a file without final newline", "a\nb\nc", blk("b\nc", "b"), "\n", "a\nb", 2, 3},
		{"shared trailing lines keep their terminators", "x\na\rb\r\nc\n", blk("a\nb\nc", "a\nNEW\nb\nc"), "\n", "x\na\rNEW\nb\r\nc\n", 2, 4},
		{"insert before shared trailing lines only", "a\nb\n", blk("b", "z\nb"), "\n", "a\nz\nb\n", 2, 2},
		{"tabs are kept as written", "\tif x {\n\t}\n", blk("\tif x {", "\tif x && y {"), "\n", "\tif x && y {\n\t}\n", 1, 1},
		{"byte-order mark is ignored and kept", "\uFEFFa\nb\n", blk("a\nb", "z\nb"), "\n", "\uFEFFz\nb\n", 1, 2},
		{"insert before line 1 of a marked file", "\uFEFFa\n", blk("a", "z\na"), "\n", "\uFEFFz\na\n", 1, 1},
		{"delete lines in the middle", "a\nb\nc\nd\n", blk("a\nb\nc\nd", "a\nd"), "\n", "a\nd\n", 1, 4},
		{"an empty line as anchor when unique", "x\n\ny\n", blk("\ny", "\nY"), "\n", "x\n\nY\n", 2, 3},
		{"create into an empty file", "", blk("", "p\nq"), "\r\n", "p\r\nq\r\n", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, m, d := apply(t, c.text, c.b, c.dom)
			if d != nil {
				t.Fatalf("diagnostic %+v", d)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if m.Start != c.start || m.End != c.end {
				t.Errorf("lines %d-%d, want %d-%d", m.Start, m.End, c.start, c.end)
			}
			if len(m.Plan.Splices) != 1 || !equalSplice(m.Plan.Splices[0], m.Splice) {
				t.Errorf("plan splices %+v vs %+v", m.Plan.Splices, m.Splice)
			}
		})
	}
}

func equalSplice(a, b hashline.Splice) bool {
	if a.Start != b.Start || a.Old != b.Old || len(a.New) != len(b.New) {
		return false
	}
	for i := range a.New {
		if a.New[i] != b.New[i] {
			return false
		}
	}
	return true
}

func TestMatchDiagnostics(t *testing.T) {
	file := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	cases := []struct {
		name     string
		text     string
		b        Block
		kind     string
		line     int
		contains []string
	}{
		{"ambiguous single line", file, blk("\treturn 1", "\treturn 2"), KindAmbiguous, 2,
			[]string{`The EDIT line "\treturn 1" for f.txt matches lines 2 and 6; add more unchanged lines before or after it so it matches one place.`}},
		{"ambiguous many places", strings.Repeat("x\n", 9), blk("x", "x\ny"), KindAmbiguous, 1,
			[]string{"matches 9 places, first at lines 1, 2, 3, 4 and 5"}},
		{"whitespace in several places", file, blk("    return 1", "    return 2"), KindWhitespace, 2,
			[]string{"match 2 places (lines 2 and 6) only if whitespace is ignored", "the file indents with 1 tab, the block with 4 spaces"}},
		{"internal whitespace", "a := 1\n", blk("a  :=  1", "a := 2"), KindWhitespace, 1,
			[]string{"the whitespace between words differs"}},
		{"hashline prefixes echoed", file, blk("1:abcd|func a() {\n2:abcd|\treturn 1", "func a() {\n\treturn 3"), KindNotFound, 0,
			[]string{"hashline prefixes"}},
		{"a line the file has more", "func a() {\n\tx := 1\n\ty := 2\n\treturn x + y\n}\n", blk("func a() {\n\tx := 1\n\treturn x + y\n}", "func a() {\n\treturn 3\n}"), KindNear, 1,
			[]string{"(4 of 4 lines agree)", "After line 2 of the EDIT half the file has \"\\ty := 2\" (line 3), which the EDIT half leaves out."}},
		{"create over an existing file", file, blk("", "x"), KindExists, 0, []string{"already exists (7 lines)"}},
		{"nothing alike", file, blk("class Foo:\n    pass", "class Foo:\n    x = 1"), KindNotFound, 0, []string{"not found"}},
		{"a line with a terminator", file, Block{Path: "f", Old: []string{"a\nb"}, New: []string{"c"}}, KindInvalid, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, d := apply(t, c.text, c.b, "\n")
			if d == nil {
				t.Fatalf("applied: %q", got)
			}
			if d.Kind != c.kind || d.Line != c.line {
				t.Errorf("got %s at %d, want %s at %d: %s", d.Kind, d.Line, c.kind, c.line, d.Message)
			}
			for _, s := range c.contains {
				if !strings.Contains(d.Message, s) {
					t.Errorf("message lacks %q:\n%s", s, d.Message)
				}
			}
			if d.Err().Kind != d.ErrorKind() || d.Err().Message != d.Message {
				t.Error("Err")
			}
		})
	}
}

func TestNoOp(t *testing.T) {
	_, m, d := apply(t, "a\n", blk("zzz", "zzz"), "\n")
	if d != nil || !m.NoOp || m.Plan.Splices != nil {
		t.Fatalf("%+v %+v", m, d)
	}
}

func TestApplySequence(t *testing.T) {
	src := hashline.TextSource("def process():\n    step_one()\n    step_two()\n")
	blocks := []Block{
		{Index: 0, Path: "p", Old: []string{"def process():", "    step_one()"}, New: []string{"def process():", "    step_one_updated()"}},
		{Index: 2, Path: "p", Old: []string{"    step_one()", "    step_two()"}, New: []string{"    step_one()", "    step_two_updated()"}},
		{Index: 3, Path: "p", Old: []string{"    step_two()"}, New: []string{"    step_two()"}},
		{Index: 5, Path: "p", Old: []string{"    step_two()"}, New: []string{"    step_2()"}},
	}
	out := ApplySequence(src, blocks, "\n")
	if len(out) != 4 {
		t.Fatal(len(out))
	}
	want := []struct {
		applied bool
		kind    string
		text    string
	}{
		{true, "", "def process():\n    step_one_updated()\n    step_two()\n"},
		{false, KindNear, "def process():\n    step_one_updated()\n    step_two()\n"},
		{false, "", "def process():\n    step_one_updated()\n    step_two()\n"},
		{true, "", "def process():\n    step_one_updated()\n    step_2()\n"},
	}
	for i, w := range want {
		o := out[i]
		kind := ""
		if o.Diag != nil {
			kind = o.Diag.Kind
		}
		if o.Index != blocks[i].Index || o.Applied() != w.applied || kind != w.kind || o.Text != w.text {
			t.Errorf("outcome %d: %+v", i, o)
		}
	}
	if !out[2].Match.NoOp {
		t.Error("block 3 is a no-op")
	}
	d := out[3].Diff("p.py", 1)
	if !strings.Contains(d, "-    step_two()\n+    step_2()\n") || !strings.HasPrefix(d, "--- a/p.py\n+++ b/p.py\n@@ -2,2 +2,2 @@\n") {
		t.Errorf("diff:\n%s", d)
	}
	if out[1].Diff("p.py", 3) != "" {
		t.Error("a failed block has a diff")
	}
}

// TestBlankEdgeDiagnosed: an EDIT half that matches only without the blank
// lines at its start or end is refused (the file has no such line there)
// and diagnosed as such, naming the place, and the whitespace difference
// that remains if any.
func TestBlankEdgeDiagnosed(t *testing.T) {
	text := "    line1\n    line2\n    line3\n"
	for _, c := range []struct {
		old  string
		want []string
	}{
		{"\n    line1\n    line2", []string{"lines 1-2", "blank line", "start", "Remove"}},
		{"    line2\n    line3\n\n", []string{"lines 2-3", "blank lines", "end"}},
		{"\n  line1\n  line2", []string{"lines 1-2", "a blank line at their start too", "whitespace", "indents"}},
	} {
		got, _, d := apply(t, text, blk(c.old, "x"), "\n")
		if d == nil || got != text || d.Kind != KindWhitespace {
			t.Fatalf("%q: %q %+v", c.old, got, d)
		}
		for _, w := range c.want {
			if !strings.Contains(d.Message, w) {
				t.Errorf("%q: %q lacks %q", c.old, d.Message, w)
			}
		}
	}
}
