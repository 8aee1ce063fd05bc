package patch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/patch"
)

// TestModeChange: git's mode lines are part of the file patch (a mode-only
// change is a patch of its own), never dropped.
func TestModeChange(t *testing.T) {
	p := "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/x.txt b/x.txt\nold mode 100644\nnew mode 100755\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/n.sh b/n.sh\nnew file mode 100755\n--- /dev/null\n+++ b/n.sh\n@@ -0,0 +1 @@\n+echo\n"
	fs, err := patch.Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 {
		t.Fatalf("files: %+v", fs)
	}
	for i, want := range []uint32{0o100755, 0o100755, 0o100755} {
		if fs[i].Mode != want {
			t.Fatalf("file %d (%s): mode %o, want %o", i, fs[i].Path, fs[i].Mode, want)
		}
	}
	if fs[0].Kind != patch.Modify || len(fs[0].Hunks) != 0 || fs[2].Kind != patch.Add {
		t.Fatalf("kinds: %+v", fs)
	}
}

// TestBinaryPatchNamed: a binary patch is refused as binary, not as a patch
// without hunks.
func TestBinaryPatchNamed(t *testing.T) {
	for _, p := range []string{
		"diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nMc${NkU|`gU00XQ5k^lez\n\nliteral 0\nHcmV?d00001\n\n",
		"diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
	} {
		_, err := patch.Parse(p)
		var pe *patch.Error
		if !errors.As(err, &pe) || !pe.Binary || !strings.Contains(err.Error(), "binary") {
			t.Fatalf("binary patch: %v", err)
		}
	}
}

// TestEmptyPatchRefused: an envelope with no file in it is an error, not a
// patch of zero files.
func TestEmptyPatchRefused(t *testing.T) {
	for _, p := range []string{"*** Begin Patch\n*** End Patch\n", "prose\n*** Begin Patch\n\n*** End Patch\nmore prose\n"} {
		if fs, err := patch.Parse(p); err == nil {
			t.Fatalf("%q: %d files, no error", p, len(fs))
		}
	}
}
