package hook_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hook"
)

// door answers one event of an agent as its hook process would (a new
// router per event; the compactions seen kept in the state folder), with
// the workspace as the project's root.
func (w *workspace) door(d *hook.Door, ev any) hook.Answer {
	w.t.Helper()
	raw, err := json.Marshal(ev)
	if err != nil {
		w.t.Fatal(err)
	}
	return w.doorRaw(d, raw)
}

func (w *workspace) doorRaw(d *hook.Door, raw []byte) hook.Answer {
	w.t.Helper()
	b := w.router()
	opt := hook.Options{Root: w.root, Epochs: hook.FileEpochs(filepath.Join(w.state, "epochs"))}
	var a hook.Answer
	if ev, err := d.Parse(raw); err != nil {
		a = d.Unreadable(context.Background(), b, ev, err.Error())
	} else {
		a = d.Judge(context.Background(), b, ev, opt)
	}
	if err := b.Close(context.Background()); err != nil {
		w.t.Fatal(err)
	}
	return a
}

// wantLedger fails unless the session's ledger of name says want.
func (w *workspace) wantLedger(session, name, want string) {
	w.t.Helper()
	if got := w.ledger(session, name); !strings.Contains(got, want) {
		w.t.Fatalf("ledger of %s: %s, want %q", name, got, want)
	}
}

// answer decodes an answer's standard output (nil: none).
func answer(t *testing.T, a hook.Answer) map[string]any {
	t.Helper()
	if len(a.Stdout) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(a.Stdout, &m); err != nil {
		t.Fatalf("answer %q: %v", a.Stdout, err)
	}
	return m
}

var fiveLines = map[string]string{"f.txt": "one\ntwo\nthree\nfour\nfive\n"}

// gemini is a Gemini CLI 0.61.0 hook event as observed: every event's
// members, and the event's own.
func gemini(w *workspace, name string, more map[string]any) map[string]any {
	ev := map[string]any{"session_id": "g1", "transcript_path": "/tmp/t.json", "cwd": w.root,
		"hook_event_name": name, "timestamp": "2026-11-29T11:53:53.440Z"}
	for k, v := range more {
		ev[k] = v
	}
	return ev
}

// geminiDenied is BeforeTool's refusal: {"decision":"deny","reason":R}.
func geminiDenied(t *testing.T, a hook.Answer) string {
	t.Helper()
	m := answer(t, a)
	if m["decision"] != "deny" {
		return ""
	}
	return m["reason"].(string)
}

