package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGeminiACPMechanicsReadIsNotShown runs the real Gemini CLI behind
// `sightline acp`, driven by a scripted editor that serves its file
// requests and a scripted model: read_file of lines 1-20 (Gemini reads the
// disk itself), then a replace of line 50, never shown to the model.
// Gemini's replace asks the editor for the whole file to compute the edit:
// that read is the tool's mechanics, not something the model was shown,
// so it must not count. The permission for the edit is refused with the
// lines to read, the file is unchanged and the ledger claims no line the
// model never saw.
func TestGeminiACPMechanicsReadIsNotShown(t *testing.T) {
	t.Parallel() // mostly waiting on the agent
	gemini := geminiCLI(t)
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	text := b.String()
	c := newCLI(t, map[string]string{"svc.txt": text})
	f := filepath.Join(c.dir, "svc.txt")
	model := &playedGemini{life: time.Now().Add(90 * time.Second), stop: -1, big: -1, calls: []map[string]any{
		{"name": "read_file", "input": map[string]any{"file_path": f, "start_line": 1, "end_line": 20}},
		{"name": "replace", "input": map[string]any{"file_path": f, "instruction": "Change line 50.", "old_string": "line 50\n", "new_string": "LINE 50\n"}},
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	script, _ := filepath.Abs("../../testdata/agents/acp-gemini.mjs")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = c.dir
	cmd.Env = append(c.env, "HOME="+t.TempDir(), "SIGHTLINE_BIN="+c.bin, "WORKSPACE="+c.dir, "GEMINI_CLI="+gemini,
		"GOOGLE_GEMINI_BASE_URL="+srv.URL, "GEMINI_API_KEY=test", "GEMINI_CLI_TRUST_WORKSPACE=true", "NO_BROWSER=true")
	cmd.WaitDelay = 5 * time.Second // a process the agent left must not hold the test
	out, err := cmd.CombinedOutput()
	model.mu.Lock()
	results := model.results
	model.mu.Unlock()
	t.Logf("editor:\n%s\nresults: %q", out, results)
	if err != nil {
		t.Fatalf("the scripted editor: %v", err)
	}
	if got, _ := os.ReadFile(f); string(got) != text {
		t.Fatalf("line 50, never shown to the model, was changed:\n%s", got)
	}
	if len(results) != 2 || !strings.Contains(results[1], `"error"`) {
		t.Fatalf("the replace's result: %q, want an error", results)
	}
	// Gemini CLI read the disk itself and told the editor only "Read lines
	// 1-20 of 61": nothing of the file is claimed shown.
	sid := ""
	for _, l := range strings.Split(string(out), "\n") {
		var m struct{ Kind, V json.RawMessage }
		if json.Unmarshal([]byte(l), &m) == nil && string(m.Kind) == `"session"` {
			json.Unmarshal(m.V, &sid)
		}
	}
	if sid == "" {
		t.Fatal("no session id in the editor's output")
	}
	ledgerOut, errOut, code := c.run("", "ledger", "svc.txt", "--json", "--session", "acp-"+sid)
	if code != 0 || !strings.Contains(ledgerOut, `"read":[]`) || !strings.Contains(ledgerOut, `"authored":[]`) {
		t.Fatalf("the ledger after Gemini's replace: %d %s %s", code, ledgerOut, errOut)
	}
}
