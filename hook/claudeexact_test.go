package hook_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hook"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
)

// readLines records lines from..to of name as Read showed them.
func (w *workspace) readLines(name string, from, to int) {
	w.t.Helper()
	ls := strings.Split(strings.ReplaceAll(w.read(name), "\r\n", "\n"), "\n")
	w.event("Read "+name, readEvent(w.path(name), strings.Join(ls[from-1:to], "\n"), from, len(ls)), hook.Options{})
}

// refusedChecks counts the refused sightline/check rows of the audit.
func (w *workspace) refusedChecks() int {
	w.t.Helper()
	b := w.router()
	defer b.Close(context.Background())
	res, err := route.Do(context.Background(), b, ops.Audit, engine.AuditParams{Limit: 1000})
	if err != nil {
		w.t.Fatal(err)
	}
	n := 0
	for _, e := range res.Entries {
		if e.Method == "sightline/check" && e.Outcome != "ok" {
			n++
		}
	}
	return n
}

// TestClaudeRelativePathIsJudged: a relative file_path is resolved against
// the event's cwd, as Claude Code resolves it, and judged (and audited);
// one that cannot be resolved is refused, audited too.
func TestClaudeRelativePathIsJudged(t *testing.T) {
	w := newWorkspace(t, map[string]string{"f.txt": "one\ntwo\n", ".env": "K=1\n"})
	for name, ev := range map[string]map[string]any{
		"Edit of unread lines": edit("f.txt", "two", "2"),
		"Write .env": {"hook_event_name": "PreToolUse", "tool_name": "Write",
			"tool_input": map[string]any{"file_path": ".env", "content": "K=2\n"}},
		"Write ./sub/../.env": {"hook_event_name": "PreToolUse", "tool_name": "Write",
			"tool_input": map[string]any{"file_path": "./sub/../.env", "content": "K=2\n"}},
		"a path from the home folder": edit("~/f.txt", "two", "2"),
	} {
		before := w.refusedChecks()
		if a := w.event(name, ev, hook.Options{}); !denied(a) {
			t.Errorf("%s: not denied: %s", name, a.Stdout)
		}
		if got := w.refusedChecks(); got != before+1 {
			t.Errorf("%s: %d refusals audited, want %d", name, got, before+1)
		}
	}
	// Read through a relative path counts; the Edit then passes.
	w.event("Read f.txt", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input":    map[string]any{"file_path": "f.txt"},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "f.txt", "content": "one\ntwo", "numLines": 2, "startLine": 1, "totalLines": 2}}}, hook.Options{})
	if a := w.event("Edit after the read", edit("f.txt", "two", "2"), hook.Options{}); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
}

// TestClaudeMultiEditIsSequential: each edit of a MultiEdit is found in the
// text the edits before it left, as Claude Code applies them: an old_string
// that exists only after the first edit is judged where it then is.
func TestClaudeMultiEditIsSequential(t *testing.T) {
	w := newWorkspace(t, map[string]string{"f.txt": "X-\nsecret\nZ\n"})
	f := w.path("f.txt")
	w.readLines("f.txt", 1, 1)
	w.readLines("f.txt", 3, 3)
	multi := func(edits ...map[string]any) map[string]any {
		return map[string]any{"hook_event_name": "PreToolUse", "tool_name": "MultiEdit",
			"tool_input": map[string]any{"file_path": f, "edits": edits}}
	}
	// "X\nsecret" exists only once the first edit made line 1 "X": it
	// spans line 2, never shown.
	a := w.event("MultiEdit reaching an unread line", multi(
		map[string]any{"old_string": "X-", "new_string": "X"},
		map[string]any{"old_string": "X\nsecret", "new_string": "Y"}), hook.Options{})
	if !denied(a) || !strings.Contains(denyReason(t, a), "Line 2 was never shown") {
		t.Fatalf("not denied for line 2: %s", a.Stdout)
	}
	// "X\n" too exists only after the first edit, and spans line 1 only.
	if a := w.event("MultiEdit within read lines", multi(
		map[string]any{"old_string": "X-", "new_string": "X"},
		map[string]any{"old_string": "X\n", "new_string": "W\n"}), hook.Options{}); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
	// A later edit of a line an earlier one wrote is the agent's own.
	w2 := newWorkspace(t, map[string]string{"f.txt": "a\nb\nc\n"})
	w2.readLines("f.txt", 1, 1)
	if a := w2.event("MultiEdit of its own line", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "MultiEdit",
		"tool_input": map[string]any{"file_path": w2.path("f.txt"), "edits": []map[string]any{
			{"old_string": "a", "new_string": "a\nnew"}, {"old_string": "new", "new_string": "NEW"}}}}, hook.Options{}); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
}

// TestClaudeEditOfACRLFFile: Claude Code reads a CRLF file with LF line
// breaks, so a multi-line old_string with LF is found there, and judged:
// the lines it spans, exactly.
func TestClaudeEditOfACRLFFile(t *testing.T) {
	w := newWorkspace(t, map[string]string{"f.txt": "one\r\ntwo\r\nthree\r\nfour\r\n"})
	f := w.path("f.txt")
	a := w.event("Edit across CRLF lines, unread", edit(f, "two\nthree", "2\n3"), hook.Options{})
	why := denyReason(t, a)
	if !strings.Contains(why, "Lines 2-3 were never shown") {
		t.Fatalf("reason: %s", why)
	}
	if a := w.event("Edit retried", edit(f, "two\nthree", "2\n3"), hook.Options{}); denied(a) {
		t.Fatalf("the retry was denied: %s", a.Stdout)
	}
	// Curly quotes in the file match straight ones, as Claude Code matches.
	w2 := newWorkspace(t, map[string]string{"q.txt": "a\nsay \u201chi\u201d\nb\n"})
	why = denyReason(t, w2.event("Edit with straight quotes", edit(w2.path("q.txt"), `say "hi"`, `say "bye"`), hook.Options{}))
	if !strings.Contains(why, "Line 2 was never shown") {
		t.Fatalf("reason: %s", why)
	}
}

// TestClaudeReadOfAnotherShape: a Read whose answer is not the documented
// shape records nothing; only a Read with no answer falls back to its range.
func TestClaudeReadOfAnotherShape(t *testing.T) {
	w := newWorkspace(t, map[string]string{"f.txt": "one\ntwo\n"})
	f := w.path("f.txt")
	for name, resp := range map[string]any{
		"content a number": map[string]any{"type": "text", "file": map[string]any{"filePath": f, "content": 5, "startLine": 1}},
		"content null":     map[string]any{"type": "text", "file": map[string]any{"filePath": f, "content": nil, "startLine": 1}},
		"no file":          map[string]any{"type": "text"},
		"file a string":    map[string]any{"type": "text", "file": "x"},
		"a string":         "one\ntwo",
		"an image":         map[string]any{"type": "image", "file": map[string]any{"content": "one\ntwo"}},
		"case variant":     map[string]any{"type": "text", "File": map[string]any{"filePath": f, "content": "one\ntwo", "startLine": 1}},
		"null":             nil,
	} {
		w.event("Read, "+name, map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read",
			"tool_input": map[string]any{"file_path": f}, "tool_response": resp}, hook.Options{})
		if got := w.ledger("claude-abc", "f.txt"); !strings.Contains(got, "never_read") {
			t.Fatalf("%s: ledger: %s", name, got)
		}
	}
}
