package hook_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hook"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// workspace is a folder with its own state folder, and one hook process
// per event, as Claude Code runs them: what one event records reaches the
// next through the ledger database only.
type workspace struct {
	t     testing.TB
	root  string
	state string
	log   strings.Builder
	// answer is the agent's door (hook.Claude unless set), agent its name
	// for an event that cannot be read.
	answer func(context.Context, judge.Router, hook.ClaudeEvent, hook.Options) hook.Answer
	agent  string
	// approver answers for the user (nil: nobody to ask, as in a terminal
	// with no server running).
	approver engine.Approver
}

func newWorkspace(t testing.TB, files map[string]string) *workspace {
	w := &workspace{t: t, root: t.TempDir(), state: t.TempDir(), answer: hook.Claude, agent: "claude"}
	for name, text := range files {
		w.write(name, text)
	}
	return w
}

func (w *workspace) write(name, text string) {
	if err := os.WriteFile(filepath.Join(w.root, name), []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *workspace) read(name string) string {
	b, err := os.ReadFile(filepath.Join(w.root, name))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

func (w *workspace) router() *route.Router {
	return route.New(route.Options{Root: w.root, StateDir: w.state, NoBridge: true,
		OpenLocal: func(ctx context.Context) (*engine.Env, error) {
			return engine.Setup(ctx, engine.Options{Roots: []string{w.root}, Config: config.Default(), StateDir: w.state, Ephemeral: true, Approver: w.approver}), nil
		}})
}

// event answers one event as a hook process would, and logs it for the
// golden file.
func (w *workspace) event(step string, ev map[string]any, opt hook.Options) hook.Answer {
	w.t.Helper()
	ev["cwd"] = w.root
	if _, ok := ev["session_id"]; !ok {
		ev["session_id"] = "abc"
	}
	raw, _ := json.Marshal(ev)
	b := w.router()
	if opt.Root == "" {
		// The root the hook's process was given (CLAUDE_PROJECT_DIR).
		opt.Root = w.root
	}
	var a hook.Answer
	if parsed, err := hook.ParseClaude(raw); err != nil {
		// As the hook's process answers an event it cannot read.
		a = hook.Unreadable(context.Background(), b, w.agent, raw, err.Error())
	} else {
		a = w.answer(context.Background(), b, parsed, opt)
	}
	if err := b.Close(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	out := strings.ReplaceAll(string(a.Stdout), w.root, "$ROOT")
	if filepath.Separator == '\\' {
		// The answers are JSON: the root's separators are escaped there,
		// and a path's are Windows' own.
		root, _ := json.Marshal(w.root)
		out = strings.ReplaceAll(out, string(root[1:len(root)-1]), "$ROOT")
		out = strings.ReplaceAll(out, `$ROOT\\`, "$ROOT/")
	}
	fmt.Fprintf(&w.log, "## %s\n%s", step, out)
	if out == "" {
		w.log.WriteString("(nothing: the tool call proceeds)\n")
	}
	return a
}

func (w *workspace) path(name string) string { return filepath.Join(w.root, name) }

// ledger is a session's ledger of one file, as the CLI prints it.
func (w *workspace) ledger(session, name string) string {
	w.t.Helper()
	b := w.router()
	defer b.Close(context.Background())
	res, err := route.Do(context.Background(), b, ops.Ledger, engine.LedgerParams{Caller: engine.Caller{Session: session},
		TextDocument: &engine.TextDocument{URI: string(b.Key(w.path(name)))}})
	if err != nil {
		w.t.Fatal(err)
	}
	return ops.Ledger.Text(res)
}

func denied(a hook.Answer) bool {
	var out struct {
		HookSpecificOutput struct {
			HookEventName, PermissionDecision, PermissionDecisionReason string
		} `json:"hookSpecificOutput"`
	}
	if len(a.Stdout) == 0 {
		return false
	}
	if err := json.Unmarshal(a.Stdout, &out); err != nil {
		panic(err)
	}
	return out.HookSpecificOutput.HookEventName == "PreToolUse" && out.HookSpecificOutput.PermissionDecision == "deny"
}

func edit(file, old, new string) map[string]any {
	return map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": file, "old_string": old, "new_string": new}}
}

func readEvent(file, content string, start, total int) map[string]any {
	n := strings.Count(content, "\n") + 1
	return map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input":    map[string]any{"file_path": file},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": content, "numLines": n, "startLine": start, "totalLines": total}}}
}

