package patch

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseCodex: a patch is read as Codex's apply_patch reads it, paths
// and lines as written, and refused where Codex refuses it.
func TestParseCodex(t *testing.T) {
	got, err := ParseCodex("  *** Begin Patch \n*** Add File: a b.txt\n+one\n+\n*** Delete File: gone.txt\n*** Update File: src/x.py\n*** Move to: dst/y.py\n@@ def f():\n-    pass\n+    return 1\n@@\n ctx\n-old\n+new\n*** End of File\n*** Update File: z.py\n first\n+second\n\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Kind: Add, Path: "a b.txt", Line: 2, Hunks: []Hunk{{New: []string{"one", ""}, Line: 3}}},
		{Kind: Delete, Path: "gone.txt", Line: 5},
		{Kind: Modify, Path: "src/x.py", NewPath: "dst/y.py", Line: 6, Hunks: []Hunk{
			{Anchors: []string{"def f():"}, Old: []string{"    pass"}, New: []string{"    return 1"}, Line: 8},
			{Old: []string{"ctx", "old"}, New: []string{"ctx", "new"}, EOF: true, Line: 11},
		}},
		{Kind: Modify, Path: "z.py", Line: 16, Hunks: []Hunk{
			// The empty line before *** End Patch is an empty context line.
			{Old: []string{"first", ""}, New: []string{"first", "second", ""}, Line: 17},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
	// Heredoc around the patch, and CRLF patch lines.
	if fs, err := ParseCodex("<<'EOF'\r\n*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\nEOF\r\n"); err != nil || len(fs) != 1 || fs[0].Path != "a" {
		t.Fatalf("heredoc: %+v %v", fs, err)
	}
	for name, text := range map[string]string{
		"text before":           "Here it is:\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n",
		"text after":            "*** Begin Patch\n*** Delete File: a\n*** End Patch\nDone.\n",
		"no end":                "*** Begin Patch\n*** Delete File: a\n",
		"unified diff":          "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"two @@ lines":          "*** Begin Patch\n*** Update File: a\n@@ class A\n@@ def f():\n-x\n+y\n*** End Patch\n",
		"second chunk, no @@":   "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End of File\n-z\n*** End Patch\n",
		"empty update":          "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
		"blank after an add":    "*** Begin Patch\n*** Add File: a\n+x\n\n*** Delete File: b\n*** End Patch\n",
		"bad line in a chunk":   "*** Begin Patch\n*** Update File: a\n@@\n#x\n*** End Patch\n",
		"header with no path":   "*** Begin Patch\n*** Add File:\n+x\n*** End Patch\n",
		"lowercase header":      "*** Begin Patch\n*** update file: a\n@@\n-x\n*** End Patch\n",
		"End of File, no lines": "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch\n",
		// Where Codex releases read a patch differently, no reading is sure.
		"padded @@ line":          "*** Begin Patch\n*** Update File: a\n@@ \n-x\n*** End Patch\n",
		"padded anchor":           "*** Begin Patch\n*** Update File: a\n@@ def f(): \n-x\n*** End Patch\n",
		"padded move":             "*** Begin Patch\n*** Update File: a\n*** Move to: b \n@@\n-x\n*** End Patch\n",
		"padded End of File":      "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\t\n*** End Patch\n",
		"blank after the header":  "*** Begin Patch\n*** Update File: a\n\n@@\n-x\n*** End Patch\n",
		"spaces after the header": "*** Begin Patch\n*** Update File: a\n  \n@@\n-x\n*** End Patch\n",
	} {
		if fs, err := ParseCodex(text); err == nil {
			t.Errorf("%s: read as %+v", name, fs)
		}
	}
}

// TestSeekCodex: the passes, strictest first, each over every position
// from the cursor; End of File tries the last position only.
func TestSeekCodex(t *testing.T) {
	ls := func(s string) []string { return strings.Split(s, "|") }
	for _, c := range []struct {
		lines, pattern string
		start          int
		eof            bool
		at             int
		ok             bool
	}{
		{"foo|bar|baz", "bar|baz", 0, false, 1, true},
		{"foo   |bar\t\t", "foo|bar", 0, false, 0, true},
		{"    foo   |   bar\t", "foo|bar", 0, false, 0, true},
		{"x  |x", "x", 0, false, 1, true},   // exact anywhere beats lenient earlier
		{"x|y|x  ", "x", 1, false, 2, true}, // behind the cursor is not looked at
		{"a — b|“q”", "a - b|\"q\"", 0, false, 0, true},
		{"a\u00a0b", "a b", 0, false, 0, true},
		{"x|y|x", "x", 0, true, 2, true},        // End of File: the last place
		{"x|y|z", "x", 0, true, 0, false},       // ... only
		{"x|y|x", "x", 3, true, 0, false},       // ... not before the cursor
		{"one", "too|many", 0, false, 0, false}, // longer than the file
		{"a|b", "", 1, false, 1, true},
	} {
		at, ok := SeekCodex(ls(c.lines), ls(c.pattern)[:len(ls(c.pattern))*min(len(c.pattern), 1)], c.start, c.eof)
		if at != c.at || ok != c.ok {
			t.Errorf("seek %q in %q from %d (eof %v): %d %v, want %d %v", c.pattern, c.lines, c.start, c.eof, at, ok, c.at, c.ok)
		}
	}
}

// TestPlaceCodex: chunks in order from a cursor moved past each one and
// past its @@ line; added lines alone go to the end, before a last empty
// line; a last empty context line is dropped when the search fails.
func TestPlaceCodex(t *testing.T) {
	lines := []string{"def f():", "    x = 1", "def g():", "    x = 1", "end", ""}
	rs, fail := PlaceCodex(lines, []Hunk{
		{Anchors: []string{"def g():"}, Old: []string{"    x = 1"}, New: []string{"    x = 2"}},
		{Old: []string{"end", "", ""}, New: []string{"END", "", ""}},
	})
	if fail != nil {
		t.Fatal(fail.Err)
	}
	want := []Replacement{
		{Hunk: 0, Start: 3, Old: 1, New: []string{"    x = 2"}},
		{Hunk: 1, Start: 4, Old: 2, New: []string{"END", ""}},
	}
	if !reflect.DeepEqual(rs, want) {
		t.Fatalf("got %+v\nwant %+v", rs, want)
	}
	if rs, _ := PlaceCodex(lines, []Hunk{{Anchors: []string{"def f():"}, New: []string{"tail"}}}); !reflect.DeepEqual(rs, []Replacement{{Start: 6, New: []string{"tail"}, Append: true}}) {
		t.Fatalf("added lines alone: %+v", rs)
	}
	// Releases before 0.169 put added lines before a last empty line: a
	// chunk that changes that line collides with them there.
	if _, fail := PlaceCodex(lines, []Hunk{{Old: []string{"end", ""}, New: []string{"END", ""}}, {New: []string{"tail"}}}); fail == nil || fail.Kind != "overlap" {
		t.Fatalf("added lines by a changed last empty line: %+v", fail)
	}
	if _, fail := PlaceCodex(lines, []Hunk{{Anchors: []string{"def h():"}, Old: []string{"x"}}}); fail == nil || fail.Kind != "not_found" {
		t.Fatalf("an absent @@ line: %+v", fail)
	}
	// An End of File chunk is not sought before the cursor.
	if _, fail := PlaceCodex([]string{"a", "b"}, []Hunk{{Old: []string{"b"}}, {Old: []string{"b"}, EOF: true}}); fail == nil || fail.Kind != "not_found" {
		t.Fatalf("End of File before the cursor: %+v", fail)
	}
}

func TestCodexLines(t *testing.T) {
	for _, c := range []struct {
		text   string
		keepCR bool
		want   []string
	}{
		{"", false, []string{}},
		{"a\r\nb\r\n", false, []string{"a", "b"}},
		{"a\r\nb\r\n", true, []string{"a\r", "b\r"}},
		{"a\nb\r", false, []string{"a", "b\r"}},
		{"a\n\n", false, []string{"a", ""}},
	} {
		if got := CodexLines(c.text, c.keepCR); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q (keepCR %v): %q, want %q", c.text, c.keepCR, got, c.want)
		}
	}
}

// applyCodex applies replacements as Codex does, for the tests: in
// reverse order, the result ending with a line break.
func applyCodex(lines []string, rs []Replacement) string {
	out := slices.Clone(lines)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		out = slices.Concat(out[:r.Start], r.New, out[r.Start+r.Old:])
	}
	if len(out) == 0 || out[len(out)-1] != "" {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// TestCodexScenarios: the cases of Codex's own apply_patch test scenarios
// (codex-rs/apply-patch/tests/fixtures/scenarios), restated: the file
// Codex leaves, from the file and the patch.
func TestCodexScenarios(t *testing.T) {
	for _, c := range []struct{ name, file, patch, want string }{
		{"multiple chunks", "line1\nline2\nline3\nline4\n",
			"*** Begin Patch\n*** Update File: f\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n*** End Patch", "line1\nchanged2\nline3\nchanged4\n"},
		{"no final line break", "no newline at end", "*** Begin Patch\n*** Update File: f\n@@\n-no newline at end\n+first line\n+second line\n*** End Patch", "first line\nsecond line\n"},
		{"added lines alone", "line1\nline2\n", "*** Begin Patch\n*** Update File: f\n@@\n+added line 1\n+added line 2\n*** End Patch", "line1\nline2\nadded line 1\nadded line 2\n"},
		{"padded file header", "old\n", "*** Begin Patch\n  *** Update File: f\n@@\n-old\n+new\n*** End Patch", "new\n"},
		{"padded envelope", "one\n", "*** Begin Patch \n*** Update File: f\n@@\n-one\n+two\n *** End Patch", "two\n"},
		{"unicode", "line1\nnaïve café\nline3\n", "*** Begin Patch\n*** Update File: f\n@@\n line1\n-naïve café\n+naïve café ✅\n*** End Patch ", "line1\nnaïve café ✅\nline3\n"},
		{"removal only", "line1\nline2\nline3\n", "*** Begin Patch\n*** Update File: f\n@@\n line1\n-line2\n line3\n*** End Patch", "line1\nline3\n"},
		{"End of File", "first\nsecond\n", "*** Begin Patch\n*** Update File: f\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch", "first\nsecond updated\n"},
		{"typographic dash", "a — b\n", "*** Begin Patch\n*** Update File: f\n@@\n-a - b\n+c\n*** End Patch", "c\n"},
	} {
		fs, err := ParseCodex(c.patch)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		lines := CodexLines(c.file, false)
		rs, fail := PlaceCodex(lines, fs[0].Hunks)
		if fail != nil {
			t.Errorf("%s: %v", c.name, fail.Err)
			continue
		}
		if got := applyCodex(lines, rs); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// Codex rejects a hunk whose lines are missing: so does the placement.
	if _, fail := PlaceCodex([]string{"line1", "line2"}, []Hunk{{Old: []string{"missing"}}}); fail == nil {
		t.Error("missing context placed")
	}
}

// TestPlaceCodexBudget: a placement built to compare almost everywhere is
// refused, quickly, rather than outlast the hook's deadline.
func TestPlaceCodexBudget(t *testing.T) {
	lines := slices.Repeat([]string{"a"}, 200_000)
	pattern := append(slices.Repeat([]string{"a"}, 1000), "b")
	start := time.Now()
	if _, fail := PlaceCodex(lines, []Hunk{{Old: pattern}}); fail == nil || fail.Kind != "too_large" {
		t.Fatalf("placed: %+v", fail)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

// SeekCodex finds pattern in lines at or after start as Codex's apply_patch
// seeks a chunk: each pass over every position before the next, more
// lenient, pass. With eof only the position that ends at the last line is
// tried, when it is not before start. An empty pattern is found at start.
func SeekCodex(lines, pattern []string, start int, eof bool) (int, bool) {
	at, ok, _ := newCodexSeeker(lines).seek(pattern, start, eof, codexPasses)
	return at, ok
}
