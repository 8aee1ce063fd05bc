package server_test

import (
	"encoding/json"
	"testing"

	"github.com/sightline-lsp/sightline/lsptest"
)

// TestClearedSettingReverts: a setting the editor sends and then clears goes
// back to the workspace's value, not the last one sent.
func TestClearedSettingReverts(t *testing.T) {
	src := numbered(10)
	e, root := start(t, map[string]string{"f.txt": src, ".sightline.json": `{"autoExpand": false}`}, lsptest.Options{})
	u := fileURI(root, "f.txt")
	// What the editor answers workspace/configuration with is what it pushes.
	e.SetSettings(json.RawMessage(`{"guard": "off"}`))
	if err := e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{"guard": "off"}}}); err != nil {
		t.Fatal(err)
	}
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 3), "new_content": "x"}}, map[string]any{"dryRun": true})
	if !res.OK {
		t.Fatalf("guard off: %+v", res.Outcome)
	}
	// The user clears the setting: the guard is back on.
	e.SetSettings(json.RawMessage(`{}`))
	if err := e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{}}}); err != nil {
		t.Fatal(err)
	}
	res = edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 3), "new_content": "x"}}, map[string]any{"dryRun": true})
	if res.OK || res.Error != "unread_range" || res.Expanded != "" {
		t.Fatalf("cleared setting kept: %+v (expanded %q: .sightline.json's autoExpand false must hold too)", res.Outcome, res.Expanded)
	}
}
