package patch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/patch"
)

// sections says what each file patch does: "kind path[>newpath] hunks".
func sections(fs []patch.File) string {
	var b strings.Builder
	for _, f := range fs {
		p := f.Path
		if f.NewPath != "" {
			p += ">" + f.NewPath
		}
		fmt.Fprintf(&b, "%s %s %d;", f.Kind, p, len(f.Hunks))
	}
	return b.String()
}

// TestEverySectionIsAFile: every header pair (--- +++) or git header is a
// file operation of its own, with or without hunks: a section without
// hunks never lends its kind to the next file nor takes the next file's
// path. Without hunks, /dev/null on either side creates or deletes an
// (empty) file, and two different names rename it.
func TestEverySectionIsAFile(t *testing.T) {
	cases := []struct{ name, patch, want string }{
		{"aider: empty deleted, then a deletion", "--- a/a.py\n+++ /dev/null\n@@ ... @@\n--- a/b.py\n+++ /dev/null\n@@ ... @@\n-x = 1\n",
			"delete a.py 0;delete b.py 1;"},
		{"aider: empty deleted, then a change", "--- a/a.py\n+++ /dev/null\n@@ ... @@\n--- a/b.py\n+++ b/b.py\n@@ ... @@\n-x = 1\n+x = 2\n",
			"delete a.py 0;modify b.py 1;"},
		{"no @@ at all: empty deleted, then a change", "--- a/a.py\n+++ /dev/null\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
			"delete a.py 0;modify b.py 1;"},
		{"empty file created, then a change", "--- /dev/null\n+++ b/empty.py\n--- a/b.py\n+++ b/b.py\n@@ ... @@\n-x = 1\n+x = 2\n",
			"add empty.py 0;modify b.py 1;"},
		{"aider: empty file created last", "--- a/b.py\n+++ b/b.py\n@@ ... @@\n-x = 1\n+x = 2\n--- /dev/null\n+++ b/empty.py\n@@ ... @@\n",
			"modify b.py 1;add empty.py 0;"},
		{"empty file renamed, no hunk", "--- a/pkg/__init__.py\n+++ b/lib/__init__.py\n--- a/b.py\n+++ b/b.py\n@@ ... @@\n-x = 1\n+x = 2\n",
			"modify pkg/__init__.py>lib/__init__.py 0;modify b.py 1;"},
		{"aider: empty file renamed, empty @@", "--- pkg/__init__.py\n+++ lib/__init__.py\n@@ ... @@\n",
			"modify pkg/__init__.py>lib/__init__.py 0;"},
		{"diff -u of two names with hunks: the new name is the file", "--- f.orig\t2024-01-01\n+++ f\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n",
			"modify f 1;"},
		{"git: rename, then a hand-written section", "diff --git a/pkg/__init__.py b/lib/__init__.py\nsimilarity index 100%\nrename from pkg/__init__.py\nrename to lib/__init__.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
			"modify pkg/__init__.py>lib/__init__.py 0;modify b.py 1;"},
		{"git: empty new and deleted files", "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\nindex e69de29..0000000\ndiff --git a/new.py b/new.py\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
			"delete gone.py 0;add new.py 0;modify b.py 1;"},
		{"git: empty file renamed among changes", "diff --git a/b.py b/b.py\nindex 1..2 100644\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\ndiff --git a/pkg/__init__.py b/lib/__init__.py\nsimilarity index 100%\nrename from pkg/__init__.py\nrename to lib/__init__.py\n",
			"modify b.py 1;modify pkg/__init__.py>lib/__init__.py 0;"},
		{"deleted, non-empty, no hunk", "--- a/c.py\n+++ /dev/null\n", "delete c.py 0;"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, err := patch.Parse(c.patch)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got := sections(fs); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	// What says nothing is refused, not dropped: a header pair of one name
	// without hunks, a --- line without its +++ line.
	for _, p := range []string{
		"--- a/a.py\n+++ b/a.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
		"--- a/a.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
		"--- /dev/null\n",
		"--- /dev/null\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
	} {
		if fs, err := patch.Parse(p); err == nil {
			t.Errorf("%q: no error: %s", p, sections(fs))
		}
	}
}
