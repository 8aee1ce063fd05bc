package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestPatchEditorTimeout: a patch of two open documents and a closed file,
// to an editor that answers too late: the documented timeout, no file on
// disk written, and the late edit still counts as the session's.
func TestPatchEditorTimeout(t *testing.T) {
	src := numbered(10)
	e, root := start(t, map[string]string{"a.txt": src, "b.txt": src, "c.txt": src}, lsptest.Options{InitOptions: json.RawMessage(`{"applyTimeoutMs": 300}`)})
	for _, n := range []string{"a.txt", "b.txt"} {
		e.Open(fileURI(root, n), "plaintext", src)
	}
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		read(t, e, fileURI(root, n), nil, nil)
	}
	late := make(chan struct{})
	e.ApplyEdit = func(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		time.Sleep(700 * time.Millisecond)
		defer close(late)
		return e.DefaultApplyEdit(p)
	}
	hunk := "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+FIVE\n line 6\n"
	p := "--- a/a.txt\n+++ b/a.txt\n" + hunk + "--- a/b.txt\n+++ b/b.txt\n" + hunk + "--- a/c.txt\n+++ b/c.txt\n" + hunk
	var res engine.PatchResult
	if err := e.Call("sightline/applyPatch", map[string]any{"text": p}, &res); err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Error != "timeout" {
		t.Fatalf("a silent editor: %+v", res.Outcome)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "c.txt")); string(disk) != src {
		t.Fatalf("c.txt written although the editor's part timed out: %q", disk)
	}
	<-late
	if b := e.Buffer(fileURI(root, "a.txt")); !strings.Contains(b, "FIVE") {
		t.Fatalf("the late edit: %q", b)
	}
}
