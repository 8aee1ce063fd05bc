package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPatchWholeOrNothing: the rules a patch is checked by before anything
// is written, each in a workspace of its own (one binary for all).
func TestPatchWholeOrNothing(t *testing.T) {
	base := newCLI(t, nil)
	for name, f := range map[string]func(*testing.T, *cli){
		"deletion":      patchDeleteMatchesFile,
		"links":         patchLinkDeleteRename,
		"all or none":   patchAllOrNone,
		"modes, binary": patchModeAndBinary,
		"empty":         patchEmptyRefused,
	} {
		t.Run(name, func(t *testing.T) { f(t, base) })
	}
}

// patchDeleteMatchesFile: a deletion's removed lines must be the file:
// other lines are refused and the file stays; its own lines delete it.
func patchDeleteMatchesFile(t *testing.T, base *cli) {
	c := base.fresh(t, map[string]string{"keep.txt": "keep\nthis\nimportant\n"})
	c.run("", "read", "keep.txt")
	lie := "--- a/keep.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-totally\n-different\n"
	if out, errOut, code := c.run(lie, "patch"); code != 1 || !strings.Contains(out+errOut, "no_match") {
		t.Fatalf("a deletion of other lines: %d\n%s%s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(c.dir, "keep.txt")); err != nil || string(got) != "keep\nthis\nimportant\n" {
		t.Fatalf("keep.txt after a refused deletion: %q %v", got, err)
	}
	short := "--- a/keep.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-keep\n-this\n"
	if out, errOut, code := c.run(short, "patch"); code != 1 {
		t.Fatalf("a deletion of part of the file: %d\n%s%s", code, out, errOut)
	}
	real := "--- a/keep.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-keep\n-this\n-important\n"
	if out, errOut, code := c.run(real, "patch"); code != 0 {
		t.Fatalf("the deletion of the file: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "keep.txt")); !os.IsNotExist(err) {
		t.Fatalf("keep.txt not deleted: %v", err)
	}
}

// patchLinkDeleteRename: deleting or renaming a symbolic link by patch
// is refused; the file it points to stays where it is.
func patchLinkDeleteRename(t *testing.T, base *cli) {
	body := "package src\n"
	c := base.fresh(t, map[string]string{"src/important.go": body, "docs/x": ""})
	if err := os.Symlink("../src/important.go", filepath.Join(c.dir, "docs/readme.md")); err != nil {
		t.Fatal(err)
	}
	c.run("", "read", "docs/readme.md")
	for _, p := range []string{
		"--- a/docs/readme.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-package src\n",
		"*** Begin Patch\n*** Delete File: docs/readme.md\n*** End Patch\n",
		"diff --git a/docs/readme.md b/docs/moved.md\nsimilarity index 100%\nrename from docs/readme.md\nrename to docs/moved.md\n",
	} {
		out, errOut, code := c.run(p, "patch")
		if code != 1 || !strings.Contains(out+errOut, "symbolic link") {
			t.Fatalf("patch of a link: %d\n%s%s", code, out, errOut)
		}
		if got, err := os.ReadFile(filepath.Join(c.dir, "src/important.go")); err != nil || string(got) != body {
			t.Fatalf("the link's target after %q: %q %v", p, got, err)
		}
		if fi, err := os.Lstat(filepath.Join(c.dir, "docs/readme.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link after %q: %v", p, err)
		}
	}
}

// patchAllOrNone: a patch one of whose files breaks a rule found only
// when it is written (a rename into .git, into a folder that is a file, two
// sections of one file that conflict) is refused whole: no file changes,
// and the answer names the rule.
func patchAllOrNone(t *testing.T, base *cli) {
	a, b := "alpha\n", "one\ntwo\nthree\n"
	modB := "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
	renameA := func(to string) string {
		return "diff --git a/a.txt b/" + to + "\nsimilarity index 100%\nrename from a.txt\nrename to " + to + "\n"
	}
	modA := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n"
	for _, tc := range []struct{ name, patch, want string }{
		{"into .git", modB + renameA(".git/info/x"), "denied"},
		{"under a file", modB + renameA("f.txt/new.txt"), "not a directory"},
		{"patched and renamed into .git", modB + "diff --git a/a.txt b/.git/info/x\nrename from a.txt\nrename to .git/info/x\n--- a/a.txt\n+++ b/.git/info/x\n@@ -1 +1 @@\n-alpha\n+ALPHA\n", "denied"},
		{"two conflicting sections", modB + modA + modA, "hunk 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base.fresh(t, map[string]string{"a.txt": a, "b.txt": b, "f.txt": "file\n"})
			os.MkdirAll(filepath.Join(c.dir, ".git/info"), 0o755)
			c.run("", "read", "a.txt")
			c.run("", "read", "b.txt")
			out, errOut, code := c.run(tc.patch, "patch")
			if code != 1 || !strings.Contains(out+errOut, tc.want) || strings.Contains(out+errOut, "while the patch was being written") {
				t.Fatalf("%d\n%s%s", code, out, errOut)
			}
			for name, want := range map[string]string{"a.txt": a, "b.txt": b} {
				if got, err := os.ReadFile(filepath.Join(c.dir, name)); err != nil || string(got) != want {
					t.Fatalf("%s after a refused patch: %q %v", name, got, err)
				}
			}
			if _, err := os.Stat(filepath.Join(c.dir, ".git/info/x")); err == nil {
				t.Fatal(".git/info/x written")
			}
		})
	}
	// Two sections of one file that follow each other apply in sequence.
	c := base.fresh(t, map[string]string{"b.txt": b})
	c.run("", "read", "b.txt")
	seq := modB + "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n TWO\n-three\n+THREE\n"
	if out, errOut, code := c.run(seq, "patch"); code != 0 {
		t.Fatalf("two sections in sequence: %d\n%s%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "b.txt")); string(got) != "one\nTWO\nTHREE\n" {
		t.Fatalf("b.txt: %q", got)
	}
}

// patchModeAndBinary: a mode change is applied with the file's text
// (or alone), in the same write; a binary patch is refused as binary.
func patchModeAndBinary(t *testing.T, base *cli) {
	c := base.fresh(t, map[string]string{"run.sh": "echo hi\n", "x.sh": "a\n"})
	c.run("", "read", "x.sh")
	p := "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 100755\n--- a/x.sh\n+++ b/x.sh\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/n.sh b/n.sh\nnew file mode 100755\n--- /dev/null\n+++ b/n.sh\n@@ -0,0 +1 @@\n+echo new\n"
	if out, errOut, code := c.run(p, "patch"); code != 0 {
		t.Fatalf("mode patch: %d\n%s%s", code, out, errOut)
	}
	for _, n := range []string{"run.sh", "x.sh", "n.sh"} {
		fi, err := os.Stat(filepath.Join(c.dir, n))
		if err != nil || fi.Mode().Perm()&0o111 != 0o111 {
			t.Fatalf("%s is not executable: %v %v", n, fi.Mode(), err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "x.sh")); string(got) != "b\n" {
		t.Fatalf("x.sh: %q", got)
	}
	bin := "diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nMc${NkU|`gU00XQ5k^lez\n\nliteral 0\nHcmV?d00001\n\n"
	if out, errOut, code := c.run(bin, "patch"); code != 1 || !strings.Contains(out+errOut, "binary") || strings.Contains(out+errOut, "no hunks") {
		t.Fatalf("binary patch: %d\n%s%s", code, out, errOut)
	}
}

// patchEmptyRefused: a patch that changes no file is refused, not
// answered "applied to 0 files".
func patchEmptyRefused(t *testing.T, base *cli) {
	c := base.fresh(t, nil)
	out, errOut, code := c.run("*** Begin Patch\n*** End Patch\n", "patch")
	if code == 0 || !strings.Contains(out+errOut, "no file") {
		t.Fatalf("empty patch: %d\n%s%s", code, out, errOut)
	}
}

// fresh is a new workspace holding files, run by the same binary.
func (c *cli) fresh(t *testing.T, files map[string]string) *cli {
	d := *c
	d.t, d.dir, d.cwd = t, t.TempDir(), ""
	os.Mkdir(filepath.Join(d.dir, ".git"), 0o755)
	for name, text := range files {
		p := filepath.Join(d.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	d.env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	return &d
}
