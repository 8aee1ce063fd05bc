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

// agentBinary finds a real agent's native binary: the environment variable
// env names it, else testdata/agents' npm install (npm ci there) holds it
// under pattern. Without it the test skips, unless real clients are
// required (CI).
func agentBinary(t *testing.T, env, pattern, what string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "node_modules", pattern))
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o100 != 0 {
			p, _ := filepath.Abs(m)
			return p
		}
	}
	requireOrSkip(t, what+" (npm ci in testdata/agents, or "+env+")")
	return ""
}

// TestClaudeCodeEndToEnd runs the real Claude Code (npm ci in
// testdata/agents, or SIGHTLINE_CLAUDE naming its binary) in print mode against the
// scripted model, with sightline's hooks installed by `sightline hook
// install claude`: the Edit of a line never shown is denied and the file is
// unchanged, the retry lands, and the ledger and the audit say so.
func TestClaudeCodeEndToEnd(t *testing.T) {
	claudeEndToEnd(t, newCLI(t, agentFiles))
}

// agentFiles is the workspace the agents' end-to-end tests change.
var agentFiles = map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n"}

// claudeEndToEnd is TestClaudeCodeEndToEnd in the workspace c (agentFiles).
func claudeEndToEnd(t *testing.T, c *cli) {
	claude := agentBinary(t, "SIGHTLINE_CLAUDE", "@anthropic-ai/claude-code-linux-*/claude", "Claude Code")
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home)
	if out, errOut, code := c.run("", "hook", "install", "claude"); code != 0 || !strings.Contains(out, "added hooks.PreToolUse") {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	f := filepath.Join(c.dir, "f.txt")
	// A Read of lines 1-2, an Edit of line 4 (never shown), the same Edit
	// again, then a last word.
	edit := map[string]any{"file_path": f, "old_string": "four", "new_string": "FOUR"}
	model := &playedModel{calls: []map[string]any{
		{"name": "Read", "input": map[string]any{"file_path": f, "offset": 1, "limit": 2}},
		{"name": "Edit", "input": edit},
		{"name": "Edit", "input": edit},
	}}
	srv := httptest.NewServer(model)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "Change four to FOUR in f.txt.", "--permission-mode", "acceptEdits", "--output-format", "json", "--model", "claude-sonnet-4-5")
	cmd.Dir = c.dir
	cmd.Env = append(c.env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	model.mu.Lock()
	results := model.results
	model.mu.Unlock()
	if len(results) != 3 {
		t.Fatalf("tool results %d, want 3 (read, denied edit, edit): %q\n%s", len(results), results, out)
	}
	if !strings.HasPrefix(results[1], "error=true") || !strings.Contains(results[1], "never shown to you") || !strings.Contains(results[1], `\n4\tfour`) {
		t.Fatalf("the first edit was not denied with the line: %s", results[1])
	}
	if strings.HasPrefix(results[2], "error=true") {
		t.Fatalf("the retry failed: %s", results[2])
	}
	if got, _ := os.ReadFile(f); string(got) != "one\ntwo\nthree\nFOUR\nfive\n" {
		t.Fatalf("file: %q", got)
	}
	sessions, _, _ := c.run("", "session", "list")
	session := ""
	for _, l := range strings.Split(sessions, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "claude-") {
			session = f[0]
		}
	}
	if session == "" {
		t.Fatalf("no claude session: %s", sessions)
	}
	led, _, _ := c.run("", "ledger", "f.txt", "--session", session)
	if !strings.Contains(led, "read 1-2") || !strings.Contains(led, "authored 4") {
		t.Fatalf("ledger: %s", led)
	}
	audit, _, _ := c.run("", "audit", "--session", session)
	if !strings.Contains(audit, "refused unread_range") || strings.Count(audit, "sightline/check") != 2 {
		t.Fatalf("audit:\n%s", audit)
	}
	t.Logf("results: %q\nledger: %s\naudit:\n%s", results, led, audit)
}
