package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// patchTree applies text in a workspace holding files (every file read
// whole, as the guard wants) and returns the answer and the files after.
func patchTree(t *testing.T, files map[string]string, text string) (engine.PatchResult, map[string]string) {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	c := engine.Caller{Session: "s"}
	for name := range files {
		env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, filepath.FromSlash(name))))}})
	}
	r, err := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return r, confTree(t, root)
}

// TestPatchSectionsWithoutHunks: every section of a patch is a file
// operation on disk, with or without hunks, in aider's udiff and in git's
// format: an empty file deleted, created, renamed, beside other changes.
func TestPatchSectionsWithoutHunks(t *testing.T) {
	start := map[string]string{"a.py": "", "b.py": "x = 1\n", "pkg/__init__.py": ""}
	cases := []struct {
		name, patch string
		want        map[string]string
	}{
		{"aider: two deletions, the first of an empty file", "--- a/a.py\n+++ /dev/null\n@@ ... @@\n--- a/b.py\n+++ /dev/null\n@@ ... @@\n-x = 1\n",
			map[string]string{"pkg/__init__.py": ""}},
		{"aider: an empty file deleted, then a change", "--- a/a.py\n+++ /dev/null\n@@ ... @@\n--- a/b.py\n+++ b/b.py\n@@ ... @@\n-x = 1\n+x = 2\n",
			map[string]string{"b.py": "x = 2\n", "pkg/__init__.py": ""}},
		{"aider: an empty file renamed, then a change", "--- a/pkg/__init__.py\n+++ b/lib/__init__.py\n@@ ... @@\n--- a/b.py\n+++ b/b.py\n@@ ... @@\n-x = 1\n+x = 2\n",
			map[string]string{"a.py": "", "b.py": "x = 2\n", "lib/__init__.py": ""}},
		{"git: an empty file renamed after a change", "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\ndiff --git a/pkg/__init__.py b/lib/__init__.py\nsimilarity index 100%\nrename from pkg/__init__.py\nrename to lib/__init__.py\n",
			map[string]string{"a.py": "", "b.py": "x = 2\n", "lib/__init__.py": ""}},
		{"git: empty files deleted and created", "diff --git a/a.py b/a.py\ndeleted file mode 100644\nindex e69de29..0000000\ndiff --git a/new.py b/new.py\nnew file mode 100644\nindex 0000000..e69de29\n",
			map[string]string{"b.py": "x = 1\n", "new.py": "", "pkg/__init__.py": ""}},
		{"aider: an empty file created, then a change", "--- /dev/null\n+++ b/empty.py\n@@ ... @@\n--- a/b.py\n+++ b/b.py\n@@ ... @@\n-x = 1\n+x = 2\n",
			map[string]string{"a.py": "", "b.py": "x = 2\n", "empty.py": "", "pkg/__init__.py": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, got := patchTree(t, start, c.patch)
			if !r.OK {
				t.Fatalf("refused: %+v", r)
			}
			if len(r.Files) != 2 { // every case has two sections
				t.Fatalf("%d files in the answer: %+v", len(r.Files), r.Files)
			}
			for _, f := range r.Files {
				if strings.Contains(f.Diff, "@@ -0,0 +0,0 @@") {
					t.Fatalf("%s: a diff of nothing: %q", f.Path, f.Diff)
				}
			}
			if !sameTree(got, c.want) {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestPatchDeletionWithoutLines: a section that deletes a file without
// listing its lines (git's "deleted file mode" alone, aider's +++ /dev/null
// with no hunk) is guarded as V4A's *** Delete File: every line of the
// file read, else refused and nothing written.
func TestPatchDeletionWithoutLines(t *testing.T) {
	ctx := context.Background()
	for _, text := range []string{
		"--- a/c.py\n+++ /dev/null\n",
		"--- a/c.py\n+++ /dev/null\n@@ ... @@\n",
		"diff --git a/c.py b/c.py\ndeleted file mode 100644\n",
		"*** Begin Patch\n*** Delete File: c.py\n*** End Patch\n",
	} {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, "c.py"), []byte("one\ntwo\n"), 0o644)
		env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
		c := engine.Caller{Session: "s"}
		uri := engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "c.py")))}
		env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: uri, Range: &ledger.Range{Start: 1, End: 1}})
		r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: text})
		if r.OK {
			t.Fatalf("%q: half read, deleted: %+v", text, r)
		}
		if _, err := os.Stat(filepath.Join(root, "c.py")); err != nil {
			t.Fatalf("%q: refused, yet: %v", text, err)
		}
		env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: uri})
		if r, _ = env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: text}); !r.OK {
			t.Fatalf("%q: read whole, refused: %+v", text, r)
		}
		if _, err := os.Stat(filepath.Join(root, "c.py")); !os.IsNotExist(err) {
			t.Fatalf("%q: not deleted: %v", text, err)
		}
		env.Close(ctx)
	}
}

