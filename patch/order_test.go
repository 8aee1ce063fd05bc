package patch_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/textdoc"
)

// numbered is a file of n lines "line 1" … "line n", with block written
// over the lines from each of at (1-based).
func numbered(n int, block []string, at ...int) string {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = fmt.Sprintf("line %d", i+1)
	}
	for _, a := range at {
		copy(ls[a-1:], block)
	}
	return strings.Join(ls, "\n") + "\n"
}

var errBlock = []string{"\tif err != nil {", "\t\treturn err", "\t}"}

// TestV4AOrderedPlacement: a V4A chunk goes to the first place its lines
// occur after the chunk before it, as the format defines (Codex's
// apply_patch): chunk 1's lines occur at lines 10 and 80, chunk 2 is at
// line 50, so chunk 1 is the one at line 10. The same hunks in a format
// that defines no order (aider's udiff: no line numbers) stay ambiguous.
func TestV4AOrderedPlacement(t *testing.T) {
	text := numbered(100, errBlock, 10, 80)
	v4a := "*** Begin Patch\n*** Update File: f.go\n@@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn fmt.Errorf(\"f: %w\", err)\n \t}\n@@\n line 49\n-line 50\n+LINE 50\n*** End Patch\n"
	got, fail := applyText(t, text, v4a)
	if fail != nil {
		t.Fatalf("refused: %s", fail.Err)
	}
	want := strings.Replace(strings.Replace(text, "\t\treturn err\n", "\t\treturn fmt.Errorf(\"f: %w\", err)\n", 1), "line 50\n", "LINE 50\n", 1)
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	fs, _ := patch.Parse(v4a)
	s := textdoc.New(text)
	_, placed, _ := patch.Plan(s, fs[0], s.Dominant())
	if len(placed) != 2 || placed[0].Start != 10 || placed[0].End != 12 || placed[0].Also != 80 || placed[1].Start != 49 || placed[1].Also != 0 {
		t.Fatalf("placed %+v", placed)
	}

	// Chunk 2 before chunk 1 in the file: chunk 1 goes to line 80, the
	// first place after line 50.
	swapped := "*** Begin Patch\n*** Update File: f.go\n@@\n line 49\n-line 50\n+LINE 50\n@@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n*** End Patch\n"
	got, fail = applyText(t, text, swapped)
	if fail != nil {
		t.Fatalf("refused: %s", fail.Err)
	}
	if i := strings.Index(got, "return nil"); i < 0 || strings.Count(got[:i], "\n") != 80 {
		t.Fatalf("chunk 1 not at line 81: %q", got)
	}

	udiff := "--- f.go\n+++ f.go\n@@ ... @@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n@@ ... @@\n line 49\n-line 50\n+LINE 50\n"
	if _, fail := applyText(t, text, udiff); fail == nil || fail.Kind != "ambiguous" || fail.Hunk != 0 {
		t.Fatalf("aider's udiff twice: %+v", fail)
	}
}

// TestV4AOrderedNotFound: a chunk whose lines occur only before the place
// the chunk before it ended is refused, naming the chunk and where its
// lines are.
func TestV4AOrderedNotFound(t *testing.T) {
	text := numbered(100, errBlock, 10)
	p := "*** Begin Patch\n*** Update File: f.go\n@@\n line 49\n-line 50\n+LINE 50\n@@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n*** End Patch\n"
	_, fail := applyText(t, text, p)
	if fail == nil || fail.Hunk != 1 || fail.Kind != "not_found" || fail.Line != 10 {
		t.Fatalf("%+v", fail)
	}
	msg := fail.Err.Error()
	for _, want := range []string{"Hunk 2 (patch line 7)", "lines 10-12", "line 51 on"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message lacks %q: %s", want, msg)
		}
	}
	// Its lines nowhere: refused as not found.
	p = "*** Begin Patch\n*** Update File: f.go\n@@\n line 49\n-line 50\n+LINE 50\n@@\n line 7\n-absent\n+x\n*** End Patch\n"
	if _, fail := applyText(t, text, p); fail == nil || fail.Hunk != 1 || fail.Kind == "" {
		t.Fatalf("absent: %+v", fail)
	}
}

