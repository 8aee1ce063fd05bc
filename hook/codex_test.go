package hook_test

import (
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hook"
)

func applyPatch(event, text string) map[string]any {
	return map[string]any{"hook_event_name": event, "tool_name": "apply_patch", "tool_input": map[string]any{"command": text}}
}

func shell(command, output string) map[string]any {
	return map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command}, "tool_response": output}
}

// TestCodexContract walks Codex's events through the hook: apply_patch
// guarded hunk by hunk, shell reads recorded when the command says which
// lines its output is, compaction expiring reads. Answers in
// testdata/codex.golden.
func TestCodexContract(t *testing.T) {
	w := newWorkspace(t, map[string]string{"f.py": "a\nb\nc\nd\ne\nf\ng\nh\n", "g.py": "x\ny\n"})
	w.answer, w.agent = hook.Codex, "codex"
	none := hook.Options{}
	p := "*** Begin Patch\n*** Update File: f.py\n@@\n b\n-c\n+C\n d\n*** End Patch\n"

	if a := w.event("PreToolUse apply_patch of unread lines: deny", applyPatch("PreToolUse", p), none); !denied(a) || !strings.Contains(string(a.Stdout), `\n2\tb\n3\tc\n4\td\n`) {
		t.Fatalf("not denied with the hunk's lines: %s", a.Stdout)
	}
	if a := w.event("PreToolUse apply_patch retried: allow", applyPatch("PreToolUse", p), none); denied(a) {
		t.Fatalf("retry denied: %s", a.Stdout)
	}
	w.write("f.py", "a\nb\nC\nd\ne\nf\ng\nh\n")
	w.event("PostToolUse apply_patch: the added line is authored", applyPatch("PostToolUse", p), none)
	if got := w.ledger("codex-abc", "f.py"); !strings.Contains(got, "read 2,4") || !strings.Contains(got, "authored 3") {
		t.Fatalf("ledger after the patch: %s", got)
	}

	// Shell reads whose output names its lines.
	w.event("sed -n 'A,Bp' F", shell("sed -n '6,7p' f.py", "f\ng\n"), none)
	w.event("nl -ba F | sed -n", shell("nl -ba f.py | sed -n '8,8p'", "     8\th\n"), none)
	w.event("grep -n", shell("grep -n e f.py", "5:e\n"), none)
	w.event("head -n", shell("head -n 1 f.py", "a\n"), none)
	if got := w.ledger("codex-abc", "f.py"); !strings.Contains(got, "fully_read") {
		t.Fatalf("ledger after shell reads: %s", got)
	}
	// Commands whose output is not a file's lines record nothing.
	w.event("cat of two files: nothing", shell("cat g.py f.py", "x\ny\n"), none)
	w.event("a pipe into wc: nothing", shell("cat g.py | wc -l", "2\n"), none)
	w.event("a substitution: nothing", shell("cat $(echo g.py)", "x\ny\n"), none)
	if got := w.ledger("codex-abc", "g.py"); !strings.Contains(got, "never_read") {
		t.Fatalf("ledger of g.py: %s", got)
	}
	w.event("cat F", shell("cat g.py", "x\ny\n"), none)
	if got := w.ledger("codex-abc", "g.py"); !strings.Contains(got, "fully_read") {
		t.Fatalf("ledger of g.py after cat: %s", got)
	}

	// Deleting a file needs all of it; adding a new one needs nothing.
	if a := w.event("PreToolUse apply_patch delete of a file read whole: allow", applyPatch("PreToolUse", "*** Begin Patch\n*** Delete File: g.py\n*** End Patch\n"), none); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
	if a := w.event("PreToolUse apply_patch add: allow", applyPatch("PreToolUse", "*** Begin Patch\n*** Add File: n.py\n+new\n*** End Patch\n"), none); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
	// A hunk sightline cannot place is refused: Codex's own search might
	// place it where sightline did not look.
	if a := w.event("PreToolUse apply_patch, hunk not in the file: deny", applyPatch("PreToolUse", "*** Begin Patch\n*** Update File: f.py\n@@\n-zzz\n+y\n*** End Patch\n"), none); !denied(a) {
		t.Fatalf("not denied: %s", a.Stdout)
	}

	w.event("PreCompact: a new epoch", map[string]any{"hook_event_name": "PreCompact", "trigger": "auto"}, none)
	if a := w.event("PreToolUse apply_patch after compaction: deny", applyPatch("PreToolUse", "*** Begin Patch\n*** Update File: f.py\n@@\n-a\n+A\n*** End Patch\n"), none); !denied(a) {
		t.Fatalf("not denied after compaction: %s", a.Stdout)
	}
	golden(t, "codex.golden", w.log.String())
}