// TestGeminiContract: Gemini CLI's tools as they answer (observed with
// 0.61.0): a ranged read_file counts from its header's line, the shell's
// output counts when it is whole, grep_search's lines (its context lines
// too) count, an edit of an unread line is denied with the line handed
// over, and the retry's lines are the session's own.
func TestGeminiContract(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	w.write("g.txt", "alpha\nbeta\ngamma\n")
	const s = "gemini-g1"
	read := map[string]any{"file_path": "f.txt", "start_line": 2, "end_line": 3}
	w.door(hook.Gemini, gemini(w, "BeforeTool", map[string]any{"tool_name": "read_file", "tool_input": read}))
	w.door(hook.Gemini, gemini(w, "AfterTool", map[string]any{"tool_name": "read_file", "tool_input": read,
		"tool_response": map[string]any{"llmContent": "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 2-3 of 6 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 4.\n\n--- FILE CONTENT (truncated) ---\ntwo\nthree", "returnDisplay": "Read lines 2-3 of 6 from f.txt"}}))
	w.wantLedger(s, "f.txt", "read 2-3")

	edit := map[string]any{"file_path": w.path("f.txt"), "instruction": "x", "old_string": "four", "new_string": "FOUR"}
	why := geminiDenied(t, w.door(hook.Gemini, gemini(w, "BeforeTool", map[string]any{"tool_name": "replace", "tool_input": edit})))
	if !strings.Contains(why, "never shown to you") || !strings.Contains(why, "4\tfour") {
		t.Fatalf("the edit of line 4 was not denied with the line: %q", why)
	}
	if a := w.door(hook.Gemini, gemini(w, "BeforeTool", map[string]any{"tool_name": "replace", "tool_input": edit})); len(a.Stdout) != 0 {
		t.Fatalf("the retry was denied: %s", a.Stdout)
	}
	w.write("f.txt", "one\ntwo\nthree\nFOUR\nfive\n")
	w.door(hook.Gemini, gemini(w, "AfterTool", map[string]any{"tool_name": "replace", "tool_input": edit,
		"tool_response": map[string]any{"llmContent": "Successfully modified file: " + w.path("f.txt") + " (1 replacements). Here is the updated code:\none\ntwo\nthree\nFOUR\nfive\n"}}))
	w.wantLedger(s, "f.txt", "authored 4")

	shell := func(cmd, llm string) {
		w.door(hook.Gemini, gemini(w, "AfterTool", map[string]any{"tool_name": "run_shell_command", "tool_input": map[string]any{"command": cmd},
			"tool_response": map[string]any{"llmContent": llm, "returnDisplay": ""}}))
	}
	shell("sed -n 2,2p g.txt", "<untrusted_context>\nOutput: beta\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>")
	w.wantLedger(s, "g.txt", "never_read") // an exit code after the output: not known whole
	shell("sed -n 2,2p g.txt", "<untrusted_context>\nOutput: beta\nProcess Group PGID: 7\n</untrusted_context>")
	w.wantLedger(s, "g.txt", "read 2")
	w.door(hook.Gemini, gemini(w, "AfterTool", map[string]any{"tool_name": "grep_search", "tool_input": map[string]any{"pattern": "gam", "context": 15},
		"tool_response": map[string]any{"llmContent": "Found 1 match for pattern \"gam\" in path \".\":\n---\nFile: g.txt\nL1- alpha\nL3: gamma\n---"}}))
	w.wantLedger(s, "g.txt", "fully_read")

	// An empty old_string makes a new file: allowed where there is none,
	// denied over a file not read whole.
	create := func(name string) hook.Answer {
		return w.door(hook.Gemini, gemini(w, "BeforeTool", map[string]any{"tool_name": "replace",
			"tool_input": map[string]any{"file_path": name, "instruction": "x", "old_string": "", "new_string": "new\n"}}))
	}
	if a := create("new.txt"); len(a.Stdout) != 0 {
		t.Fatalf("a new file was denied: %s", a.Stdout)
	}
	w.write("new.txt", "new\n")
	w.door(hook.Gemini, gemini(w, "AfterTool", map[string]any{"tool_name": "replace",
		"tool_input":    map[string]any{"file_path": "new.txt", "instruction": "x", "old_string": "", "new_string": "new\n"},
		"tool_response": map[string]any{"llmContent": "Created new file: " + w.path("new.txt") + " with provided content. Here is the updated code:\nnew\n"}}))
	w.wantLedger(s, "new.txt", "authored 1")
	w.write("h.txt", "a\nb\n")
	if why := geminiDenied(t, create("h.txt")); why == "" {
		t.Fatal("an empty old_string over a file never read was not denied")
	}
}

