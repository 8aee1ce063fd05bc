package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// playedModel is a model server on loopback speaking the Messages API that
// plays a list of tool calls, one per turn, then a last word; results are
// the tool results it was sent, in order.
type playedModel struct {
	mu      sync.Mutex
	calls   []map[string]any // {"name": ..., "input": ...}
	results []string
}

func (m *playedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			fmt.Fprint(w, `{"input_tokens": 10}`)
			return
		}
		http.NotFound(w, r)
		return
	}
	var req struct {
		Stream   bool `json:"stream"`
		Tools    []json.RawMessage
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var results []string
	for _, msg := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
			IsError bool            `json:"is_error"`
		}
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results = append(results, fmt.Sprintf("error=%v %s", b.IsError, b.Content))
			}
		}
	}
	type block = map[string]any
	content, stop := block{"type": "text", "text": "done"}, "end_turn"
	if len(req.Tools) > 0 {
		m.mu.Lock()
		m.results = results
		if len(results) < len(m.calls) {
			c := m.calls[len(results)]
			content, stop = block{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", len(results)), "name": c["name"], "input": c["input"]}, "tool_use"
		}
		m.mu.Unlock()
	}
	msg := block{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"stop_reason": nil, "stop_sequence": nil, "usage": block{"input_tokens": 10, "output_tokens": 1}, "content": []any{}}
	if !req.Stream {
		msg["content"], msg["stop_reason"] = []any{content}, stop
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	}
	send("message_start", block{"type": "message_start", "message": msg})
	if content["type"] == "text" {
		send("content_block_start", block{"type": "content_block_start", "index": 0, "content_block": block{"type": "text", "text": ""}})
		send("content_block_delta", block{"type": "content_block_delta", "index": 0, "delta": block{"type": "text_delta", "text": content["text"]}})
	} else {
		input, _ := json.Marshal(content["input"])
		if raw, ok := content["input"].(json.RawMessage); ok {
			input = raw // as the model wrote it: names twice, escapes
		}
		send("content_block_start", block{"type": "content_block_start", "index": 0, "content_block": block{"type": "tool_use", "id": content["id"], "name": content["name"], "input": block{}}})
		send("content_block_delta", block{"type": "content_block_delta", "index": 0, "delta": block{"type": "input_json_delta", "partial_json": string(input)}})
	}
	send("content_block_stop", block{"type": "content_block_stop", "index": 0})
	send("message_delta", block{"type": "message_delta", "delta": block{"stop_reason": stop, "stop_sequence": nil}, "usage": block{"output_tokens": 5}})
	send("message_stop", block{"type": "message_stop"})
}

// playClaude runs the real Claude Code in the workspace c against a model
// playing calls, with sightline's hooks installed, started in start (a
// folder of the workspace); it returns the tool results.
func playClaude(t *testing.T, c *cli, start string, calls ...map[string]any) []string {
	return playClaudeWith(t, c, start, nil, calls...)
}

// playClaudeWith is playClaude with more of Claude Code's arguments.
func playClaudeWith(t *testing.T, c *cli, start string, args []string, calls ...map[string]any) []string {
	t.Helper()
	claude := agentBinary(t, "SIGHTLINE_CLAUDE", "@anthropic-ai/claude-code-linux-*/claude", "Claude Code")
	home := t.TempDir()
	c.env = append(c.env, "HOME="+home)
	if out, errOut, code := c.run("", "hook", "install", "claude"); code != 0 {
		t.Fatalf("install: %d %s %s", code, out, errOut)
	}
	model := &playedModel{calls: calls}
	srv := httptest.NewServer(model)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, append([]string{"-p", "Make the changes.", "--permission-mode", "acceptEdits", "--output-format", "json", "--model", "claude-sonnet-4-5"}, args...)...)
	cmd.Dir = start
	cmd.Env = append(c.env, "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	if len(model.results) != len(calls) {
		t.Fatalf("tool results %d, want %d: %q\n%s", len(model.results), len(calls), model.results, out)
	}
	return model.results
}