// TestClaudeContract walks Claude Code's documented events through the hook
// over the real engine and database: each event, each tool, each decision.
// The answers are compared with testdata/claude.golden.
func TestClaudeContract(t *testing.T) {
	long := strings.Repeat("x", 2100)
	w := newWorkspace(t, map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n", "long.txt": "a\n" + long + "\nc\n"})
	f := w.path("f.txt")
	none := hook.Options{}

	w.event("SessionStart startup", map[string]any{"hook_event_name": "SessionStart", "source": "startup"}, none)

	// An edit of lines never shown is denied, with the lines in the reason;
	// the retry passes.
	a := w.event("PreToolUse Edit of unread lines: deny", edit(f, "two\nthree", "2\n3"), none)
	if !denied(a) || !strings.Contains(string(a.Stdout), `\n2\ttwo\n3\tthree\n`) {
		t.Fatalf("not denied with the lines: %s", a.Stdout)
	}
	if a := w.event("PreToolUse Edit retried: allow", edit(f, "two\nthree", "2\n3"), none); denied(a) {
		t.Fatalf("the retry was denied: %s", a.Stdout)
	}

	// Claude Code's Edit runs; its PostToolUse records the written lines.
	w.write("f.txt", "one\n2\n3\nfour\nfive\n")
	w.event("PostToolUse Edit: records the written lines", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": f, "old_string": "two\nthree", "new_string": "2\n3"},
		"tool_response": map[string]any{"filePath": f, "oldString": "two\nthree", "newString": "2\n3",
			"structuredPatch": []map[string]any{{"oldStart": 1, "oldLines": 4, "newStart": 1, "newLines": 4, "lines": []string{" one", "-two", "-three", "+2", "+3", " four"}}}}}, none)
	if got := w.ledger("claude-abc", "f.txt"); !strings.Contains(got, "authored 2-3") {
		t.Fatalf("ledger after the edit: %s", got)
	}
	if a := w.event("PreToolUse Edit of its own lines: allow", edit(f, "2\n3", "two\nthree"), none); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}

	// A Read records what it showed; a line changed since is stale.
	w.event("PostToolUse Read: records lines 1-5", readEvent(f, "one\n2\n3\nfour\nfive", 1, 5), none)
	w.write("f.txt", "one\n2\n3\nFOUR\nfive\n")
	if a := w.event("PreToolUse Edit of a line changed since read: deny", edit(f, "FOUR", "4"), none); !denied(a) || !strings.Contains(string(a.Stdout), "changed since") {
		t.Fatalf("not denied as stale: %s", a.Stdout)
	}

	// A line the Read tool cut short does not count.
	lf := w.path("long.txt")
	w.event("PostToolUse Read with a line cut short", readEvent(lf, "a\n"+long[:2000]+"\nc", 1, 3), none)
	if got := w.ledger("claude-abc", "long.txt"); !strings.Contains(got, "read 1,3") {
		t.Fatalf("ledger of the cut read: %s", got)
	}
	if a := w.event("PreToolUse Edit of the cut line: deny", edit(lf, long, "y"), none); !denied(a) {
		t.Fatalf("not denied: %s", a.Stdout)
	}

	// Write: an existing file needs all of it; a new file needs nothing.
	w.write("g.txt", "g1\ng2\n")
	g := w.path("g.txt")
	w.event("PostToolUse Read of part of g.txt", readEvent(g, "g1", 1, 2), none)
	if a := w.event("PreToolUse Write of a file not read whole: deny", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": g, "content": "new\n"}}, none); !denied(a) {
		t.Fatalf("not denied: %s", a.Stdout)
	}
	n := w.path("new.txt")
	if a := w.event("PreToolUse Write of a new file: allow", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": n, "content": "n1\nn2\n"}}, none); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
	w.write("new.txt", "n1\nn2\n")
	w.event("PostToolUse Write create: authored", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": n, "content": "n1\nn2\n"}, "tool_response": map[string]any{"type": "create", "filePath": n, "content": "n1\nn2\n"}}, none)
	if got := w.ledger("claude-abc", "new.txt"); !strings.Contains(got, "model_authored") {
		t.Fatalf("ledger of the created file: %s", got)
	}

	// MultiEdit: an old_string sightline cannot place is refused (it
	// cannot tell what the tool would change).
	if a := w.event("PreToolUse MultiEdit, one old_string absent: deny", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "MultiEdit",
		"tool_input": map[string]any{"file_path": f, "edits": []map[string]any{{"old_string": "one", "new_string": "1"}, {"old_string": "absent", "new_string": "x"}}}}, none); !denied(a) {
		t.Fatalf("not denied: %s", a.Stdout)
	}

	// Grep in content mode with line numbers records the lines it showed.
	w.event("PostToolUse Grep -n: records matched lines", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Grep",
		"tool_input":    map[string]any{"pattern": "g2", "path": w.root, "output_mode": "content", "-n": true},
		"tool_response": map[string]any{"mode": "content", "content": g + ":2:g2", "numLines": 1}}, none)
	if got := w.ledger("claude-abc", "g.txt"); !strings.Contains(got, "fully_read") {
		t.Fatalf("ledger after grep: %s", got)
	}

	// Context expiry: resume keeps the reads, compaction drops them.
	w.event("SessionStart resume: keeps reads", map[string]any{"hook_event_name": "SessionStart", "source": "resume"}, none)
	if a := w.event("PreToolUse Edit after resume: allow", edit(f, "one", "1"), none); denied(a) {
		t.Fatalf("denied after resume: %s", a.Stdout)
	}
	w.event("PreCompact with --keep-reads: keeps reads", map[string]any{"hook_event_name": "PreCompact", "trigger": "auto"}, hook.Options{KeepReads: true})
	if a := w.event("PreToolUse Edit after a kept compaction: allow", edit(f, "one", "1"), none); denied(a) {
		t.Fatalf("denied: %s", a.Stdout)
	}
	w.event("PreCompact: a new epoch", map[string]any{"hook_event_name": "PreCompact", "trigger": "manual"}, none)
	if a := w.event("PreToolUse Edit after compaction: deny", edit(f, "one", "1"), none); !denied(a) {
		t.Fatalf("not denied after compaction: %s", a.Stdout)
	}
	w.event("SessionStart clear: a new epoch", map[string]any{"hook_event_name": "SessionStart", "source": "clear"}, none)
	if a := w.event("PreToolUse Edit after clear: deny", edit(f, "one", "1"), none); !denied(a) {
		t.Fatalf("not denied after clear: %s", a.Stdout)
	}

	// Another conversation shares nothing.
	if a := w.event("PreToolUse Edit from another session: deny", map[string]any{"session_id": "other", "hook_event_name": "PreToolUse", "tool_name": "Edit",
		"tool_input": map[string]any{"file_path": g, "old_string": "g1", "new_string": "x"}}, none); !denied(a) {
		t.Fatalf("not denied: %s", a.Stdout)
	}

	// Every decision is audited.
	b := w.router()
	res, err := route.Do(context.Background(), b, ops.Audit, engine.AuditParams{Limit: 100})
	b.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, e := range res.Entries {
		if e.Method == "sightline/check" && e.Outcome != "ok" {
			refused++
		}
	}
	if refused != 8 {
		t.Fatalf("%d refused checks audited, want 8: %+v", refused, res.Entries)
	}

	golden(t, "claude.golden", w.log.String())
}

