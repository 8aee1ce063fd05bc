package hook_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hook"
)

// asked records the approvals asked for and gives one answer to all.
type asked struct {
	mu     sync.Mutex
	list   []engine.Approval
	answer engine.Decision
}

func (a *asked) Approve(_ context.Context, ap engine.Approval) (engine.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.list = append(a.list, ap)
	return a.answer, nil
}

func (a *asked) ops(path string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, ap := range a.list {
		if ap.Path == path {
			out = append(out, ap.Op)
		}
	}
	return out
}

func denyReason(t *testing.T, a hook.Answer) string {
	t.Helper()
	if !denied(a) {
		t.Fatalf("not denied: %q %q", a.Stdout, a.Stderr)
	}
	var out struct {
		HookSpecificOutput struct{ PermissionDecisionReason string } `json:"hookSpecificOutput"`
	}
	json.Unmarshal(a.Stdout, &out)
	return out.HookSpecificOutput.PermissionDecisionReason
}

// TestHookWriteAdmission: a change the agent's own tool is about to make
// passes the admission a write of sightline's own passes: a sensitive file
// needs the user's approval to write (asked as a write; refused when nobody
// can be asked), version control folders are never written, and a file
// outside the workspace is not sightline's to judge.
func TestHookWriteAdmission(t *testing.T) {
	w := newWorkspace(t, map[string]string{".env": "KEY=1\n", "f.txt": "one\n"})
	os.MkdirAll(filepath.Join(w.root, ".git", "hooks"), 0o755)
	env := w.path(".env")

	// Nobody to ask: refused, and the reason says why and what to do.
	why := denyReason(t, w.event("Edit .env, nobody to ask", edit(env, "KEY=1", "KEY=2"), hook.Options{}))
	if !strings.Contains(why, "sensitive") || !strings.Contains(why, "approval") {
		t.Fatalf("reason: %s", why)
	}
	write := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": w.path(".env.local"), "content": "K=1\n"}}
	if why = denyReason(t, w.event("Write a new .env.local", write, hook.Options{})); !strings.Contains(why, "sensitive") {
		t.Fatalf("reason: %s", why)
	}
	gitHook := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": w.path(".git/hooks/pre-commit"), "content": "#!/bin/sh\n"}}
	denyReason(t, w.event("Write into .git", gitHook, hook.Options{}))

	// The user approves: asked as a write; the guard then judges the lines.
	a := &asked{answer: engine.AllowOnce}
	w.approver = a
	why = denyReason(t, w.event("Edit .env, approved", edit(env, "KEY=1", "KEY=2"), hook.Options{}))
	if !strings.Contains(why, "never shown") {
		t.Fatalf("after approval, the guard's refusal: %s", why)
	}
	if got := a.ops(".env"); len(got) == 0 || got[0] != "write" {
		t.Fatalf("approvals asked for .env: %v", got)
	}
	// The user refuses: denied.
	a.answer = engine.Deny
	if why = denyReason(t, w.event("Edit .env, refused", edit(env, "KEY=1", "KEY=2"), hook.Options{})); !strings.Contains(why, "refused") {
		t.Fatalf("reason: %s", why)
	}
	// Outside the workspace, and an ordinary new file: the tool proceeds.
	w.approver = nil
	if a := w.event("outside", edit("/etc/hosts", "localhost", "x"), hook.Options{}); denied(a) {
		t.Fatalf("outside the workspace: %s", a.Stdout)
	}
	newFile := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": w.path("new.txt"), "content": "x\n"}}
	if a := w.event("new file", newFile, hook.Options{}); denied(a) {
		t.Fatalf("a new file: %s", a.Stdout)
	}
}
