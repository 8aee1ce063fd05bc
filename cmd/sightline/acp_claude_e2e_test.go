package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClaudeACPRefusalReachesTheModel runs the real claude-agent-acp
// (Claude Code behind ACP; CLAUDE_ACP names its dist/index.js, else
// testdata/agents' npm install holds it) behind `sightline acp`, driven by
// a scripted editor and the scripted model: after a Read of lines 1-2, the
// Edit of line 4, never shown, asks permission; sightline rejects it, and
// the model's tool result says why (the lines to read), not only that it
// was refused. Once read, the retry's permission reaches the editor, which
// allows it.
func TestClaudeACPRefusalReachesTheModel(t *testing.T) {
	c := newCLI(t, agentFiles)
	f := filepath.Join(c.dir, "f.txt")
	model := readEditReadEdit(f)
	// --no-hooks: the ACP door's own judging of the permission request
	// (with the hooks, the PreToolUse hook refuses first).
	out, results := runClaudeACP(t, c, model, "ACP_FLAGS=--no-hooks")
	if len(results) != 4 {
		t.Fatalf("tool results %d, want 4", len(results))
	}
	if !strings.Contains(results[1], "Line 4 was never shown to the agent. Read lines 4, then retry the edit.") {
		t.Fatalf("the model was not told why: %s", results[1])
	}
	// Read, the retry is the user's to allow: the editor is asked once.
	if n := strings.Count(string(out), `"kind":"permission"`); n != 1 {
		t.Fatalf("the editor was asked %d times, want once (the retry)", n)
	}
	if got, _ := os.ReadFile(f); string(got) != strings.Replace(agentFiles["f.txt"], "four", "FOUR", 1) {
		t.Fatalf("f.txt: %q, want the retry's change", got)
	}
}

// TestClaudeACPAutoModeIsGuardedByItsHooks: claude-agent-acp starts its
// sessions in auto mode, where it asks no permission and writes files
// itself, so the ACP door sees its edits only once made. sightline gives
// the sessions it creates the hook door's hooks through the settings the
// adapter passes to Claude Code: the Edit of line 4, never shown, is
// denied with the reason its model gets, the retry after a Read lands,
// and the conversation has one ledger session, the hooks' and the ACP
// door's alike (claude-<sessionId>).
func TestClaudeACPAutoModeIsGuardedByItsHooks(t *testing.T) {
	t.Parallel() // mostly waiting on the agent
	c := newCLI(t, agentFiles)
	f := filepath.Join(c.dir, "f.txt")
	model := readEditReadEdit(f)
	_, results := runClaudeACP(t, c, model, "ACP_MODE=auto")
	if len(results) != 4 {
		t.Fatalf("tool results %d, want 4", len(results))
	}
	if !strings.Contains(results[1], "Line 4 was never shown to you") || !strings.Contains(results[1], "error=true") {
		t.Fatalf("the unread edit was not denied with its reason: %s", results[1])
	}
	if got, _ := os.ReadFile(f); string(got) != strings.Replace(agentFiles["f.txt"], "four", "FOUR", 1) {
		t.Fatalf("f.txt: %q, want the retry's change", got)
	}
	list, errOut, code := c.run("", "session", "list", "--json")
	if code != 0 {
		t.Fatalf("session list: %d %s", code, errOut)
	}
	if strings.Contains(list, `"acp-`) || !strings.Contains(list, `"claude-`) {
		t.Fatalf("the conversation's ledger sessions: %s, want one, claude-<sessionId>", list)
	}
}

// runClaudeACP runs the real claude-agent-acp (CLAUDE_ACP names its
// dist/index.js, else testdata/agents' npm install holds it) behind
// `sightline acp` in the workspace c, driven by the scripted editor
// (acp-claude.mjs, env its options) and the scripted model; it returns
// what the editor printed and the tool results the model got.
func runClaudeACP(t *testing.T, c *cli, model *playedModel, env ...string) (out []byte, results []string) {
	t.Helper()
	adapter := os.Getenv("CLAUDE_ACP")
	if adapter == "" {
		adapter, _ = filepath.Abs("../../testdata/agents/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js")
	}
	if _, err := os.Stat(adapter); err != nil {
		requireOrSkip(t, "claude-agent-acp (npm ci in testdata/agents, or CLAUDE_ACP)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		requireOrSkip(t, "node")
	}
	srv := httptest.NewServer(model)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	script, _ := filepath.Abs("../../testdata/agents/acp-claude.mjs")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = c.dir
	// A clean environment: the adapter refuses to start as root in a
	// sandbox it is told of (IS_SANDBOX).
	var clean []string
	for _, e := range c.env {
		if !strings.HasPrefix(e, "IS_SANDBOX=") {
			clean = append(clean, e)
		}
	}
	cmd.Env = append(append(clean, "HOME="+t.TempDir(), "SIGHTLINE_BIN="+c.bin, "WORKSPACE="+c.dir, "CLAUDE_ACP="+adapter,
		"ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "ANTHROPIC_MODEL=claude-sonnet-4-5"), env...)
	cmd.WaitDelay = 5 * time.Second // a process the agent left must not hold the test
	out, err := cmd.CombinedOutput()
	model.mu.Lock()
	results = model.results
	model.mu.Unlock()
	t.Logf("editor:\n%s\nresults: %q", out, results)
	if err != nil {
		t.Fatalf("the scripted editor: %v", err)
	}
	return out, results
}

// readEditReadEdit is the model of the Claude Code ACP tests: a Read of
// lines 1-2 of f, the Edit of line 4 (never shown), a Read of line 4, the
// same Edit again.
func readEditReadEdit(f string) *playedModel {
	edit := map[string]any{"name": "Edit", "input": map[string]any{"file_path": f, "old_string": "four", "new_string": "FOUR"}}
	return &playedModel{calls: []map[string]any{
		{"name": "Read", "input": map[string]any{"file_path": f, "offset": 1, "limit": 2}},
		edit,
		{"name": "Read", "input": map[string]any{"file_path": f, "offset": 4, "limit": 1}},
		edit,
	}}
}
