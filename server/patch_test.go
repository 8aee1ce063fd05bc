package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestApplyPatchOpenBuffer: a patch to a document open in the editor changes
// the buffer through workspace/applyEdit and leaves the disk alone.
func TestApplyPatchOpenBuffer(t *testing.T) {
	src := numbered(10)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{})
	u := fileURI(root, "f.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	p := "--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+FIVE\n line 6\n"
	var res handlers.PatchResult
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p}, &res); err != nil {
		t.Fatal(err)
	}
	if !res.OK || e.Buffer(u) != strings.Replace(src, "line 5\n", "FIVE\n", 1) {
		t.Fatalf("patch: %+v %q", res.Outcome, e.Buffer(u))
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(disk) != src {
		t.Fatal("disk written under an open buffer")
	}
	// A patch whose file is outside the workspace is denied.
	out := "--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-a\n+b\n"
	if err := e.Call("sightline/applyPatch", map[string]any{"text": out}, &res); err != nil || res.OK || res.Error != "denied" {
		t.Fatalf("outside: %v %+v", err, res.Outcome)
	}
}
