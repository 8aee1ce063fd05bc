package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestFilesKeptFreshByWatchers: with the editor watching files for it, the
// registry keeps its listing between calls and still reports what changed:
// a file the editor says changed, one it says was created, and sightline's
// own writes.
func TestFilesKeptFreshByWatchers(t *testing.T) {
	caps := `{"workspace":{"applyEdit":true,"didChangeWatchedFiles":{"dynamicRegistration":true}}}`
	e, root := start(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, lsptest.Options{Capabilities: json.RawMessage(caps)})
	e.WaitNote("client/registerCapability")
	list := func() map[string]int64 {
		var res engine.FilesResult
		if err := e.Call("sightline/files", map[string]any{}, &res); err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, f := range res.Files {
			out[f.Path] = f.Size
		}
		return out
	}
	if got := list(); got["a.txt"] != 2 || got["b.txt"] != 2 {
		t.Fatalf("listing: %v", got)
	}
	// Another program changes a.txt and creates c.txt; the editor reports both.
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("aaaa\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c.txt"), []byte("c\n"), 0o644)
	e.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
		map[string]any{"uri": fileURI(root, "a.txt"), "type": 2},
		map[string]any{"uri": fileURI(root, "c.txt"), "type": 1},
	}})
	deadline := time.Now().Add(2 * time.Second)
	for got := list(); got["a.txt"] != 5 || got["c.txt"] != 2; got = list() {
		if time.Now().After(deadline) {
			t.Fatalf("listing after reported changes: %v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// sightline's own write is in the next listing without any report.
	read(t, e, fileURI(root, "b.txt"), nil, nil)
	var wr engine.WriteResult
	e.Call("sightline/write", map[string]any{"textDocument": map[string]string{"uri": fileURI(root, "b.txt")}, "mode": "append", "content": "more\n"}, &wr)
	if !wr.OK {
		t.Fatalf("append: %+v", wr.Outcome)
	}
	if got := list(); got["b.txt"] != 7 {
		t.Fatalf("listing after own write: %v", got)
	}
}
