package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/lsptest"
)

// The editor's settings are a layer like a file: a bad key is refused by
// name in every answer's warnings, the rest applies; a policy they carry
// that cannot be read refuses every path until settings that can be read
// replace it.
func TestEditorSettingsProblems(t *testing.T) {
	userConfig(t, "")
	files := map[string]string{"a.txt": "alpha\n", "lib/x.py": "secret = 1\n", ".sightline.json": `{"policy":{"deny":["lib/**"]}}`}
	e, root := start(t, files, lsptest.Options{InitOptions: json.RawMessage(`{"sightline":{"readBudget":"big","guard":"warn"}}`)})
	if res := read(t, e, fileURI(root, "lib/x.py"), nil, nil); res.OK || res.Error != "denied" {
		t.Fatalf("the workspace's deny rule beside a bad setting: %+v", res.Outcome)
	}
	res := read(t, e, fileURI(root, "a.txt"), nil, nil)
	if !res.OK || !strings.Contains(strings.Join(res.Warnings, " "), `initializationOptions: "readBudget"`) {
		t.Fatalf("read: %+v", res.Outcome)
	}

	e.SetSettings(json.RawMessage(`{"policy": {"deny": "lib/**"}}`))
	if err := e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{"policy": map[string]any{"deny": "lib/**"}}}}); err != nil {
		t.Fatal(err)
	}
	res = read(t, e, fileURI(root, "a.txt"), nil, nil)
	if res.OK || res.Error != "denied" || res.Content != "" || !strings.Contains(res.Message, `"policy.deny"`) || !strings.Contains(res.Message, "editor's settings") {
		t.Fatalf("read under an editor policy that cannot be read: %+v", res.Outcome)
	}
	// Settings that can be read again: served again.
	if err := e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{}}}); err != nil {
		t.Fatal(err)
	}
	if res = read(t, e, fileURI(root, "a.txt"), nil, nil); !res.OK {
		t.Fatalf("read after the settings were fixed: %+v", res.Outcome)
	}
}

// A workspace file whose policy cannot be read closes the editor's server
// too, whatever the editor's settings say.
func TestEditorServerClosedByFile(t *testing.T) {
	userConfig(t, "")
	e, root := start(t, map[string]string{"a.txt": "alpha\n", ".sightline.json": `{"policy":{"deny":["a"],"deny":[]}}`}, lsptest.Options{InitOptions: json.RawMessage(`{"guard":"off"}`)})
	res := read(t, e, fileURI(root, "a.txt"), nil, nil)
	if res.OK || res.Error != "denied" || !strings.Contains(res.Message, `"policy.deny" is given 2 times`) {
		t.Fatalf("read: %+v", res.Outcome)
	}
}

// The workspace's .sightline.json changed while the editor's server runs
// (the editor's file watcher says so): the next call obeys the new file,
// laid under the editor's settings as before.
func TestEditorServerReloadsWorkspaceConfig(t *testing.T) {
	userConfig(t, "")
	e, root := start(t, map[string]string{"a.txt": "alpha\n", ".sightline.json": `{}`}, lsptest.Options{})
	if err := e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{"readBudget": 5000}}}); err != nil {
		t.Fatal(err)
	}
	if res := read(t, e, fileURI(root, "a.txt"), nil, nil); !res.OK {
		t.Fatalf("read: %+v", res.Outcome)
	}
	changed := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, ".sightline.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := e.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []map[string]any{{"uri": fileURI(root, ".sightline.json"), "type": 2}}}); err != nil {
			t.Fatal(err)
		}
	}
	changed(`{"policy": {"deny": ["a.txt"]}}`)
	if res := read(t, e, fileURI(root, "a.txt"), nil, nil); res.OK || res.Error != "denied" || !strings.Contains(res.Message, `"a.txt"`) {
		t.Fatalf("read after a deny rule was added: %+v", res.Outcome)
	}
	changed(`{"policy": {"deny": "a.txt"}}`)
	if res := read(t, e, fileURI(root, "a.txt"), nil, nil); res.OK || res.Error != "denied" || !strings.Contains(res.Message, `"policy.deny"`) {
		t.Fatalf("read after the policy became unreadable: %+v", res.Outcome)
	}
	changed(`{}`)
	if res := read(t, e, fileURI(root, "a.txt"), nil, nil); !res.OK {
		t.Fatalf("read after the file was fixed: %+v", res.Outcome)
	}
}