// TestPatchLineBreaks: a new file is written with the line breaks of its
// patch's lines (as git apply writes it), or, when they carry no CR, with
// the end_of_line .editorconfig declares for it; an existing file keeps its
// own line breaks, whatever the patch's lines carry.
func TestPatchLineBreaks(t *testing.T) {
	const newFile = "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n"
	ec := "root = true\n[*.txt]\nend_of_line = CRLF\n[*.md]\nend_of_line = lf\n"
	cases := []struct {
		name  string
		files map[string]string
		patch string
		path  string
		want  string
	}{
		{"format-patch: CRLF lines", nil, newFile + "+p\r\n+q\r\n", "n.txt", "p\r\nq\r\n"},
		{"LF lines, no .editorconfig", nil, newFile + "+p\n+q\n", "n.txt", "p\nq\n"},
		{"LF lines, .editorconfig crlf", map[string]string{".editorconfig": ec}, newFile + "+p\n+q\n", "n.txt", "p\r\nq\r\n"},
		{"LF lines, .editorconfig of a folder above", map[string]string{".editorconfig": ec}, "--- /dev/null\n+++ b/sub/n.txt\n@@ -0,0 +1 @@\n+p\n", "sub/n.txt", "p\r\n"},
		{"LF lines, .editorconfig lf for that file", map[string]string{".editorconfig": ec}, "--- /dev/null\n+++ b/n.md\n@@ -0,0 +1 @@\n+p\n", "n.md", "p\n"},
		{"CRLF lines win over .editorconfig", map[string]string{".editorconfig": ec}, "--- /dev/null\n+++ b/n.md\n@@ -0,0 +1 @@\n+p\r\n", "n.md", "p\r\n"},
		{"aider: a new file in two hunks", nil, "--- /dev/null\n+++ n.txt\n@@ ... @@\n+p\n@@ ... @@\n+q\n", "n.txt", "p\nq\n"},
		{"V4A, .editorconfig crlf", map[string]string{".editorconfig": ec}, "*** Begin Patch\n*** Add File: n.txt\n+p\n*** End Patch\n", "n.txt", "p\r\n"},
		{"CRLF file, LF patch", map[string]string{"w.txt": "a\r\nb\r\n"}, "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,3 @@\n a\n-b\n+B\n+c\n", "w.txt", "a\r\nB\r\nc\r\n"},
		{"CRLF file, CRLF patch", map[string]string{"w.txt": "a\r\nb\r\n"}, "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,3 @@\n a\r\n-b\r\n+B\r\n+c\r\n", "w.txt", "a\r\nB\r\nc\r\n"},
		{"LF file, CRLF patch", map[string]string{"w.txt": "a\nb\n"}, "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,3 @@\n a\r\n-b\r\n+B\r\n+c\r\n", "w.txt", "a\nB\nc\n"},
		{"LF file under .editorconfig crlf, LF patch: the file's own", map[string]string{".editorconfig": ec, "w.txt": "a\nb\n"}, "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n", "w.txt", "a\nB\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, got := patchTree(t, c.files, c.patch)
			if !r.OK {
				t.Fatalf("refused: %+v", r)
			}
			if got[c.path] != c.want {
				t.Fatalf("%s: got %q, want %q", c.path, got[c.path], c.want)
			}
		})
	}
}
