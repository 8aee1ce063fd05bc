package hook_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hook"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
	ws "github.com/sightline-lsp/sightline/workspace"
)

func codexWorkspace(t *testing.T, files map[string]string) *workspace {
	w := newWorkspace(t, files)
	w.answer, w.agent = hook.Codex, "codex"
	return w
}

func patchOf(body string) map[string]any {
	return applyPatch("PreToolUse", "*** Begin Patch\n"+body+"*** End Patch\n")
}

// TestCodexPatchDestination: a patch's destination passes the admission of
// a write and, when it exists, is judged as a whole-file overwrite; the
// source of a move is deleted whole, as Codex's apply_patch does it.
func TestCodexPatchDestination(t *testing.T) {
	w := codexWorkspace(t, map[string]string{"src.py": "a\n", "src2.py": "b\n", "other.py": "secret\n", ".env": "KEY=1\n"})
	os.MkdirAll(filepath.Join(w.root, ".git", "hooks"), 0o755)
	w.write(".git/config", "[core]\n")
	none := hook.Options{}
	w.event("cat src.py", shell("cat src.py", "a\n"), none)
	w.event("cat src2.py", shell("cat src2.py", "b\n"), none)

	for _, c := range []struct{ name, body, want string }{
		{"move into .git", "*** Update File: src.py\n*** Move to: .git/hooks/pre-commit\n@@\n-a\n+#!/bin/sh\n", ".git/hooks/pre-commit: "},
		{"move onto .env", "*** Update File: src.py\n*** Move to: .env\n@@\n-a\n+KEY=2\n", "sensitive"},
		{"move over an unread file", "*** Update File: src.py\n*** Move to: other.py\n@@\n-a\n+x\n", "other.py: Line 1 was never shown"},
		{"add over .git/config", "*** Add File: .git/config\n+[x]\n", ".git/config: "},
	} {
		// The path ends the refusal's first words as the system writes it.
		want := strings.Replace(c.want, ".git/hooks/pre-commit: ", filepath.FromSlash(".git/hooks/pre-commit")+": ", 1)
		want = strings.Replace(want, ".git/config: ", filepath.FromSlash(".git/config")+": ", 1)
		if why := denyReason(t, w.event(c.name, patchOf(c.body), none)); !strings.Contains(why, want) {
			t.Errorf("%s: the refusal does not say %q: %s", c.name, c.want, why)
		}
	}
	// A unified diff is no patch Codex's apply_patch reads: refused with
	// the reason, never let through unjudged.
	rename := applyPatch("PreToolUse", "diff --git a/src.py b/.git/config\nsimilarity index 100%\nrename from src.py\nrename to .git/config\n")
	if why := denyReason(t, w.event("unified rename to .git/config", rename, none)); !strings.Contains(why, "Begin Patch") {
		t.Errorf("reason: %s", why)
	}
	// The source of a move is deleted: all of it must have been read.
	w.write("half.py", "one\ntwo\n")
	w.event("sed half", shell("sed -n '1,1p' half.py", "one\n"), none)
	if a := w.event("move of a half-read file", patchOf("*** Update File: half.py\n*** Move to: whole.py\n@@\n-one\n+1\n"), none); !denied(a) {
		t.Errorf("move of a half-read file: allowed")
	}
	// A move of a file read whole to a new name proceeds.
	if a := w.event("move to a new file", patchOf("*** Update File: src2.py\n*** Move to: fresh.py\n@@\n-b\n+B\n"), none); denied(a) {
		t.Errorf("move to a new file: %s", a.Stdout)
	}
}

// TestCodexLenientHunks: hunks are judged where Codex's apply_patch will
// apply them: its search from a cursor that moves forward, exact first,
// then ignoring trailing whitespace, then surrounding whitespace, then
// Unicode punctuation; a trailing empty context line retried without it.
func TestCodexLenientHunks(t *testing.T) {
	none := hook.Options{}
	cases := []struct {
		name, file, read, patch string
		want                    string // the unread lines the refusal names
	}{{
		// The second hunk is sought after the first: the exact "foo"
		// above is behind the cursor, the unread "foo  " is where it goes.
		name: "cursor past an exact match", file: "foo\nA\nB\nfoo  \n", read: "foo\nA\nB\n",
		patch: "*** Update File: f.py\n@@\n A\n-B\n+b\n@@\n-foo\n+bar\n",
		want:  "Line 4 was never shown",
	}, {
		// Codex keeps the empty context line and finds "foo  " followed
		// by an empty line before it drops it.
		name: "trailing empty context line", file: "foo\nbar\nfoo  \n\nend\n", read: "foo\nbar\n",
		patch: "*** Update File: f.py\n@@\n-foo\n+baz\n\n",
		want:  "Lines 3-4 were never shown",
	}, {
		name: "unicode dash after the cursor", file: "a - b\nx\ny\na – b\n", read: "a - b\nx\ny\n",
		patch: "*** Update File: f.py\n@@\n-y\n+Y\n@@\n-a - b\n+c\n",
		want:  "Line 4 was never shown",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := codexWorkspace(t, map[string]string{"f.py": c.file})
			n := strings.Count(c.read, "\n")
			w.event("read", shell("sed -n '1,"+strconv.Itoa(n)+"p' f.py", c.read), none)
			if why := denyReason(t, w.event(c.name, patchOf(c.patch), none)); !strings.Contains(why, c.want) {
				t.Fatalf("the refusal does not name the lines Codex changes (%s): %s", c.want, why)
			}
		})
	}
}

