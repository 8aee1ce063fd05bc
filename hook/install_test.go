package hook_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hook"
)

// TestInstallKeepsTheRest: install adds the hooks and nothing else (the
// user's keys, their order, their own hooks stay), twice is once, and
// uninstall gives back the file it was given.
func TestInstallKeepsTheRest(t *testing.T) {
	user := `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "my-check.sh"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Read"
    ]
  }
}
`
	cmd := "/opt/bin/sightline hook claude"
	out, changed, err := hook.Install([]byte(user), "claude", cmd, hook.ClaudeHooks)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != len(hook.ClaudeHooks) {
		t.Fatalf("changed: %q", changed)
	}
	var s struct {
		Model string
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatal(err)
	}
	if s.Model != "opus" || len(s.Hooks["PreToolUse"]) != 2 || s.Hooks["PreToolUse"][0].Hooks[0].Command != "my-check.sh" ||
		s.Hooks["PreToolUse"][1].Matcher != "Edit|MultiEdit|Write" || s.Hooks["SessionStart"][0].Matcher != "compact|clear" {
		t.Fatalf("installed:\n%s", out)
	}
	if strings.Index(string(out), `"model"`) > strings.Index(string(out), `"permissions"`) {
		t.Fatalf("keys reordered:\n%s", out)
	}
	again, changed, err := hook.Install(out, "claude", cmd, hook.ClaudeHooks)
	if err != nil || len(changed) != 0 || string(again) != string(out) {
		t.Fatalf("second install changed %q", changed)
	}
	back, changed, err := hook.Uninstall(out, "claude")
	if err != nil || len(changed) != len(hook.ClaudeHooks) {
		t.Fatalf("uninstall: %v %q", err, changed)
	}
	if string(back) != user {
		t.Fatalf("uninstall left:\n%s\nwant:\n%s", back, user)
	}
	if _, _, err := hook.Install([]byte("{not json"), "claude", cmd, hook.ClaudeHooks); err == nil {
		t.Fatal("a broken settings file was edited")
	}
	fresh, _, err := hook.Install(nil, "claude", cmd, hook.ClaudeHooks)
	if err != nil || !strings.Contains(string(fresh), cmd) {
		t.Fatalf("no settings yet: %v\n%s", err, fresh)
	}
	if empty, _, _ := hook.Uninstall(fresh, "claude"); strings.TrimSpace(string(empty)) != "{}" {
		t.Fatalf("uninstall of a fresh install: %s", empty)
	}
}

// TestInstallFromAMovedBinary: installing again from another path updates
// sightline's hooks in place instead of adding a second set.
func TestInstallFromAMovedBinary(t *testing.T) {
	first, _, err := hook.Install(nil, "codex", "/old/bin/sightline hook codex", hook.CodexHooks)
	if err != nil {
		t.Fatal(err)
	}
	moved, changed, err := hook.Install(first, "codex", "/new/bin/sightline hook codex", hook.CodexHooks)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(moved), "/old/") || strings.Count(string(moved), "/new/bin/sightline hook codex") != len(hook.CodexHooks) {
		t.Fatalf("after the move:\n%s", moved)
	}
	if len(changed) != len(hook.CodexHooks) || !strings.HasPrefix(changed[0], "updated") {
		t.Fatalf("changed: %q", changed)
	}
}
