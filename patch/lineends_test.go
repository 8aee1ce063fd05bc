package patch_test

import (
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/patch"
)

// TestNewFileLineBreaks: a new file is written with the line breaks its
// patch gives its lines, byte for byte, as git apply writes it; a patch
// whose lines carry no CR leaves the line break to the caller (the
// workspace's .editorconfig).
func TestNewFileLineBreaks(t *testing.T) {
	const git = "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n"
	cases := []struct{ name, patch, eol, want string }{
		{"format-patch of a CRLF file", git + "@@ -0,0 +1,2 @@\n+p\r\n+q\r\n", "\n", "p\r\nq\r\n"},
		{"CRLF lines win over the caller's", git + "@@ -0,0 +1,2 @@\n+p\r\n+q\r\n", "\r", "p\r\nq\r\n"},
		{"the whole patch CRLF", "--- /dev/null\r\n+++ b/n.txt\r\n@@ -0,0 +1,2 @@\r\n+p\r\n+q\r\n", "\n", "p\r\nq\r\n"},
		{"LF lines: the caller's line break", git + "@@ -0,0 +1,2 @@\n+p\n+q\n", "\r\n", "p\r\nq\r\n"},
		{"LF lines, LF", git + "@@ -0,0 +1,2 @@\n+p\n+q\n", "\n", "p\nq\n"},
		{"mixed, as the patch has them", git + "@@ -0,0 +1,3 @@\n+p\r\n+q\n+r\r\n", "\n", "p\r\nq\nr\r\n"},
		{"no newline at the end after a CRLF line: the CR stays", git + "@@ -0,0 +1,2 @@\n+p\r\n+q\r\n\\ No newline at end of file\n", "\n", "p\r\nq\r"},
		{"no newline at the end, LF", git + "@@ -0,0 +1,2 @@\n+p\n+q\n\\ No newline at end of file\n", "\r\n", "p\r\nq"},
		{"a CR inside a line is its content", git + "@@ -0,0 +1 @@\n+a\rb\r\n", "\n", "a\rb\r\n"},
		{"a lone CR line is an empty line", git + "@@ -0,0 +1,2 @@\n+\r\n+x\r\n", "\n", "\r\nx\r\n"},
		{"V4A", "*** Begin Patch\n*** Add File: n.txt\n+p\r\n+q\r\n*** End Patch\n", "\n", "p\r\nq\r\n"},
		{"aider: two hunks of a new file", "--- /dev/null\n+++ n.txt\n@@ ... @@\n+p\n@@ ... @@\n+q\n", "\n", "p\nq\n"},
		{"empty", git, "\r\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, err := patch.Parse(c.patch)
			if err != nil || len(fs) != 1 || fs[0].Kind != patch.Add {
				t.Fatalf("parse: %v %+v", err, fs)
			}
			if got := fs[0].Text(c.eol); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestCRLFPatchesMatch: a line's CR is part of its line break, never of its
// content: a patch with CRLF lines and one whose CRs were stripped (as
// agents strip them) both apply to a CRLF file and to an LF file, and the
// lines they add take the file's own line break.
func TestCRLFPatchesMatch(t *testing.T) {
	for _, c := range []struct{ name, text, patch, want string }{
		{"CRLF patch, CRLF file", "a\r\nb\r\nc\r\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n", "a\r\nB\r\nc\r\n"},
		{"LF patch, CRLF file", "a\r\nb\r\nc\r\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\r\nB\r\nc\r\n"},
		{"CRLF patch, LF file", "a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n", "a\nB\nc\n"},
		{"aider, CRLF patch, CRLF file", "a\r\nb\r\n", "--- f\r\n+++ f\r\n@@ ... @@\r\n a\r\n-b\r\n+B\r\n", "a\r\nB\r\n"},
		{"V4A, CRLF patch, CRLF file", "a\r\nb\r\n", "*** Begin Patch\r\n*** Update File: f\r\n@@\r\n a\r\n-b\r\n+B\r\n*** End Patch\r\n", "a\r\nB\r\n"},
		{"no newline at the end after a CRLF line", "a\r\nb", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\n\\ No newline at end of file\n+B\r\n", "a\r\nB\r\n"},
	} {
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
}

// TestCRInsideALine: a carriage return inside a line of a hunk ends a line
// as the file's reader sees it: refused, in the words of a hunk, showing
// the line.
func TestCRInsideALine(t *testing.T) {
	_, fail := applyText(t, "y=2\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-y\r=2\n+z\n")
	if fail == nil || !strings.Contains(fail.Err.Error(), "the hunk") || !strings.Contains(fail.Err.Error(), `"y\r=2"`) {
		t.Fatalf("%+v", fail)
	}
}
