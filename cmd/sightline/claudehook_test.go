package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeHookWorkspaceIsTheProject: `sightline hook claude` guards the
// project Claude Code was started in (CLAUDE_PROJECT_DIR), whatever the
// event's cwd: with cwd a nested repository the agent cd'd into, or an
// unrelated folder, the project's .git/config, .env and unread lines are
// still refused. A file in another repository is judged there; without a
// project root every change is refused.
func TestClaudeHookWorkspaceIsTheProject(t *testing.T) {
	c := newCLI(t, map[string]string{"f.txt": "one\ntwo\n", ".env": "K=1\n", "sub/.git/HEAD": "ref: x\n", "sub/s.txt": "s\n"})
	other := t.TempDir()
	os.Mkdir(filepath.Join(other, ".git"), 0o755)
	os.WriteFile(filepath.Join(other, "o.txt"), []byte("o1\no2\n"), 0o644)
	unrelated := t.TempDir()
	c.env = append(c.env, "SIGHTLINE_NO_BRIDGE=1", "SIGHTLINE_DAEMON=0", "CLAUDE_PROJECT_DIR="+c.dir)
	hookEvent := func(cwd, tool string, input map[string]any) string {
		// A session per cwd: a refusal hands the lines over, and the next
		// attempt in the same session would pass.
		ev, _ := json.Marshal(map[string]any{"session_id": "s-" + filepath.Base(cwd), "hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": tool, "tool_input": input})
		out, errOut, code := c.run(string(ev), "hook", "claude")
		if code != 0 {
			t.Fatalf("hook: %d %s", code, errOut)
		}
		return out
	}
	deny := `"permissionDecision":"deny"`
	for _, cwd := range []string{filepath.Join(c.dir, "sub"), unrelated} {
		for name, ev := range map[string]struct {
			tool  string
			input map[string]any
		}{
			".git/config":         {"Write", map[string]any{"file_path": filepath.Join(c.dir, ".git", "config"), "content": "[core]\n"}},
			".env":                {"Write", map[string]any{"file_path": filepath.Join(c.dir, ".env"), "content": "K=2\n"}},
			"unread lines":        {"Edit", map[string]any{"file_path": filepath.Join(c.dir, "f.txt"), "old_string": "two", "new_string": "2"}},
			"another repo's":      {"Edit", map[string]any{"file_path": filepath.Join(other, "o.txt"), "old_string": "o2", "new_string": "2"}},
			"another repo's .git": {"Write", map[string]any{"file_path": filepath.Join(other, ".git", "config"), "content": "x\n"}},
		} {
			if out := hookEvent(cwd, ev.tool, ev.input); !strings.Contains(out, deny) {
				t.Errorf("cwd %s, %s: not denied: %s", cwd, name, out)
			}
		}
	}
	// A link outside the workspace into it: the write lands on .env.
	os.Symlink(filepath.Join(c.dir, ".env"), filepath.Join(unrelated, "env-link"))
	os.Symlink(c.dir, filepath.Join(unrelated, "project-link"))
	for _, p := range []string{filepath.Join(unrelated, "env-link"), filepath.Join(unrelated, "project-link", ".env")} {
		if out := hookEvent(unrelated, "Write", map[string]any{"file_path": p, "content": "K=3\n"}); !strings.Contains(out, deny) {
			t.Errorf("%s: not denied: %s", p, out)
		}
	}
	// A file in no repository is the agent's own rules' to judge.
	if out := hookEvent(unrelated, "Write", map[string]any{"file_path": filepath.Join(unrelated, "x.txt"), "content": "x\n"}); strings.Contains(out, deny) {
		t.Errorf("a file outside every repository: %s", out)
	}
	// No project root: refused, whatever the cwd.
	var env []string
	for _, e := range c.env {
		if !strings.HasPrefix(e, "CLAUDE_PROJECT_DIR=") {
			env = append(env, e)
		}
	}
	c.env = env
	if out := hookEvent(c.dir, "Write", map[string]any{"file_path": filepath.Join(c.dir, "new.txt"), "content": "x\n"}); !strings.Contains(out, deny) || !strings.Contains(out, "CLAUDE_PROJECT_DIR") {
		t.Errorf("no project root: %s", out)
	}
	// The installed root stands in for it.
	ev, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": unrelated, "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(c.dir, ".env"), "content": "K=2\n"}})
	if out, _, _ := c.run(string(ev), "hook", "claude", "--root", c.dir); !strings.Contains(out, deny) {
		t.Errorf("--root: .env not denied: %s", out)
	}
}

// TestCodexHookFailsClosed: `sightline hook codex` denies, and audits, a
// PreToolUse it cannot read exactly (a member twice, one in another case, a
// cwd that is not absolute, an event that is not JSON), where it used to let
// the patch through unguarded.
func TestCodexHookFailsClosed(t *testing.T) {
	c := newCLI(t, map[string]string{"f.txt": "one\ntwo\n"})
	c.env = append(c.env, "SIGHTLINE_NO_BRIDGE=1", "SIGHTLINE_DAEMON=0")
	del := "*** Begin Patch\n*** Delete File: f.txt\n*** End Patch\n"
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for name, ev := range map[string]string{
		"tool_input twice":    `{"session_id":"s","hook_event_name":"PreToolUse","cwd":` + q(c.dir) + `,"tool_name":"apply_patch","tool_input":{"command":"x"},"tool_input":{"command":` + q(del) + `}}`,
		"command twice":       `{"session_id":"s","hook_event_name":"PreToolUse","cwd":` + q(c.dir) + `,"tool_name":"apply_patch","tool_input":{"command":"x","command":` + q(del) + `}}`,
		"cwd in another case": `{"session_id":"s","hook_event_name":"PreToolUse","Cwd":` + q(c.dir) + `,"tool_name":"apply_patch","tool_input":{"command":` + q(del) + `}}`,
		"cwd relative":        `{"session_id":"s","hook_event_name":"PreToolUse","cwd":".","tool_name":"apply_patch","tool_input":{"command":` + q(del) + `}}`,
		"not JSON":            `{"session_id":"s","hook_event_name":"PreToolUse",`,
	} {
		out, errOut, code := c.run(ev, "hook", "codex")
		if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
			t.Errorf("%s: not denied (exit %d): %s %s", name, code, out, errOut)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "f.txt")); string(got) != "one\ntwo\n" {
		t.Fatalf("f.txt: %q", got)
	}
	out, _, _ := c.run("", "audit", "--session", "codex-s")
	if n := strings.Count(out, "unjudged"); n < 3 {
		t.Errorf("%d refusals audited as unjudged:\n%s", n, out)
	}
}