// TestGeminiCompression: PreCompress "auto" comes before every model call
// and expires nothing; a compression shows in the next model call (the
// summary, then Gemini CLI's fixed answer to it), and expires what was
// read once, not again in the calls after it; /compress ("manual") does.
func TestGeminiCompression(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	const s = "gemini-g1"
	readAll := func() {
		w.door(hook.Gemini, gemini(w, "AfterTool", map[string]any{"tool_name": "read_file", "tool_input": map[string]any{"file_path": w.path("f.txt")},
			"tool_response": map[string]any{"llmContent": "one\ntwo\nthree\nfour\nfive\n"}}))
	}
	model := func(msgs ...map[string]any) map[string]any {
		return gemini(w, "BeforeModel", map[string]any{"llm_request": map[string]any{"model": "gemini-2.5-flash", "messages": msgs}})
	}
	env := map[string]any{"role": "user", "content": "<session_context>\nThis is the Gemini CLI"}
	summary := map[string]any{"role": "user", "content": "<state_snapshot>the work so far</state_snapshot>"}
	gotIt := map[string]any{"role": "model", "content": "Got it. Thanks for the additional context!"}
	readAll()
	w.door(hook.Gemini, gemini(w, "PreCompress", map[string]any{"trigger": "auto"}))
	w.door(hook.Gemini, model(env))
	w.wantLedger(s, "f.txt", "fully_read")
	// Gemini CLI's own first turns answer its environment's context with
	// the same words as a summary: that is no compression, whatever the
	// context holds (it changes from call to call).
	w.door(hook.Gemini, model(env, gotIt))
	w.door(hook.Gemini, model(map[string]any{"role": "user", "content": "<session_context>\nThis is the Gemini CLI, later"}, gotIt))
	w.wantLedger(s, "f.txt", "fully_read")
	w.door(hook.Gemini, model(env, summary, gotIt))
	w.wantLedger(s, "f.txt", "never_read")
	readAll()
	w.door(hook.Gemini, model(env, summary, gotIt, map[string]any{"role": "model", "content": "reading"}))
	w.wantLedger(s, "f.txt", "fully_read")
	w.door(hook.Gemini, gemini(w, "PreCompress", map[string]any{"trigger": "manual"}))
	w.wantLedger(s, "f.txt", "never_read")
}

// TestGeminiRefusesWhatItCannotRead: a BeforeTool sightline cannot read
// exactly as Gemini CLI will run it is denied, never passed.
func TestGeminiRefusesWhatItCannotRead(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	for name, raw := range map[string]string{
		"a member twice":      `{"session_id":"g1","cwd":"` + filepath.ToSlash(w.root) + `","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"f.txt","content":"x","content":"y"}}`,
		"no file_path":        `{"session_id":"g1","cwd":"/","hook_event_name":"BeforeTool","tool_name":"replace","tool_input":{"old_string":"one","new_string":"1"}}`,
		"input not an object": `{"session_id":"g1","cwd":"/","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":[1,2]}`,
		"an @ reference":      `{"session_id":"g1","cwd":"/","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"@f.txt","content":"x"}}`,
		"not JSON":            `{"session_id":"g1","hook_event_name":"BeforeTool"`,
		"no session":          `{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"f.txt","content":"x"}}`,
	} {
		if why := geminiDenied(t, w.doorRaw(hook.Gemini, []byte(raw))); !strings.Contains(why, "sightline refused") {
			t.Errorf("%s: not denied: %q", name, why)
		}
	}
	// An event after a tool ran that cannot be read records nothing.
	if a := w.doorRaw(hook.Gemini, []byte(`{"session_id":"g1","hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"f.txt","file_path":"g.txt"}}`)); len(a.Stdout) != 0 || a.Stderr == "" {
		t.Fatalf("answer %q %q", a.Stdout, a.Stderr)
	}
}

// copilot is a Copilot CLI 1.0.102 tool event as observed.
func copilot(w *workspace, tool string, args any, result map[string]any) map[string]any {
	ev := map[string]any{"sessionId": "c1", "timestamp": 1795953063133, "cwd": w.root, "toolName": tool, "toolArgs": args}
	if result != nil {
		ev["toolResult"] = result
	}
	return ev
}

func copilotDenied(t *testing.T, a hook.Answer) string {
	t.Helper()
	m := answer(t, a)
	if m["permissionDecision"] != "deny" {
		return ""
	}
	return m["permissionDecisionReason"].(string)
}

