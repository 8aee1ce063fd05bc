package patch_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/textdoc"
)

// applyFile applies one file patch to text through the plan, as the write
// transaction does.
func applyFile(t *testing.T, text string, f patch.File) (string, *patch.Failure) {
	t.Helper()
	s := textdoc.New(text)
	plan, _, fail := patch.Plan(s, f, s.Dominant())
	if fail != nil {
		return "", fail
	}
	next, _, err := plan.Apply(s)
	if err != nil {
		t.Fatalf("plan does not apply: %v", err)
	}
	return next.Text(), nil
}

// gitDiff is what git itself writes for old → new.
func gitDiff(t *testing.T, dir, old, new string, context int) string {
	t.Helper()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte(old), 0o644)
	os.WriteFile(b, []byte(new), 0o644)
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", fmt.Sprintf("-U%d", context), "a.txt", "b.txt")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("git diff: %v", err)
	}
	return string(out)
}

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// TestGitDiffRoundTrip: for random files and random edits, the unified diff
// git writes applies back to exactly the new text (git's own a/ b/ names:
// the test applies the file patch to the old text whatever it is called).
func TestGitDiffRoundTrip(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	pool := []string{"}", "", "\treturn nil", "if err != nil {", "\tx := 1", "// note", "func f() {", "é😀"}
	rng := rand.New(rand.NewPCG(7, 7))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	for c := 0; c < cases; c++ {
		term := []string{"\n", "\r\n"}[rng.IntN(2)]
		n := 1 + rng.IntN(40)
		var oldL []string
		for i := 0; i < n; i++ {
			oldL = append(oldL, pool[rng.IntN(len(pool))]+fmt.Sprint(rng.IntN(4)))
		}
		newL := mutate(rng, oldL, pool)
		old := strings.Join(oldL, term) + term
		nw := strings.Join(newL, term)
		if len(newL) > 0 {
			nw += term
		}
		if rng.IntN(4) == 0 && len(newL) > 0 {
			nw = strings.TrimSuffix(nw, term) // no final newline
		}
		if old == nw {
			continue
		}
		ctx := 1 + rng.IntN(3)
		diff := gitDiff(t, dir, old, nw, ctx)
		files, err := patch.Parse(diff)
		if err != nil {
			t.Fatalf("case %d: parse: %v\n%s", c, err, diff)
		}
		if len(files) != 1 {
			t.Fatalf("case %d: %d files", c, len(files))
		}
		got, fail := applyFile(t, old, files[0])
		if fail != nil {
			// Only a hunk whose context occurs twice may be refused
			// (git chooses by line number; sightline never does).
			if fail.Kind != "ambiguous" {
				t.Fatalf("case %d: refused %s: %v\n%s", c, fail.Kind, fail.Err, diff)
			}
			continue
		}
		if got != nw {
			t.Fatalf("case %d: applied\n%q\nwant\n%q\ndiff:\n%s", c, got, nw, diff)
		}
	}
}

// mutate returns a copy of ls with a few random line changes.
func mutate(rng *rand.Rand, ls, pool []string) []string {
	out := append([]string(nil), ls...)
	for k := 1 + rng.IntN(4); k > 0; k-- {
		i := rng.IntN(len(out) + 1)
		switch rng.IntN(3) {
		case 0:
			out = append(out[:i], append([]string{pool[rng.IntN(len(pool))] + "+"}, out[i:]...)...)
		case 1:
			if i < len(out) {
				out = append(out[:i], out[i+1:]...)
			}
		default:
			if i < len(out) {
				out[i] = out[i] + " // changed"
			}
		}
	}
	return out
}

// TestStdlibPatch: a real change to a real file (Go's own sources), diffed by
// git, applies exactly; the same patch applied to the changed file is
// refused and changes nothing.
func TestStdlibPatch(t *testing.T) {
	needGit(t)
	src := filepath.Join(runtime.GOROOT(), "src", "strings", "strings.go")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("Go sources not found: %v", err)
	}
	old := string(data)
	nw := strings.Replace(old, "func Count(s, substr string) int {", "func Count(s, substr string) int { // counted", 1)
	nw = strings.Replace(nw, "func Contains(s, substr string) bool {\n", "func Contains(s, substr string) bool {\n\t// contained\n", 1)
	diff := gitDiff(t, t.TempDir(), old, nw, 3)
	files, err := patch.Parse(diff)
	if err != nil || len(files) != 1 || len(files[0].Hunks) != 2 {
		t.Fatalf("parse: %v %+v", err, files)
	}
	got, fail := applyFile(t, old, files[0])
	if fail != nil || got != nw {
		t.Fatalf("applied: %v", fail)
	}
	if _, fail := applyFile(t, nw, files[0]); fail == nil {
		t.Fatal("a patch applied twice: its old lines are gone")
	}
}

func TestV4A(t *testing.T) {
	text := "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n"
	p := `Here is the change:
*** Begin Patch
*** Update File: m.py
@@ class B:
@@     def f(self):
-        return 1
+        return 2
*** Add File: new.py
+print("hi")
*** Delete File: old.py
*** End Patch
`
	files, err := patch.Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || files[0].Kind != patch.Modify || files[1].Kind != patch.Add || files[2].Kind != patch.Delete {
		t.Fatalf("files: %+v", files)
	}
	got, fail := applyFile(t, text, files[0])
	if fail != nil || got != strings.Replace(text, "return 1\n", "return 1\n", 1)[:len(text)-2]+"2\n" {
		t.Fatalf("applied %q %v", got, fail)
	}
	// Without the anchors the chunk goes to the first place its lines
	// occur, as V4A defines; in a format without that rule it would be
	// ambiguous, never guessed.
	files[0].Hunks[0].Anchors = nil
	if got, fail := applyFile(t, text, files[0]); fail != nil || got != strings.Replace(text, "return 1\n", "return 2\n", 1) {
		t.Fatalf("V4A chunk without anchors: %q %+v", got, fail)
	}
	files[0].V4A = false
	if _, fail := applyFile(t, text, files[0]); fail == nil || fail.Kind != "ambiguous" {
		t.Fatalf("ambiguous hunk: %+v", fail)
	}
	if files[1].Hunks[0].New[0] != `print("hi")` {
		t.Fatalf("added file: %+v", files[1])
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n", "hunk ends early"},
		{"--- a/x\n+++ b/x\n@@ -1 +1 @@\n*a\n", "patch line 4"},
		{"*** Begin Patch\n*** Update File: x\n oops\n", "End Patch"},
		{"just prose\n", "no patch found"},
	} {
		if _, err := patch.Parse(c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

func TestWhitespaceMismatchDiagnosedNotApplied(t *testing.T) {
	text := "func f() {\n\treturn 1\n}\n"
	p := "--- a/f.go\n+++ b/f.go\n@@ -1,3 +1,3 @@\n func f() {\n-    return 1\n+    return 2\n }\n"
	files, err := patch.Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, fail := applyFile(t, text, files[0]); fail == nil || fail.Kind != "whitespace_mismatch" || fail.Line != 1 {
		t.Fatalf("whitespace: %+v", fail)
	}
}