// TestV4AAnchorNarrows: an @@ line finds its line first, from the end of
// the chunk before; the chunk's lines are then the first after it, though
// they occur in every function.
func TestV4AAnchorNarrows(t *testing.T) {
	text := "def bar():\n    x = compute()\n    return x\n\ndef foo():\n    x = compute()\n    return x\n\ndef baz():\n    x = compute()\n    return x\n"
	for _, fn := range []string{"foo", "baz"} {
		p := "*** Begin Patch\n*** Update File: m.py\n@@ def " + fn + "():\n     x = compute()\n-    return x\n+    return x + 1\n*** End Patch\n"
		got, fail := applyText(t, text, p)
		if fail != nil {
			t.Fatalf("%s: refused: %s", fn, fail.Err)
		}
		at := strings.Index(text, "def "+fn)
		want := text[:at] + strings.Replace(text[at:], "return x\n", "return x + 1\n", 1)
		if got != want {
			t.Fatalf("%s: got %q", fn, got)
		}
	}
	// An @@ line indented in the file (a method) is found as Codex finds
	// it: exactly first, else without the surrounding whitespace.
	cls := "class A:\n    def f(self):\n        return 1\n\ndef f(self):\n        return 1\n"
	got, fail := applyText(t, cls, "*** Begin Patch\n*** Update File: m.py\n@@ def f(self):\n-        return 1\n+        return 2\n*** End Patch\n")
	if fail != nil || got != "class A:\n    def f(self):\n        return 1\n\ndef f(self):\n        return 2\n" {
		t.Fatalf("exact @@ line first: %q %+v", got, fail)
	}
	// The @@ line as the file indents it is the method's, as the format's
	// examples write it (@@ class A, then @@ with the method's line).
	got, fail = applyText(t, cls, "*** Begin Patch\n*** Update File: m.py\n@@ class A:\n@@     def f(self):\n-        return 1\n+        return 2\n*** End Patch\n")
	if fail != nil || got != "class A:\n    def f(self):\n        return 2\n\ndef f(self):\n        return 1\n" {
		t.Fatalf("indented @@ line: %q %+v", got, fail)
	}
	// The chunk's lines only before its @@ line: refused.
	p := "*** Begin Patch\n*** Update File: m.py\n@@ def baz():\n def bar():\n-    x = compute()\n+    x = 0\n*** End Patch\n"
	if _, fail := applyText(t, text, p); fail == nil || fail.Kind != "not_found" || !strings.Contains(fail.Err.Error(), "@@") {
		t.Fatalf("lines before the @@ line: %+v", fail)
	}
	// An @@ line that is not in the file after the chunk before it.
	p = "*** Begin Patch\n*** Update File: m.py\n@@ def baz():\n-    return x\n+    return 0\n@@ def foo():\n-    return x\n+    return 1\n*** End Patch\n"
	if _, fail := applyText(t, text, p); fail == nil || fail.Hunk != 1 || fail.Kind != "not_found" {
		t.Fatalf("@@ line behind the cursor: %+v", fail)
	}
}

// TestV4AOrderedModel: random files of few distinct lines (every chunk's
// lines occur many times), random V4A chunks, placed as a model written
// from the format's definition places them (and as PlaceCodex does): each chunk's @@ line is the
// first line equal to it from the cursor on, its lines the first place
// from after the @@ line (else the cursor), the cursor then moves past
// them. Plan must apply exactly the model's result, or refuse where the
// model finds no place; chunks that meet (one ends where the next begins)
// both apply.
func TestV4AOrderedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 11))
	pool := []string{"a", "b", "c", "{", "}", "x := 1"}
	cases := 3000
	if testing.Short() {
		cases = 500
	}
	applied := 0
	for c := range cases {
		n := 1 + rng.IntN(30)
		file := make([]string, n)
		for i := range file {
			file[i] = pool[rng.IntN(len(pool))]
		}
		var hunks []patch.Hunk
		for k := rng.IntN(4) + 1; k > 0; k-- {
			s := rng.IntN(n)
			e := s + 1 + rng.IntN(min(3, n-s))
			h := patch.Hunk{Old: slices.Clone(file[s:e])}
			h.New = slices.Clone(h.Old)
			switch rng.IntN(3) {
			case 0:
				h.New[rng.IntN(len(h.New))] = "NEW"
			case 1:
				h.New = slices.Delete(h.New, 0, 1)
			case 2:
				h.New = slices.Insert(h.New, len(h.New), "ADDED")
			}
			if rng.IntN(3) == 0 && s > 0 {
				h.Anchors = []string{file[rng.IntN(s)]}
			}
			hunks = append(hunks, h)
		}
		text := strings.Join(file, "\n") + "\n"
		want, ok := orderedModel(file, hunks)
		// Codex's own placement agrees (its lenient passes find nothing
		// more in lines without surrounding whitespace).
		if rs, cf := patch.PlaceCodex(file, hunks); (cf == nil) != ok {
			t.Fatalf("case %d: PlaceCodex %+v %v, the model %v\nfile %q\nhunks %+v", c, rs, cf, ok, file, hunks)
		}
		s := textdoc.New(text)
		plan, _, fail := patch.Plan(s, patch.File{Kind: patch.Modify, Path: "f", V4A: true, Hunks: hunks}, "\n")
		switch {
		case !ok && fail == nil:
			t.Fatalf("case %d: applied, the model finds no place\nfile %q\nhunks %+v", c, file, hunks)
		case ok && fail != nil:
			t.Fatalf("case %d: refused (%s), the model applies\nfile %q\nhunks %+v", c, fail.Err, file, hunks)
		case ok && fail == nil:
			next, _, err := plan.Apply(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := next.Text(); got != want {
				t.Fatalf("case %d: got %q, the model %q\nfile %q\nhunks %+v", c, got, want, file, hunks)
			}
			applied++
		}
	}
	if applied < cases/4 {
		t.Fatalf("only %d of %d cases applied: the generator tests little", applied, cases)
	}
}

