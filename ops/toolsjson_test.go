package ops_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/ops"
)

// TestToolsJSON: the committed tools.json files are what the table makes
// of them now (gopls's TestAPI: regenerated in memory and compared).
func TestToolsJSON(t *testing.T) {
	want, err := ops.ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ops.ToolsFiles {
		got, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(f)))
		if err != nil {
			t.Fatalf("%v: run `go generate ./ops`", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: the operation table changed. Run `go generate ./ops` (then `cd editors/vscode && npm run tools`) and commit the result.", f)
		}
	}
	// What the editors rely on: every tool, with its method and schema.
	var file struct {
		Tools []struct {
			Name, Method string
			InputSchema  map[string]any
			Doors        []string
		}
	}
	if err := json.Unmarshal(want, &file); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, op := range ops.Table() {
		if op.Tool() != nil {
			n++
		}
	}
	if len(file.Tools) != n || n == 0 {
		t.Fatalf("%d tools in tools.json, %d in the table", len(file.Tools), n)
	}
	for _, tl := range file.Tools {
		if op := ops.Lookup(tl.Method); op == nil || op.Tool() == nil || op.Tool().Name != tl.Name || tl.InputSchema["type"] != "object" || len(tl.Doors) == 0 {
			t.Errorf("%s: %+v", tl.Name, tl)
		}
	}
}