// TestClaudeCodeEditsAsJudged runs the real Claude Code: a multi-line
// old_string with LF in a CRLF file, and an old_string with straight quotes
// where the file has curly ones, are judged where Claude Code applies them
// (denied for the lines never shown, then applied on the retry); a
// relative file_path is judged too; and with Claude Code started in a
// nested repository, the project's files are still guarded.
func TestClaudeCodeEditsAsJudged(t *testing.T) {
	c := newCLI(t, map[string]string{"crlf.txt": "one\r\ntwo\r\nthree\r\nfour\r\n", "q.txt": "a\nsay \u201chi\u201d\nb\n", "r.txt": "r1\nr2\n"})
	crlf, q := filepath.Join(c.dir, "crlf.txt"), filepath.Join(c.dir, "q.txt")
	edit := func(input map[string]any) map[string]any { return map[string]any{"name": "Edit", "input": input} }
	res := playClaude(t, c, c.dir,
		map[string]any{"name": "Read", "input": map[string]any{"file_path": crlf, "offset": 1, "limit": 1}},
		edit(map[string]any{"file_path": crlf, "old_string": "two\nthree", "new_string": "2\n3"}),
		edit(map[string]any{"file_path": crlf, "old_string": "two\nthree", "new_string": "2\n3"}),
		map[string]any{"name": "Read", "input": map[string]any{"file_path": q, "offset": 1, "limit": 1}},
		edit(map[string]any{"file_path": q, "old_string": `say "hi"`, "new_string": `say "bye"`}),
		edit(map[string]any{"file_path": q, "old_string": `say "hi"`, "new_string": `say "bye"`}),
		map[string]any{"name": "Read", "input": map[string]any{"file_path": "r.txt", "offset": 1, "limit": 1}},
		edit(map[string]any{"file_path": "r.txt", "old_string": "r2", "new_string": "R2"}),
	)
	for i, want := range []string{"error=false", "Lines 2-3 were never shown", "error=false", "error=false", "Line 2 was never shown", "error=false", "", "Line 2 was never shown"} {
		if !strings.Contains(res[i], want) {
			t.Errorf("result %d: %s, want %q", i+1, res[i], want)
		}
	}
	if got, _ := os.ReadFile(crlf); string(got) != "one\r\n2\r\n3\r\nfour\r\n" {
		t.Errorf("crlf.txt: %q", got)
	}
	if got, _ := os.ReadFile(q); string(got) != "a\nsay \u201cbye\u201d\nb\n" {
		t.Errorf("q.txt: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "r.txt")); string(got) != "r1\nr2\n" {
		t.Errorf("r.txt: %q", got)
	}
	t.Logf("results: %q", res)
}

// TestClaudeCodeHostileEdits runs the real Claude Code against a model
// that tries to change lines it was never shown by other spellings of an
// Edit: a member named twice (Claude Code keeps the last), another case,
// the parameters' aliases, escapes, a path through "..", a MultiEdit. No
// unread line changes: each is denied by sightline or refused by Claude
// Code itself.
func TestClaudeCodeHostileEdits(t *testing.T) {
	text := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n"
	c := newCLI(t, map[string]string{"f.txt": text, "sub/keep": ""})
	f := filepath.Join(c.dir, "f.txt")
	raw := func(s string) map[string]any {
		return map[string]any{"name": "Edit", "input": json.RawMessage(strings.ReplaceAll(s, "$F", f))}
	}
	res := playClaude(t, c, c.dir,
		map[string]any{"name": "Read", "input": map[string]any{"file_path": f, "offset": 1, "limit": 1}},
		raw(`{"file_path":"$F","old_string":"l1","old_string":"l2","new_string":"X"}`),
		raw(`{"file_path":"$F","old_string":"l3","new_string":"X","Old_String":"l1"}`),
		raw(`{"file_path":"$F","old_str":"l4","new_str":"X"}`),
		raw(`{"file_path":"$F","old_string":"l\u0035","new_string":"X"}`),
		map[string]any{"name": "Edit", "input": map[string]any{"file_path": filepath.Join(c.dir, "sub", "..", "f.txt"), "old_string": "l6", "new_string": "X"}},
		map[string]any{"name": "MultiEdit", "input": map[string]any{"file_path": f, "edits": []map[string]any{{"old_string": "l1", "new_string": "L1"}, {"old_string": "L1\nl7", "new_string": "X"}}}},
		map[string]any{"name": "Edit", "input": map[string]any{"file_path": f, "old_string": "l8\n", "new_string": "", "replace_all": true}},
	)
	if got, _ := os.ReadFile(f); string(got) != text {
		t.Errorf("f.txt changed: %q\nresults: %q", got, res)
	}
	for i, r := range res[1:] {
		if !strings.HasPrefix(r, "error=true") {
			t.Errorf("attack %d passed: %s", i+1, r)
		}
	}
	t.Logf("results: %q", res)
}

// TestClaudeCodeInANestedRepository runs the real Claude Code in a project
// holding a nested repository: the agent cd's into it, and the project's
// files (unread lines, .env, .git/config) are still guarded, whether named
// absolutely or relatively to the new cwd.
func TestClaudeCodeInANestedRepository(t *testing.T) {
	c := newCLI(t, map[string]string{"f.txt": "f1\nf2\n", ".env": "K=1\n", "sub/.git/HEAD": "ref: x\n", "sub/s.txt": "s\n"})
	f := filepath.Join(c.dir, "f.txt")
	res := playClaudeWith(t, c, c.dir, []string{"--allowedTools", "Bash(cd:*)"},
		map[string]any{"name": "Bash", "input": map[string]any{"command": "cd sub", "description": "enter sub"}},
		map[string]any{"name": "Read", "input": map[string]any{"file_path": f, "offset": 1, "limit": 1}},
		map[string]any{"name": "Edit", "input": map[string]any{"file_path": f, "old_string": "f2", "new_string": "X"}},
		map[string]any{"name": "Read", "input": map[string]any{"file_path": "../.env"}},
		map[string]any{"name": "Write", "input": map[string]any{"file_path": "../.env", "content": "K=2\n"}},
		map[string]any{"name": "Write", "input": map[string]any{"file_path": filepath.Join(c.dir, ".git", "config"), "content": "[core]\n"}},
	)
	if got, _ := os.ReadFile(f); string(got) != "f1\nf2\n" {
		t.Errorf("f.txt: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, ".env")); string(got) != "K=1\n" {
		t.Errorf(".env: %q", got)
	}
	if _, err := os.Stat(filepath.Join(c.dir, ".git", "config")); err == nil {
		t.Errorf(".git/config written")
	}
	t.Logf("results: %q", res)
}