// TestClaudeHostile: an event that is not a change to judge lets the tool
// call proceed, a change that cannot be judged is refused, and nothing
// panics.
func TestClaudeHostile(t *testing.T) {
	w := newWorkspace(t, map[string]string{"f.txt": "one\n"})
	f := w.path("f.txt")
	for _, raw := range []string{"", "null", "[]", "{", `{"session_id":1}`, `{"session_id":"s"}`, strings.Repeat("[", 100000)} {
		if _, err := hook.ParseClaude([]byte(raw)); err == nil {
			t.Errorf("%q parsed", raw)
		}
	}
	for name, ev := range map[string]map[string]any{
		"outside the root":     edit("/etc/passwd", "root", "x"),
		"unknown tool":         {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf /"}},
		"unknown event":        {"hook_event_name": "Stop"},
		"Read without content": {"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": f, "offset": -5, "limit": -1}},
		"Read, bad response":   {"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": f}, "tool_response": map[string]any{"file": "x"}},
		"Edit, bad patch":      {"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": map[string]any{"file_path": f}, "tool_response": map[string]any{"structuredPatch": []any{map[string]any{"newStart": -3, "lines": []string{"+x", "+"}}}}},
		"Grep, odd lines":      {"hook_event_name": "PostToolUse", "tool_name": "Grep", "tool_input": map[string]any{"path": f}, "tool_response": map[string]any{"mode": "content", "content": "::\n99999999999999999999:x\n/a:b:c\n0:x"}},
	} {
		t.Run(name, func(t *testing.T) {
			if a := w.event(name, ev, hook.Options{}); denied(a) {
				t.Fatalf("denied: %s", a.Stdout)
			}
		})
	}
	// A change sightline cannot judge exactly is refused, never let
	// through: an input not as documented, an old text it cannot place.
	for name, ev := range map[string]map[string]any{
		"no tool_input":        {"hook_event_name": "PreToolUse", "tool_name": "Edit"},
		"tool_input a string":  {"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": "x"},
		"no new_string":        {"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": map[string]any{"file_path": "f.txt", "old_string": "one"}},
		"case variant members": {"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": map[string]any{"file_path": f, "Old_String": "one", "new_string": "1"}},
		"MultiEdit, no edits":  {"hook_event_name": "PreToolUse", "tool_name": "MultiEdit", "tool_input": map[string]any{"file_path": f, "edits": []any{}}},
		"Write, no content":    {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": map[string]any{"file_path": f}},
		"old_string absent":    edit(f, "nothing", "x"),
		"old_string empty":     edit(f, "", "x"),
	} {
		if a := w.event(name, ev, hook.Options{}); !denied(a) {
			t.Errorf("%s: not denied: %s", name, a.Stdout)
		}
	}
	// A member named twice, or in another case, is not read one way by
	// sightline and another by Claude Code: the event is refused whole.
	for _, raw := range []string{
		`{"session_id":"abc","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/a","file_path":"/b","old_string":"x","new_string":"y"}}`,
		"{\"session_id\":\"abc\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/a\xff\",\"content\":\"\"}}",
	} {
		if _, err := hook.ParseClaude([]byte(raw)); err == nil {
			t.Errorf("%s: parsed", raw)
		}
		b := w.router()
		a := hook.Unreadable(context.Background(), b, "claude", []byte(raw), "unreadable")
		b.Close(context.Background())
		if !denied(a) {
			t.Errorf("%s: not denied: %s", raw, a.Stdout)
		}
	}
	// Without content, a Read counts offset..offset+limit-1.
	w.event("Read by range", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": f}}, hook.Options{})
	if got := w.ledger("claude-abc", "f.txt"); !strings.Contains(got, "fully_read") {
		t.Fatalf("ledger: %s", got)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Fatalf("answers differ from %s (run with -update after checking):\n%s", p, got)
	}
}
