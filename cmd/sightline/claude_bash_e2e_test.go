package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeBashReads runs the real Claude Code: lines its Bash tool
// showed with `grep -n` and `sed -n 'A,Bp'` count as read, so the edits
// of those lines pass; `cat` of a file whose first lines are blank
// records nothing (Claude Code drops an output's leading blank lines, so
// which lines the rest are is not known) and the edit of a line it showed
// is denied, as is one of a line no command showed.
func TestClaudeCodeBashReads(t *testing.T) {
	c := newCLI(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n", "b.txt": "\n\n  \nx\ny\n"})
	f, b := filepath.Join(c.dir, "f.txt"), filepath.Join(c.dir, "b.txt")
	bash := func(command string) map[string]any {
		return map[string]any{"name": "Bash", "input": map[string]any{"command": command}}
	}
	edit := func(file, old, new string) map[string]any {
		return map[string]any{"name": "Edit", "input": map[string]any{"file_path": file, "old_string": old, "new_string": new}}
	}
	res := playClaudeWith(t, c, c.dir, []string{"--allowedTools", "Bash"},
		bash("grep -n t f.txt"),
		edit(f, "three", "THREE"),
		edit(f, "one", "ONE"),
		bash("sed -n '4,5p' f.txt"),
		edit(f, "four\nfive", "FOUR\nFIVE"),
		bash("cat b.txt"),
		edit(b, "x", "X"),
	)
	for i, want := range []string{"2:two", "error=false", "Line 1 was never shown", "four", "error=false", "x", "Line 4 was never shown"} {
		if !strings.Contains(res[i], want) {
			t.Errorf("result %d: %s, want %q", i+1, res[i], want)
		}
	}
	if got, _ := os.ReadFile(f); string(got) != "one\ntwo\nTHREE\nFOUR\nFIVE\n" {
		t.Errorf("f.txt: %q", got)
	}
	if got, _ := os.ReadFile(b); string(got) != "\n\n  \nx\ny\n" {
		t.Errorf("b.txt: %q", got)
	}
	t.Logf("results: %q", res)
}
