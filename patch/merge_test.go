package patch_test

import (
	"testing"

	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/textdoc"
)

func mergeFile(t *testing.T, text, p string) (string, []patch.Merged, *patch.Failure) {
	t.Helper()
	files, err := patch.Parse(p)
	if err != nil || len(files) != 1 {
		t.Fatalf("parse: %v %d", err, len(files))
	}
	s := textdoc.New(text)
	plan, _, merged, fail := patch.MergePlan(s, files[0], s.Dominant())
	if fail != nil {
		return "", nil, fail
	}
	next, _, err := plan.Apply(s)
	if err != nil {
		t.Fatal(err)
	}
	return next.Text(), merged, nil
}

// TestMergePlan: a hunk whose context the file changed since the patch was
// made merges when the rest still occurs once; a hunk whose removed lines
// changed, or whose remaining context is ambiguous, does not.
func TestMergePlan(t *testing.T) {
	p := "--- a/f\n+++ b/f\n@@ -2,5 +2,5 @@\n b\n c\n-d\n+D\n e\n f\n"
	// The file moved on: line c became C (the patch's context).
	cur := "a\nb\nC\nd\ne\nf\ng\n"
	if _, fail := applyFileText(t, cur, p); fail == nil {
		t.Fatal("exact apply should fail")
	}
	got, merged, fail := mergeFile(t, cur, p)
	if fail != nil || got != "a\nb\nC\nD\ne\nf\ng\n" || len(merged) != 1 || merged[0].Lead != 2 {
		t.Fatalf("merge: %q %+v %v", got, merged, fail)
	}
	// A trailing context line changed.
	got, _, fail = mergeFile(t, "a\nb\nc\nd\ne\nF\ng\n", p)
	if fail != nil || got != "a\nb\nc\nD\ne\nF\ng\n" {
		t.Fatalf("trailing: %q %v", got, fail)
	}
	// The removed line itself changed: a real conflict.
	if _, _, fail := mergeFile(t, "a\nb\nC\nd2\ne\nf\ng\n", p); fail == nil {
		t.Fatal("conflict merged")
	}
	// Every context line changed: nothing left to place it by.
	if _, _, fail := mergeFile(t, "a\nB\nC\nd\nE\nF\ng\n", p); fail == nil {
		t.Fatal("merged without context")
	}
	// What remains occurs twice: ambiguous, no merge.
	if _, _, fail := mergeFile(t, "d\ne\nf\nb\nC\nd\ne\nf\n", p); fail == nil {
		t.Fatal("ambiguous merged")
	}
}

func applyFileText(t *testing.T, text, p string) (string, *patch.Failure) {
	files, err := patch.Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	return applyFile(t, text, files[0])
}