// TestCopilotContract: Copilot CLI's view, edit, create and bash as they
// answer (observed with 1.0.102), toolArgs an object or, as its docs show
// it, a JSON string.
func TestCopilotContract(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	const s = "copilot-c1"
	ok := func(text string) map[string]any {
		return map[string]any{"resultType": "success", "textResultForLlm": text}
	}
	view := map[string]any{"path": w.path("f.txt"), "view_range": []int{2, 3}}
	w.door(hook.Copilot, copilot(w, "view", view, nil))
	w.door(hook.Copilot, copilot(w, "view", view, ok("two\nthree")))
	w.wantLedger(s, "f.txt", "read 2-3")
	edit := map[string]any{"path": w.path("f.txt"), "old_str": "four", "new_str": "FOUR"}
	if why := copilotDenied(t, w.door(hook.Copilot, copilot(w, "edit", edit, nil))); !strings.Contains(why, "4\tfour") {
		t.Fatalf("the edit of line 4 was not denied with the line: %q", why)
	}
	asString, _ := json.Marshal(edit)
	if a := w.door(hook.Copilot, copilot(w, "edit", string(asString), nil)); len(a.Stdout) != 0 {
		t.Fatalf("the retry (toolArgs a JSON string) was denied: %s", a.Stdout)
	}
	w.write("f.txt", "one\ntwo\nthree\nFOUR\nfive\n")
	w.door(hook.Copilot, copilot(w, "edit", edit, ok("File "+w.path("f.txt")+" updated with changes.")))
	w.wantLedger(s, "f.txt", "authored 4")
	// A failed view shows nothing; bash's output counts when it ran to its end.
	w.write("g.txt", "a\nb\nc\n")
	w.door(hook.Copilot, copilot(w, "view", map[string]any{"path": "g.txt"}, map[string]any{"resultType": "failure", "textResultForLlm": "a\nb\nc\n"}))
	w.door(hook.Copilot, copilot(w, "bash", map[string]any{"command": "sed -n 1,2p g.txt", "description": "x"}, ok("a\nb\n<shellId: 0 completed with exit code 1>")))
	w.wantLedger(s, "g.txt", "never_read")
	w.door(hook.Copilot, copilot(w, "bash", map[string]any{"command": "sed -n 1,2p g.txt", "description": "x"}, ok("a\nb\n<shellId: 0 completed with exit code 0>")))
	w.wantLedger(s, "g.txt", "read 1-2")
	w.door(hook.Copilot, map[string]any{"sessionId": "c1", "timestamp": 1, "cwd": w.root, "trigger": "manual"})
	w.wantLedger(s, "g.txt", "never_read")
	// create over a file never read is denied; a new file is not.
	if why := copilotDenied(t, w.door(hook.Copilot, copilot(w, "create", map[string]any{"path": w.path("g.txt"), "file_text": "x\n"}, nil))); why == "" {
		t.Fatal("create over an unread file was not denied")
	}
	if a := w.door(hook.Copilot, copilot(w, "create", map[string]any{"path": w.path("new.txt"), "file_text": "x\n"}, nil)); len(a.Stdout) != 0 {
		t.Fatalf("create of a new file was denied: %s", a.Stdout)
	}
	for name, raw := range map[string]string{
		"a member twice": `{"sessionId":"c1","cwd":"/","toolName":"edit","toolArgs":{"path":"/f","path":"/g","old_str":"a","new_str":"b"}}`,
		"args not JSON":  `{"sessionId":"c1","cwd":"/","toolName":"edit","toolArgs":"{\"path\":"}`,
		"no session":     `{"cwd":"/","toolName":"edit","toolArgs":{"path":"/f","old_str":"a","new_str":"b"}}`,
	} {
		if why := copilotDenied(t, w.doorRaw(hook.Copilot, []byte(raw))); !strings.Contains(why, "sightline refused") {
			t.Errorf("%s: not denied: %q", name, why)
		}
	}
}