// orderedModel applies V4A chunks to file by the format's definition.
func orderedModel(file []string, hunks []patch.Hunk) (text string, ok bool) {
	type rep struct{ at, old int }
	var reps []rep
	cursor := 0
	find := func(pat []string, from int) int {
		for i := from; i+len(pat) <= len(file); i++ {
			if slices.Equal(file[i:i+len(pat)], pat) {
				return i
			}
		}
		return -1
	}
	for _, h := range hunks {
		for _, a := range h.Anchors {
			at := find([]string{a}, cursor)
			if at < 0 {
				return "", false
			}
			cursor = at + 1
		}
		at := find(h.Old, cursor)
		if at < 0 {
			return "", false
		}
		reps = append(reps, rep{at, len(h.Old)})
		cursor = at + len(h.Old)
	}
	var out []string
	prev := 0
	for i, r := range reps {
		out = append(out, file[prev:r.at]...)
		out = append(out, hunks[i].New...)
		prev = r.at + r.old
	}
	out = append(out, file[prev:]...)
	if len(out) == 0 {
		return "", true
	}
	return strings.Join(out, "\n") + "\n", true
}

// TestV4AMergeStaysUnique: a V4A chunk the file changed under merges only
// where what remains of it occurs once: the trimmed chunk is not the chunk
// as written, so the first of its places is no more its place than the
// others.
func TestV4AMergeStaysUnique(t *testing.T) {
	p := "*** Begin Patch\n*** Update File: f\n@@\n b\n c\n-d\n+D\n e\n f\n*** End Patch\n"
	got, merged, fail := mergeFile(t, "a\nb\nC\nd\ne\nf\ng\n", p)
	if fail != nil || got != "a\nb\nC\nD\ne\nf\ng\n" || len(merged) != 1 {
		t.Fatalf("merge: %q %+v %v", got, merged, fail)
	}
	if _, _, fail := mergeFile(t, "d\ne\nf\nb\nC\nd\ne\nf\n", p); fail == nil {
		t.Fatal("merged at the first of two places")
	}
	// A chunk that applies as written is planned by the ordered rule.
	got, merged, fail = mergeFile(t, "b\nc\nd\ne\nf\nb\nc\nd\ne\nf\n", p)
	if fail != nil || got != "b\nc\nD\ne\nf\nb\nc\nd\ne\nf\n" || len(merged) != 0 {
		t.Fatalf("as written: %q %+v %v", got, merged, fail)
	}
}

// TestV4ABudget: a V4A chunk built to compare almost everywhere is
// refused, quickly, as PlaceCodex refuses it.
func TestV4ABudget(t *testing.T) {
	text := strings.Repeat("a\n", 200_000)
	old := append(slices.Repeat([]string{"a"}, 1000), "b")
	s := textdoc.New(text)
	_, _, fail := patch.Plan(s, patch.File{Kind: patch.Modify, Path: "f", V4A: true, Hunks: []patch.Hunk{{Old: old, New: old[:1]}}}, "\n")
	if fail == nil || fail.Kind != "too_large" {
		t.Fatalf("placed: %+v", fail)
	}
}

// TestV4ATouchingChunks: a chunk that adds lines at its end and the next
// chunk, which begins right there, both apply, the added lines first (as
// Codex applies them); hunks of another format that meet so stay refused
// as overlapping (unchanged).
func TestV4ATouchingChunks(t *testing.T) {
	p := "*** Begin Patch\n*** Update File: f\n@@\n a\n+ADDED\n@@\n-b\n+B\n@@\n c\n+MORE\n@@\n+END\n d\n*** End Patch\n"
	got, fail := applyText(t, "a\nb\nc\nd\ne\n", p)
	if fail != nil || got != "a\nADDED\nB\nc\nMORE\nEND\nd\ne\n" {
		t.Fatalf("%q %+v", got, fail)
	}
	u := "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+ADDED\n@@ -2 +3 @@\n-b\n+B\n"
	if _, fail := applyText(t, "a\nb\nc\nd\ne\n", u); fail == nil || fail.Kind != "overlap" {
		t.Fatalf("unified hunks that meet: %+v", fail)
	}
}
