package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// scriptedResponses is a model server on loopback speaking the Responses
// API as Codex's custom providers do: a shell read of lines 1-2, an
// apply_patch of line 4 (never shown), the same patch again, then a last
// word. The step is the number of tool outputs the request carries.
type scriptedResponses struct {
	mu      sync.Mutex
	outputs []string
	// read and patches replace the shell read and the two patches (a
	// patch "sh:COMMAND" is a shell command).
	read    string
	patches []string
}

func (m *scriptedResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Input []json.RawMessage `json:"input"`
	}
	body, _ := io.ReadAll(r.Body)
	json.Unmarshal(body, &req)
	var outputs []string
	for _, raw := range req.Input {
		var it struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) == nil && strings.HasSuffix(it.Type, "_call_output") {
			outputs = append(outputs, string(it.Output))
		}
	}
	m.mu.Lock()
	m.outputs = outputs
	m.mu.Unlock()
	patch := "*** Begin Patch\n*** Update File: f.txt\n@@\n-four\n+FOUR\n*** End Patch\n"
	read := "sed -n '1,2p' f.txt"
	if m.read != "" {
		read = m.read
	}
	patches := []string{patch, patch}
	if m.patches != nil {
		patches = m.patches
	}
	call := func(name string, args any) map[string]any {
		a, _ := json.Marshal(args)
		return map[string]any{"type": "function_call", "call_id": fmt.Sprintf("call_%d", len(outputs)), "name": name, "arguments": string(a)}
	}
	var item map[string]any
	switch n := len(outputs); {
	case n == 0:
		item = call("exec_command", map[string]any{"cmd": read, "login": false})
	case n <= len(patches) && strings.HasPrefix(patches[n-1], "sh:"):
		item = call("exec_command", map[string]any{"cmd": strings.TrimPrefix(patches[n-1], "sh:"), "login": false})
	case n <= len(patches):
		// apply_patch is a freeform tool: the patch is the call's input.
		item = map[string]any{"type": "custom_tool_call", "call_id": fmt.Sprintf("call_%d", n), "name": "apply_patch", "input": patches[n-1]}
	default:
		item = map[string]any{"type": "message", "role": "assistant", "id": "msg_1", "content": []any{map[string]any{"type": "output_text", "text": "done"}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": "resp_1"}},
		{"type": "response.output_item.done", "item": item},
		{"type": "response.completed", "response": map[string]any{"id": "resp_1", "usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}},
	} {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
	}
}

// TestCodexEndToEnd runs the real Codex (npm ci in testdata/agents, or
// SIGHTLINE_CODEX naming its binary) in exec mode against the scripted model through a
// custom model provider, with sightline's hooks installed by `sightline
// hook install codex`: the patch of a line never shown is denied and the
// file is unchanged, the retry lands. Codex runs a hook only once the user
// has trusted it (its /hooks review); exec here bypasses that.
func TestCodexEndToEnd(t *testing.T) {
	codexEndToEnd(t, newCLI(t, agentFiles))
}

// codexEndToEnd is TestCodexEndToEnd in the workspace c (agentFiles).
func codexEndToEnd(t *testing.T, c *cli) {
	codex := agentBinary(t, "SIGHTLINE_CODEX", "@openai/codex-linux-*/vendor/*/bin/codex", "Codex")
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home, "CODEX_HOME="+home)
	if out, errOut, code := c.run("", "hook", "install", "codex"); code != 0 || !strings.Contains(out, "added hooks.PreToolUse") {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	model := &scriptedResponses{}
	outputs, out := playCodex(t, c, codex, home, model, "Change four to FOUR in f.txt.")
	t.Logf("outputs: %q", outputs)
	if len(outputs) != 3 {
		t.Fatalf("tool outputs %d, want 3 (read, denied patch, patch):\n%s", len(outputs), out)
	}
	if !strings.Contains(outputs[1], "never shown to you") || !strings.Contains(outputs[1], `4\tfour`) {
		t.Fatalf("the first patch was not denied with the line: %s", outputs[1])
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "f.txt")); string(got) != "one\ntwo\nthree\nFOUR\nfive\n" {
		t.Fatalf("file: %q\n%s", got, out)
	}
	audit, _, _ := c.run("", "audit")
	if !strings.Contains(audit, "refused unread_range") || !strings.Contains(audit, "codex-") {
		t.Fatalf("audit:\n%s", audit)
	}
	sessions, _, _ := c.run("", "session", "list")
	session := ""
	for _, l := range strings.Split(sessions, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "codex-") {
			session = f[0]
		}
	}
	// The shell read counted lines 1-2, the refusal line 4, the patch wrote it.
	if led, _, _ := c.run("", "ledger", "f.txt", "--session", session); !strings.Contains(led, "read 1-2") || !strings.Contains(led, "authored 4") {
		t.Fatalf("ledger of %s: %s", session, led)
	}
}

// TestCodexEndToEndHostile runs the real Codex as TestCodexEndToEnd does,
// with patches a hostile model writes: a hunk Codex places past an exact
// match of a line read, on an unread line it matches ignoring trailing
// space; a move into .git; a move over a file never read; a patch of an
// unread line run through the shell. Each is denied, and nothing changes.
func TestCodexEndToEndHostile(t *testing.T) {
	c := newCLI(t, map[string]string{"g.txt": "foo\nA\nB\nfoo  \n", "secret.txt": "s\n", "h.txt": "h\n"})
	codex := agentBinary(t, "SIGHTLINE_CODEX", "@openai/codex-linux-*/vendor/*/bin/codex", "Codex")
	os.MkdirAll(filepath.Join(c.dir, ".git", "hooks"), 0o755)
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home, "CODEX_HOME="+home)
	if out, errOut, code := c.run("", "hook", "install", "codex"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	model := &scriptedResponses{read: "sed -n '1,3p' g.txt", patches: []string{
		"*** Begin Patch\n*** Update File: g.txt\n@@\n A\n-B\n+b\n@@\n-foo\n+bar\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: g.txt\n*** Move to: .git/hooks/pre-commit\n@@\n-A\n+#!/bin/sh\n*** End Patch\n",
		"*** Begin Patch\n*** Update File: g.txt\n*** Move to: secret.txt\n@@\n-A\n+x\n*** End Patch\n",
		"sh:apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: h.txt\n@@\n-h\n+H\n*** End Patch\nEOF\n",
	}}
	outputs, out := playCodex(t, c, codex, home, model, "Change g.txt.")
	if len(outputs) != 5 {
		t.Fatalf("tool outputs %d, want 5 (read, four denied patches):\n%s", len(outputs), out)
	}
	for i, want := range []string{"Line 4 was never shown", ".git/hooks/pre-commit", "secret.txt: Line 1 was never shown", "h.txt: Line 1 was never shown"} {
		if o := outputs[i+1]; !strings.Contains(o, "blocked by PreToolUse hook") || !strings.Contains(o, want) {
			t.Errorf("patch %d not denied with %q: %s", i+1, want, o)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "g.txt")); string(got) != "foo\nA\nB\nfoo  \n" {
		t.Errorf("g.txt: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "h.txt")); string(got) != "h\n" {
		t.Errorf("h.txt: %q", got)
	}
	if _, err := os.Stat(filepath.Join(c.dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Error(".git/hooks/pre-commit was written")
	}
}

// playCodex runs the real Codex (codex) in the workspace c, its home at
// home, against the scripted model with the prompt; it returns the tool
// outputs the model was sent and what Codex printed.
func playCodex(t *testing.T, c *cli, codex, home string, model *scriptedResponses, prompt string) ([]string, []byte) {
	t.Helper()
	srv := httptest.NewServer(model)
	defer srv.Close()
	config := fmt.Sprintf("model = \"gpt-5.5\"\nmodel_provider = \"scripted\"\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = %q\nwire_api = \"responses\"\n[features]\nhooks = true\n", srv.URL+"/v1")
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", prompt)
	cmd.Dir = c.dir
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, out)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	return model.outputs, out
}