// TestCodexHostile: patches and events a confused or hostile agent can
// send are refused, never let through unjudged.
func TestCodexHostile(t *testing.T) {
	w := codexWorkspace(t, map[string]string{"f.py": "a\nb\n", "crlf.py": "a\rb\n"})
	os.MkdirAll(filepath.Join(w.root, ".git"), 0o755)
	w.write(".git/config", "[core]\n")
	os.MkdirAll(filepath.Join(w.root, "sub"), 0o755)
	symlink(t, filepath.Join(w.root, ".git"), filepath.Join(w.root, "lnk"))
	os.Symlink(filepath.Join(w.root, ".git", "config"), filepath.Join(w.root, "cfg.py"))
	none := hook.Options{}
	w.event("cat f.py", shell("cat f.py", "a\nb\n"), none)
	w.event("cat crlf.py", shell("cat crlf.py", "a\rb\n"), none)

	for name, ev := range map[string]map[string]any{
		"absolute path into .git":    patchOf("*** Add File: " + w.path(".git/config") + "\n+x\n"),
		"dot-dot into .git":          patchOf("*** Add File: sub/../.git/config\n+x\n"),
		"through a link into .git":   patchOf("*** Add File: lnk/config\n+x\n"),
		"dot-dot after a link":       patchOf("*** Add File: lnk/../f.py\n+x\n"),
		"update through a link":      patchOf("*** Update File: cfg.py\n@@\n-[core]\n+[x]\n"),
		"a file twice":               patchOf("*** Update File: f.py\n@@\n-a\n+A\n*** Update File: f.py\n@@\n-A\n+Z\n"),
		"a file twice, other case":   patchOf("*** Update File: f.py\n@@\n-a\n+A\n*** Delete File: F.py\n"),
		"a move onto itself":         patchOf("*** Update File: f.py\n*** Move to: f.py\n@@\n-a\n+A\n"),
		"prose around the patch":     applyPatch("PreToolUse", "Here:\n*** Begin Patch\n*** Delete File: f.py\n*** End Patch\n"),
		"no file":                    applyPatch("PreToolUse", "*** Begin Patch\n*** End Patch\n"),
		"two @@ lines":               patchOf("*** Update File: f.py\n@@ a\n@@ b\n-x\n+y\n"),
		"a lone carriage return":     patchOf("*** Update File: crlf.py\n@@\n-b\n+B\n"),
		"command twice":              {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": json.RawMessage(`{"command":"*** Begin Patch\n*** Delete File: x\n*** End Patch","command":"*** Begin Patch\n*** Delete File: f.py\n*** End Patch"}`)},
		"command in another case":    {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": json.RawMessage(`{"Command":"*** Begin Patch\n*** Delete File: f.py\n*** End Patch"}`)},
		"command an argument list":   {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": map[string]any{"command": []string{"apply_patch", "*** Begin Patch\n*** Delete File: .git/config\n*** End Patch"}}},
		"no tool_input":              {"hook_event_name": "PreToolUse", "tool_name": "apply_patch"},
		"hunks colliding at the end": patchOf("*** Update File: f.py\n@@\n-b\n+B\n@@\n-b\n+C\n*** End of File\n"),
	} {
		if a := w.event(name, ev, none); !denied(a) {
			t.Errorf("%s: allowed (%q)", name, a.Stderr)
		} else if testing.Verbose() {
			t.Logf("%s: %s", name, denyReason(t, a))
		}
	}
	if got := w.read(".git/config"); got != "[core]\n" {
		t.Fatalf(".git/config: %q", got)
	}
	// The door's own refusals are audited.
	b := w.router()
	defer b.Close(context.Background())
	res, err := route.Do(context.Background(), b, ops.Audit, engine.AuditParams{Session: "codex-abc"})
	if err != nil {
		t.Fatal(err)
	}
	unjudged := 0
	for _, e := range res.Entries {
		if e.Error == "unjudged" {
			unjudged++
		}
	}
	if unjudged < 10 {
		t.Fatalf("%d unjudged refusals audited", unjudged)
	}
}

func shellPre(command string) map[string]any {
	return map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command}}
}

// TestCodexShellPatch: Codex carries out an apply_patch run through its
// shell itself, so the hook judges it as the tool's (from the folder a
// leading cd names), and refuses one it cannot read exactly; other shell
// commands are not its to judge.
func TestCodexShellPatch(t *testing.T) {
	w := codexWorkspace(t, map[string]string{"f.py": "a\nb\n"})
	os.MkdirAll(filepath.Join(w.root, "sub"), 0o755)
	w.write("sub/g.py", "x\ny\n")
	none := hook.Options{}
	body := "*** Begin Patch\n*** Update File: f.py\n@@\n-b\n+B\n*** End Patch\n"
	if why := denyReason(t, w.event("shell apply_patch of an unread line", shellPre("apply_patch <<'EOF'\n"+body+"EOF\n"), none)); !strings.Contains(why, "f.py: Lines 2") && !strings.Contains(why, "f.py: Line 2") {
		t.Fatalf("reason: %s", why)
	}
	// The refusal handed the lines over: the same command now proceeds.
	if a := w.event("retried", shellPre("apply_patch <<'EOF'\n"+body+"EOF\n"), none); denied(a) {
		t.Fatalf("retry denied: %s", a.Stdout)
	}
	w.write("f.py", "a\nB\n")
	w.event("the shell's patch ran", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "apply_patch <<'EOF'\n" + body + "EOF\n"}, "tool_response": "Success."}, none)
	if got := w.ledger("codex-abc", "f.py"); !strings.Contains(got, "authored 2") {
		t.Fatalf("ledger after the shell's patch: %s", got)
	}
	sub := "cd sub && applypatch <<EOF\n*** Begin Patch\n*** Update File: g.py\n@@\n-y\n+Y\n*** End Patch\nEOF"
	if why := denyReason(t, w.event("cd sub && applypatch", shellPre(sub), none)); !strings.Contains(why, filepath.Join("sub", "g.py")+": Line 2") {
		t.Fatalf("reason: %s", why)
	}
	for name, command := range map[string]string{
		"a command before":   "echo hi; apply_patch <<'EOF'\n" + body + "EOF\n",
		"a command after":    "apply_patch <<'EOF'\n" + body + "EOF\necho done\n",
		"no end":             "apply_patch <<'EOF'\n" + body,
		"cd with a variable": "cd $HOME && apply_patch <<'EOF'\n" + body + "EOF\n",
		"tab-stripping <<-":  "apply_patch <<-EOF\n" + body + "EOF\n",
		"a bare patch as sh": "bash -c 'apply_patch \"" + body + "\"'",
	} {
		if a := w.event(name, shellPre(command), none); !denied(a) {
			t.Errorf("%s: allowed", name)
		}
	}
	audit := func() []engine.AuditRow {
		b := w.router()
		defer b.Close(context.Background())
		res, err := route.Do(context.Background(), b, ops.Audit, engine.AuditParams{Session: "codex-abc"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Entries
	}
	before := audit()
	if a := w.event("ls", shellPre("ls -la"), none); denied(a) || len(a.Stdout) != 0 {
		t.Fatalf("ls: %s", a.Stdout)
	}
	// Nothing to judge: nothing audited.
	if after := audit(); len(after) != len(before) {
		t.Fatalf("ls was audited: %+v", after[len(before):])
	}
}

// olderServer answers every check as a server of an earlier build does,
// knowing no dialect: the change may proceed.
type olderServer struct{}

func (o olderServer) Call(context.Context, ops.Op, any) (any, error) {
	return engine.CheckResult{Outcome: engine.Outcome{OK: true}, Exists: true, Targets: []ledger.Range{{Start: 1, End: 1}}}, nil
}

func (o olderServer) Key(path string) ws.Key { return ws.FromPath(path) }

func (o olderServer) Root() string { return "" }

// TestCodexOlderServer: an answer that does not say the change was placed
// as the agent's tool places it (Codex's hunks, Claude Code's edits) is no
// verdict on it, and the change is refused.
func TestCodexOlderServer(t *testing.T) {
	root := t.TempDir()
	raw, _ := json.Marshal(map[string]any{"session_id": "abc", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
		"tool_input": map[string]any{"command": "*** Begin Patch\n*** Update File: f.py\n@@\n-a\n+b\n*** End Patch"}})
	ev, err := hook.ParseClaude(raw)
	if err != nil {
		t.Fatal(err)
	}
	if a := hook.Codex(context.Background(), olderServer{}, ev, hook.Options{}); !denied(a) || !strings.Contains(a.Stderr, "earlier build") {
		t.Fatalf("an older server's yes was taken: %q %q", a.Stdout, a.Stderr)
	}
	raw, _ = json.Marshal(map[string]any{"session_id": "abc", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": filepath.Join(root, "f.py"), "old_string": "a", "new_string": "b"}})
	if ev, err = hook.ParseClaude(raw); err != nil {
		t.Fatal(err)
	}
	if a := hook.Claude(context.Background(), olderServer{}, ev, hook.Options{Root: root}); !denied(a) || !strings.Contains(a.Stderr, "earlier build") {
		t.Fatalf("Claude Code: an older server's yes was taken: %q %q", a.Stdout, a.Stderr)
	}
}
