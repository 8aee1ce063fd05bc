package patch_test

import (
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/patch"
)

// applyText parses p (one file) and applies it to text.
func applyText(t *testing.T, text, p string) (string, *patch.Failure) {
	t.Helper()
	fs, err := patch.Parse(p)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, p)
	}
	if len(fs) != 1 {
		t.Fatalf("%d files", len(fs))
	}
	return applyFile(t, text, fs[0])
}

// TestV4ALeniency: what Codex accepts and models write: markers with
// surrounding whitespace, a blank line before *** End Patch, a pure
// addition (appended at the end of the file), *** End of File closing its
// hunk.
func TestV4ALeniency(t *testing.T) {
	cases := []struct{ name, text, patch, want string }{
		{"padded markers", "one\n", " *** Begin Patch\n  *** Update File: f\n@@\n-one\n+two\n *** End Patch \n", "two\n"},
		{"blank line before End Patch", "a\nb\nc\n", "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n\n*** End Patch\n", "a\nB\nc\n"},
		{"pure addition", "line1\nline2\n", "*** Begin Patch\n*** Update File: f\n@@\n+added 1\n+added 2\n*** End Patch\n", "line1\nline2\nadded 1\nadded 2\n"},
		{"pure addition at End of File", "x\n", "*** Begin Patch\n*** Update File: f\n+y\n*** End of File\n*** End Patch\n", "x\ny\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, fail := applyText(t, c.text, c.patch)
			if fail != nil {
				t.Fatalf("refused: %s", fail.Err)
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
	// *** End of File ends its hunk: the lines after it are another hunk.
	fs, err := patch.Parse("*** Begin Patch\n*** Update File: f\n@@\n c\n-d\n+D\n*** End of File\n-a\n+A\n*** End Patch\n")
	if err != nil || len(fs[0].Hunks) != 2 || !fs[0].Hunks[0].EOF || fs[0].Hunks[1].EOF || len(fs[0].Hunks[0].Old) != 2 {
		t.Fatalf("End of File: %v %+v", err, fs)
	}
	// A pure addition after an @@ line would be placed by guesswork: refused,
	// without blaming a line number V4A does not have.
	_, fail := applyText(t, "a\nb\n", "*** Begin Patch\n*** Update File: f\n@@ a\n+x\n*** End Patch\n")
	if fail == nil || strings.Contains(fail.Err.Error(), "line number") {
		t.Fatalf("pure addition after an anchor: %+v", fail)
	}
}

// TestAiderUdiff: aider's unified diffs have `--- path` / `+++ path` and
// `@@ ... @@` hunk headers without line numbers; a hunk runs until a line
// that is no hunk line.
func TestAiderUdiff(t *testing.T) {
	p := "Some text...\n\n```diff\n--- a.py\n+++ a.py\n@@ ... @@\n def f():\n-    return 1\n+    return 2\n\n@@ ... @@\n def g():\n--- x\n+-- y\n```\n\nDone.\n"
	got, fail := applyText(t, "def f():\n    return 1\n\ndef g():\n-- x\n", p)
	if fail != nil {
		t.Fatalf("refused: %s", fail.Err)
	}
	if want := "def f():\n    return 2\n\ndef g():\n-- y\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Two files, the second's header right after the first hunk.
	fs, err := patch.Parse("--- a\n+++ a\n@@ @@\n x\n-y\n+z\n--- b\n+++ b\n@@ @@\n-1\n+2\n")
	if err != nil || len(fs) != 2 || fs[1].Path != "b" || len(fs[0].Hunks[0].Old) != 2 {
		t.Fatalf("two files: %v %+v", err, fs)
	}
	// `--- /dev/null` over count-less hunks with old lines (aider's models
	// write it for any file): the old lines say the file exists, so it is
	// a change of the file, placed exactly as any hunk.
	fs, err = patch.Parse("--- /dev/null\n+++ f\n@@ ... @@\n-Original\n+Modified\n")
	if err != nil || len(fs) != 1 || fs[0].Kind != patch.Modify || fs[0].Path != "f" {
		t.Fatalf("count-less hunks under /dev/null: %v %+v", err, fs)
	}
	if fs, err = patch.Parse("--- /dev/null\n+++ f\n@@ ... @@\n+new\n"); err != nil || len(fs) != 1 || fs[0].Kind != patch.Add {
		t.Fatalf("a count-less new file: %v %+v", err, fs)
	}
	// With line counts (or git's new file mode) the patch says the file is
	// new, and a hunk that removes lines contradicts it.
	for _, bad := range []string{
		"--- /dev/null\n+++ f\n@@ -1 +1 @@\n-Original\n+Modified\n",
		"diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n@@ ... @@\n-Original\n+Modified\n",
	} {
		if _, err := patch.Parse(bad); err == nil {
			t.Fatalf("a new file removing lines parsed: %q", bad)
		}
	}
}

// TestIdenticalHunks: hunks are placed in order, each after the one
// before; among exact places only, the header's line number (shifted by
// the earlier hunks) chooses.
func TestIdenticalHunks(t *testing.T) {
	text := "x\n\tif err != nil {\n\t\treturn err\n\t}\ny\n\tif err != nil {\n\t\treturn err\n\t}\nz\n"
	p := "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@ x\n \tif err != nil {\n-\t\treturn err\n+\t\treturn fmt.Errorf(\"x: %w\", err)\n \t}\n@@ -6,3 +6,3 @@ y\n \tif err != nil {\n-\t\treturn err\n+\t\treturn fmt.Errorf(\"x: %w\", err)\n \t}\n"
	got, fail := applyText(t, text, p)
	if fail != nil {
		t.Fatalf("refused: %s", fail.Err)
	}
	if want := strings.ReplaceAll(text, "return err", "return fmt.Errorf(\"x: %w\", err)"); got != want {
		t.Fatalf("got %q", got)
	}
	// Only the second place: its line number chooses.
	p2 := "--- a/f\n+++ b/f\n@@ -6,3 +6,3 @@ y\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n"
	if got, fail = applyText(t, text, p2); fail != nil || got != "x\n\tif err != nil {\n\t\treturn err\n\t}\ny\n\tif err != nil {\n\t\treturn nil\n\t}\nz\n" {
		t.Fatalf("second place: %q %+v", got, fail)
	}
	// A line number never licenses an inexact match.
	p3 := "--- a/f\n+++ b/f\n@@ -6,3 +6,3 @@ y\n \tif err != nil {\n-\t\treturn  err\n+\t\treturn nil\n \t}\n"
	if _, fail = applyText(t, text, p3); fail == nil || fail.Kind != "whitespace_mismatch" {
		t.Fatalf("inexact at the line number: %+v", fail)
	}
	// Without a line number two exact places stay ambiguous (aider's
	// udiff)...
	p4 := "--- f\n+++ f\n@@ ... @@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n"
	if _, fail = applyText(t, text, p4); fail == nil || fail.Kind != "ambiguous" {
		t.Fatalf("udiff twice: %+v", fail)
	}
	// ... but a V4A chunk goes to the first, as the format defines.
	p5 := "*** Begin Patch\n*** Update File: f\n@@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n*** End Patch\n"
	if got, fail = applyText(t, text, p5); fail != nil || got != strings.Replace(text, "return err", "return nil", 1) {
		t.Fatalf("V4A twice: %q %+v", got, fail)
	}
}

// TestHunkMessages: a hunk's diagnosis speaks of hunks, not edit blocks,
// and leaves the path to the answer.
func TestHunkMessages(t *testing.T) {
	_, fail := applyText(t, "a\nb\nc\n", "--- a/w.py\n+++ b/w.py\n@@ -1,2 +1,2 @@\n a\n-B\n+x\n")
	if fail == nil {
		t.Fatal("applied")
	}
	msg := fail.Err.Error()
	for _, bad := range []string{"EDIT", "the block", "w.py"} {
		if strings.Contains(msg, bad) {
			t.Fatalf("message says %q: %s", bad, msg)
		}
	}
	if !strings.Contains(msg, "hunk 1") {
		t.Fatalf("message does not name the hunk: %s", msg)
	}
}

// TestLaterHunkDiagnosedWhereItGoes: a hunk that does not apply after the
// hunk before it is diagnosed there, in the file's line numbers, even when
// its lines occur exactly before (where the earlier hunk is).
func TestLaterHunkDiagnosedWhereItGoes(t *testing.T) {
	text := "key one\nvalue one\nkey one\nvalue two\n"
	p := "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n key one\n-value one\n+VALUE\n@@ -3,2 +3,2 @@\n key one\n-value one\n+OTHER\n"
	_, fail := applyText(t, text, p)
	if fail == nil || fail.Hunk != 1 || fail.Kind != "near_match" || fail.Line != 3 || !strings.Contains(fail.Err.Error(), "line 4") {
		t.Fatalf("%+v", fail)
	}
}
