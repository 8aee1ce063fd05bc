package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPatchCLI: a two-file patch applies whole after the files were read; a
// patch with one bad file writes nothing; an unread hunk is refused by the
// guard; V4A adds and updates.
func TestPatchCLI(t *testing.T) {
	a := "package a\n\nfunc A() int {\n\treturn 1\n}\n"
	b := "package b\r\n\r\nfunc B() int {\r\n\treturn 2\r\n}\r\n"
	c := newCLI(t, map[string]string{"a.go": a, "b.go": b})
	diff := `diff --git a/a.go b/a.go
--- a/a.go
+++ b/a.go
@@ -3,3 +3,3 @@
 func A() int {
-	return 1
+	return 10
 }
diff --git a/b.go b/b.go
--- a/b.go
+++ b/b.go
@@ -3,3 +3,3 @@
 func B() int {
-	return 2
+	return 20
 }
`
	// Nothing read yet: the guard refuses, nothing is written (the refusal
	// shows the lines, which then count as read).
	if out, errOut, code := c.run(diff, "patch"); code != 1 || !strings.Contains(out+errOut, "unread_range") {
		t.Fatalf("unread patch: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "a.go")); string(got) != a {
		t.Fatalf("a.go written by a refused patch: %q", got)
	}
	c.run("", "read", "a.go")
	c.run("", "read", "b.go")
	// One file does not apply: all or none.
	bad := strings.Replace(diff, " func B() int {", " func B() string {", 1)
	if out, errOut, code := c.run(bad, "patch"); code != 1 || !strings.Contains(out+errOut, "[skipped] a.go") {
		t.Fatalf("half-good patch: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "a.go")); string(got) != a {
		t.Fatalf("a.go written by a refused patch: %q", got)
	}
	if out, errOut, code := c.run(diff, "patch", "--dry-run"); code != 0 || !strings.Contains(out, "[validated] a.go") {
		t.Fatalf("dry run: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "b.go")); string(got) != b {
		t.Fatal("dry run wrote")
	}
	if out, errOut, code := c.run(diff, "patch"); code != 0 || !strings.Contains(out, "[applied] b.go") {
		t.Fatalf("patch: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "a.go")); string(got) != strings.Replace(a, "return 1", "return 10", 1) {
		t.Fatalf("a.go: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "b.go")); string(got) != strings.Replace(b, "return 2", "return 20", 1) {
		t.Fatalf("b.go lost its CRLF: %q", got)
	}
	// The same patch again: its old lines are gone; refused, names the hunk.
	if out, errOut, code := c.run(diff, "patch"); code != 1 || !strings.Contains(out+errOut, "hunk 1") {
		t.Fatalf("stale patch: %d\n%s%s", code, out, errOut)
	}
	v4a := "*** Begin Patch\n*** Add File: c.go\n+package c\n*** Update File: a.go\n@@ func A() int {\n-\treturn 10\n+\treturn 100\n*** End Patch\n"
	if out, errOut, code := c.run(v4a, "patch"); code != 0 {
		t.Fatalf("v4a: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "c.go")); string(got) != "package c\n" {
		t.Fatalf("c.go: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "a.go")); !strings.Contains(string(got), "return 100") {
		t.Fatalf("a.go after v4a: %q", got)
	}
}

// TestPatchMergeCLI: a hunk that no longer applies comes back with fresh
// refs and a merge proposal; --merge without anyone to approve (no terminal,
// no --yes) writes nothing; --merge --yes applies the merge exactly.
func TestPatchMergeCLI(t *testing.T) {
	a := "package a\n\n// A returns one.\nfunc A() int {\n\treturn 1\n}\n"
	c := newCLI(t, map[string]string{"a.go": a})
	c.run("", "read", "a.go")
	// Made when the comment said "A returns 1.".
	p := "--- a/a.go\n+++ b/a.go\n@@ -3,4 +3,4 @@\n // A returns 1.\n func A() int {\n-\treturn 1\n+\treturn 2\n }\n"
	out, errOut, code := c.run(p, "patch")
	if code != 1 || !strings.Contains(out+errOut, "hunk 1") || !strings.Contains(out+errOut, "5:") || !strings.Contains(out+errOut, "|\treturn 1") || !strings.Contains(out+errOut, "three-way merge") {
		t.Fatalf("conflict: %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = c.run(p, "patch", "--merge")
	if code != 1 {
		t.Fatalf("merge without approval: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "a.go")); string(got) != a {
		t.Fatalf("written without approval: %q", got)
	}
	out, errOut, code = c.run(p, "patch", "--merge", "--yes")
	if code != 0 {
		t.Fatalf("approved merge: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "a.go")); string(got) != strings.Replace(a, "return 1", "return 2", 1) {
		t.Fatalf("merged: %q", got)
	}
}

// TestPatchFindingsCLI: what applying real commits found, through the
// CLI (and the daemon it starts): an empty file's deletion is a file
// operation of its own; a new file keeps its patch's CRLFs; a patch made of
// a Latin-1 file's raw bytes is refused saying it is not UTF-8.
func TestPatchFindingsCLI(t *testing.T) {
	c := newCLI(t, map[string]string{"a.py": "", "b.py": "x = 1\n", "m.txt": "Caf\xe9 au lait\n", ".editorconfig": "[*.txt]\ncharset = latin1\n"})
	for _, f := range []string{"a.py", "b.py", "m.txt"} {
		c.run("", "read", f)
	}
	if out, errOut, code := c.run("--- a/a.py\n+++ /dev/null\n@@ ... @@\n--- a/b.py\n+++ /dev/null\n@@ ... @@\n-x = 1\n", "patch"); code != 0 || !strings.Contains(out, "2 files") {
		t.Fatalf("deletions: %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"a.py", "b.py"} {
		if _, err := os.Stat(filepath.Join(c.dir, f)); !os.IsNotExist(err) {
			t.Fatalf("%s not deleted: %v", f, err)
		}
	}
	if out, errOut, code := c.run("diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+p\r\n+q\r\n", "patch"); code != 0 {
		t.Fatalf("CRLF new file: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "n.txt")); string(got) != "p\r\nq\r\n" {
		t.Fatalf("n.txt: %q", got)
	}
	out, errOut, code := c.run("--- a/m.txt\n+++ b/m.txt\n@@ -1 +1 @@\n-Caf\xe9 au lait\n+Caf\xe9 noir\n", "patch")
	if code != 1 || !strings.Contains(out+errOut, "not UTF-8") || !strings.Contains(out+errOut, "ISO-8859-1") {
		t.Fatalf("Latin-1 bytes: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "m.txt")); string(got) != "Caf\xe9 au lait\n" {
		t.Fatalf("m.txt: %q", got)
	}
}
