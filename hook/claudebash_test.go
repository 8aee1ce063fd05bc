package hook_test

import (
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hook"
)

// claudeBash is Claude Code's PostToolUse of its Bash tool, as Claude
// Code 2.1.328 sends it (tool_response's stdout without its trailing line
// break, and its leading blank lines dropped), with more of its members.
func claudeBash(command, stdout string, more map[string]any) map[string]any {
	resp := map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
	for k, v := range more {
		resp[k] = v
	}
	return map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command, "description": "Show lines"}, "tool_response": resp}
}

// TestClaudeBashContract: what Claude Code's Bash showed counts as read,
// read by the parser Codex's shell reads use, never more than the model
// was shown: an output saved to a file (the model saw a preview), a
// background command, an image record nothing; an interrupted or cut
// output counts up to the line before its last or the cut; an output
// numbered by its lines' places counts only when its first line is the
// file's line there (Claude Code drops leading blank lines).
func TestClaudeBashContract(t *testing.T) {
	w := newWorkspace(t, map[string]string{"f.py": "a\nb\nc\nd\ne\nf\ng\nh\n", "b.py": "\n\nx\ny\n", "r.py": "x\nx\nx\n"})
	none := hook.Options{}
	led := func(name, want string) {
		t.Helper()
		if got := w.ledger("claude-abc", name); !strings.Contains(got, want) {
			t.Fatalf("%s: %s, want %q", name, got, want)
		}
	}
	w.event("grep -n", claudeBash("grep -n e f.py", "5:e", nil), none)
	led("f.py", "read 5")
	w.event("sed -n", claudeBash("sed -n '2,3p' f.py", "b\nc", nil), none)
	led("f.py", "read 2-3,5")
	w.event("saved to a file", claudeBash("cat f.py", "a\nb\nc\nd\ne\nf\ng\nh", map[string]any{"persistedOutputPath": "/tmp/x.txt", "persistedOutputSize": 40000}), none)
	w.event("in the background", claudeBash("cat f.py", "a\nb\nc\nd\ne\nf\ng\nh", map[string]any{"backgroundTaskId": "t1"}), none)
	w.event("an image", claudeBash("cat f.py", "a\nb\nc\nd\ne\nf\ng\nh", map[string]any{"isImage": true}), none)
	led("f.py", "read 2-3,5")
	w.event("interrupted", claudeBash("nl -ba f.py", "     6\tf\n     7\tg", map[string]any{"interrupted": true}), none)
	led("f.py", "read 2-3,5-6")
	w.event("cut", claudeBash("tail -n +7 f.py", "g\nh\n\n... [3 lines truncated] ...\nx", nil), none)
	led("f.py", "read 2-3,5-7")
	// b.py's first lines are blank: Claude Code's output starts at x.
	w.event("cat of a file starting blank", claudeBash("cat b.py", "x\ny", nil), none)
	led("b.py", "never_read")
	// A wrong first line keeps the rest from counting, even lines that
	// happen to match where they would be numbered.
	w.event("head of lines dropped", claudeBash("head -n 3 r.py", "y\nx\nx", nil), none)
	led("r.py", "never_read")
	w.event("cat F", claudeBash("cat r.py", "x\nx\nx", nil), none)
	led("r.py", "fully_read")
	if a := w.event("an edit of lines shown through Bash", edit(w.path("f.py"), "b\nc", "B\nC"), none); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
}