// TestCursorContract: Cursor's events as its hooks documentation gives
// them: beforeReadFile's content counts as shown (and the read is
// allowed), preToolUse's change of unread lines is denied in the answer
// shapes Cursor reads, afterFileEdit's new texts are the session's own,
// preCompact expires what was read.
func TestCursorContract(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	const s = "cursor-conv-1"
	base := func(name string, more map[string]any) map[string]any {
		ev := map[string]any{"hook_event_name": name, "conversation_id": "conv-1", "generation_id": "gen-1", "workspace_roots": []string{w.root}}
		for k, v := range more {
			ev[k] = v
		}
		return ev
	}
	write := base("preToolUse", map[string]any{"tool_name": "Write", "tool_use_id": "t1", "cwd": w.root,
		"tool_input": map[string]any{"file_path": w.path("f.txt"), "content": "new\n"}})
	m := answer(t, w.door(hook.Cursor, write))
	if m["decision"] != "deny" || m["permission"] != "deny" || !strings.Contains(m["agent_message"].(string), "never shown") {
		t.Fatalf("a Write over an unread file: %v", m)
	}
	m = answer(t, w.door(hook.Cursor, base("beforeReadFile", map[string]any{"file_path": w.path("f.txt"), "content": "one\ntwo\nthree\nfour\nfive\n", "attachments": []any{}})))
	if m["permission"] != "allow" {
		t.Fatalf("beforeReadFile: %v", m)
	}
	w.wantLedger(s, "f.txt", "fully_read")
	if a := w.door(hook.Cursor, write); len(a.Stdout) != 0 {
		t.Fatalf("a Write over a file read: %s", a.Stdout)
	}
	w.write("f.txt", "one\ntwo\nTHREE\nfour\nfive\n")
	w.door(hook.Cursor, base("afterFileEdit", map[string]any{"file_path": w.path("f.txt"), "edits": []any{map[string]any{"old_string": "three", "new_string": "THREE"}}}))
	w.wantLedger(s, "f.txt", "authored 3")
	w.door(hook.Cursor, base("preCompact", map[string]any{"trigger": "auto"}))
	w.wantLedger(s, "f.txt", "never_read")
	if m := answer(t, w.door(hook.Cursor, base("preToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": w.path("f.txt"), "patch": "x"}}))); m["decision"] != "deny" {
		t.Fatalf("an edit sightline cannot read was not denied: %v", m)
	}
}

// TestClineContract: Cline's PreToolUse and PostToolUse as its hook
// reference gives them: every answer says whether to cancel; a
// replace_in_file of unread lines is cancelled with the reason in the
// conversation; read_file's content counts; write_to_file's lines are the
// session's own.
func TestClineContract(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	const s = "cline-task-1"
	base := func(name string, more map[string]any) map[string]any {
		ev := map[string]any{"clineVersion": "3.36.0", "hookName": name, "timestamp": "1795953063133", "taskId": "task-1",
			"workspaceRoots": []string{w.root}, "userId": "u1"}
		for k, v := range more {
			ev[k] = v
		}
		return ev
	}
	diff := "------- SEARCH\nfour\n=======\nFOUR\n+++++++ REPLACE\n"
	pre := base("PreToolUse", map[string]any{"preToolUse": map[string]any{"toolName": "replace_in_file", "parameters": map[string]any{"path": "f.txt", "diff": diff}}})
	m := answer(t, w.door(hook.Cline, pre))
	if m["cancel"] != true || !strings.Contains(m["contextModification"].(string), "4\tfour") {
		t.Fatalf("replace_in_file of line 4: %v", m)
	}
	if m := answer(t, w.door(hook.Cline, pre)); m["cancel"] != false {
		t.Fatalf("the retry: %v", m)
	}
	w.door(hook.Cline, base("PostToolUse", map[string]any{"postToolUse": map[string]any{"toolName": "read_file", "parameters": map[string]any{"path": "f.txt"},
		"result": "one\ntwo\nthree\nfour\nfive\n", "success": true, "executionTimeMs": 3}}))
	w.wantLedger(s, "f.txt", "fully_read")
	w.door(hook.Cline, base("PostToolUse", map[string]any{"postToolUse": map[string]any{"toolName": "write_to_file", "parameters": map[string]any{"path": "n.txt", "content": "x\ny\n"},
		"result": "The content was successfully saved to n.txt.", "success": true}}))
	w.write("n.txt", "x\ny\n")
	w.door(hook.Cline, base("PostToolUse", map[string]any{"postToolUse": map[string]any{"toolName": "write_to_file", "parameters": map[string]any{"path": "n.txt", "content": "x\ny\n"},
		"result": "The content was successfully saved to n.txt.", "success": true}}))
	w.wantLedger(s, "n.txt", "authored 1-2")
	bad := base("PreToolUse", map[string]any{"preToolUse": map[string]any{"toolName": "replace_in_file", "parameters": map[string]any{"path": "f.txt", "diff": "------- SEARCH\nfour\n"}}})
	if m := answer(t, w.door(hook.Cline, bad)); m["cancel"] != true {
		t.Fatalf("a diff that does not end: %v", m)
	}
}

// TestOpencodeContract: the events sightline's opencode plugin sends, with
// opencode's documented tool arguments and its read tool's numbered lines.
func TestOpencodeContract(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	const s = "opencode-ses_1"
	ev := func(event, tool string, args any, output any) map[string]any {
		return map[string]any{"event": event, "sessionID": "ses_1", "tool": tool, "args": args, "output": output, "directory": w.root, "worktree": w.root}
	}
	w.door(hook.Opencode, ev("tool.execute.after", "read", map[string]any{"filePath": w.path("f.txt"), "offset": 1, "limit": 2},
		"<file>\n00002| two\n00003| three\n\n(File has more lines. Use 'offset' parameter to read beyond line 3)\n</file>"))
	w.wantLedger(s, "f.txt", "read 2-3")
	// As opencode 1.18.33 answers (observed).
	w.door(hook.Opencode, ev("tool.execute.after", "read", map[string]any{"filePath": w.path("f.txt"), "offset": 5, "limit": 1},
		"<path>"+w.path("f.txt")+"</path>\n<type>file</type>\n<content>\n5: five\n\n(End of file - total 5 lines)\n</content>"))
	w.wantLedger(s, "f.txt", "read 2-3,5")
	edit := map[string]any{"filePath": w.path("f.txt"), "oldString": "four", "newString": "FOUR"}
	m := answer(t, w.door(hook.Opencode, ev("tool.execute.before", "edit", edit, nil)))
	if deny, _ := m["deny"].(string); !strings.Contains(deny, "4\tfour") {
		t.Fatalf("the edit of line 4: %v", m)
	}
	w.door(hook.Opencode, map[string]any{"event": "session.compacted", "sessionID": "ses_1"})
	w.wantLedger(s, "f.txt", "never_read")
}

// TestDoorsAnswerHostileEvents: whatever comes in, every door answers
// without failing, and an event that may be a tool call about to run, or
// cannot be told at all, is refused in the agent's own answer, never let
// through.
func TestDoorsAnswerHostileEvents(t *testing.T) {
	w := newWorkspace(t, fiveLines)
	refused := func(a hook.Answer) bool {
		s := string(a.Stdout)
		return strings.Contains(s, "sightline refused") && strings.Contains(s, "deny") || strings.Contains(s, `"cancel":true`)
	}
	for _, d := range []*hook.Door{hook.Gemini, hook.Copilot, hook.Cursor, hook.Cline, hook.Opencode} {
		for _, raw := range []string{"", "null", "[]", "{", `"x"`, `{"x":1}`, "\xff\xfe", `{"session_id":1}`,
			strings.Repeat("[", 10000), `{"sessionId":"s","toolName":"edit","toolArgs":{"path":"/f","path":"/g"}}`,
			`{"hookName":"PreToolUse","taskId":"t","preToolUse":{"toolName":"write_to_file","parameters":"x"}}`,
			`{"hook_event_name":"preToolUse","conversation_id":"c","tool_name":"Write","tool_input":[]}`,
			`{"event":"tool.execute.before","sessionID":"s","tool":"write","args":{"filePath":"~/x","content":"y"},"worktree":"/"}`,
		} {
			a := w.doorRaw(d, []byte(raw))
			ev, err := d.Parse([]byte(raw))
			if err != nil && ev.Phase != hook.After && ev.Phase != hook.Expire && !refused(a) {
				t.Errorf("%s %.40q: not refused: %q %q", d.Name, raw, a.Stdout, a.Stderr)
			}
		}
	}
}
