package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/ops"
)

// TestTableThroughCLIAndMCP walks the operation table through the doors
// that run as their own process, the CLI and sightline mcp, and the
// editors' agent tools (a tool's arguments on its method), against a
// running server: each operation answers the same verdict in the same words
// as the editor's connection does (the server's text, asked for with
// render), and the state afterwards is the server's. An operation added to
// the table without a row here fails the test.
func TestTableThroughCLIAndMCP(t *testing.T) {
	c := newCLI(t, map[string]string{"f.txt": "a\nb\nc\n"})
	ed := startEditor(t, c)
	u := string(uri.File(filepath.Join(c.dir, "f.txt")))
	doc := map[string]any{"uri": u}
	ref2 := "2:" + hashline.Hash("b")
	edits := `[{"type":"replace_line","ref":"` + ref2 + `","new_content":"B"}]`
	blocks := "f.txt\n<<<< EDIT\nb\n==== REPLACE\nB\n>>>> EDIT END\n"
	patchText := "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	type row struct {
		params map[string]any // the LSP params
		stdin  string
		cli    []string       // the command line; nil: none
		tool   map[string]any // the MCP tool's arguments (when the operation has a tool)
		// words: the text is compared (not for answers holding times and
		// durations, whose verdict alone is)
		words bool
	}
	rows := map[string]row{
		"sightline/read":          {map[string]any{"textDocument": doc}, "", []string{"read", "f.txt"}, map[string]any{"path": "f.txt"}, true},
		"sightline/edit":          {map[string]any{"textDocument": doc, "dryRun": true, "edits": json.RawMessage(edits)}, edits, []string{"edit", "f.txt", "--dry-run", "--edits", "-"}, map[string]any{"path": "f.txt", "dry_run": true, "edits": json.RawMessage(edits)}, true},
		"sightline/write":         {map[string]any{"textDocument": doc, "dryRun": true, "mode": "append", "content": "d"}, "d", []string{"write", "f.txt", "--mode", "append", "--dry-run"}, map[string]any{"path": "f.txt", "dry_run": true, "mode": "append", "content": "d"}, true},
		"sightline/applyBlocks":   {map[string]any{"dryRun": true, "text": blocks}, blocks, []string{"apply", "--dry-run"}, map[string]any{"text": blocks, "dry_run": true}, false},
		"sightline/applyPatch":    {map[string]any{"dryRun": true, "text": patchText}, patchText, []string{"patch", "--dry-run"}, map[string]any{"patch": patchText, "dry_run": true}, true},
		"sightline/ledger":        {map[string]any{"textDocument": doc}, "", []string{"ledger", "f.txt"}, map[string]any{"path": "f.txt"}, true},
		"sightline/summary":       {map[string]any{"textDocument": doc}, "", []string{"summary", "f.txt"}, map[string]any{"path": "f.txt"}, true},
		"sightline/files":         {map[string]any{}, "", []string{"files"}, map[string]any{}, true},
		"sightline/history":       {map[string]any{"textDocument": doc}, "", []string{"history", "f.txt"}, map[string]any{"path": "f.txt"}, true},
		"sightline/diff":          {map[string]any{"textDocument": doc}, "", []string{"diff", "f.txt"}, nil, true},
		"sightline/rollback":      {map[string]any{"textDocument": doc, "version": 1, "dryRun": true}, "", []string{"rollback", "f.txt", "1", "--dry-run"}, nil, true},
		"sightline/open":          {map[string]any{"textDocument": doc, "line": 2}, "", []string{"open", "f.txt:2"}, nil, true},
		"sightline/stats":         {map[string]any{}, "", []string{"stats"}, nil, false},
		"sightline/approvals":     {map[string]any{}, "", []string{"approvals"}, nil, true},
		"sightline/session/reset": {map[string]any{"session": "other"}, "", []string{"session", "reset", "--session", "other"}, nil, true},
		"sightline/audit":         {map[string]any{"limit": 1}, "", []string{"audit", "--limit", "1"}, nil, false},
		"sightline/sessions":      {map[string]any{}, "", []string{"session", "list"}, nil, false},
		// The hook door: the agent's own tools; it answers in the agent's
		// hook contract, not in the operation's words.
		"sightline/shown": {map[string]any{"textDocument": doc, "lines": []map[string]any{{"line": 1, "text": "a"}}},
			claudeEvent(c.dir, "PostToolUse", "Read", map[string]any{"file_path": filepath.Join(c.dir, "f.txt")},
				map[string]any{"type": "text", "file": map[string]any{"content": "a\nb", "startLine": 1}}), []string{"hook", "claude", "--root", c.dir}, nil, false},
		"sightline/check": {map[string]any{"textDocument": doc, "old": []map[string]any{{"text": "b"}}},
			claudeEvent(c.dir, "PreToolUse", "Edit", map[string]any{"file_path": filepath.Join(c.dir, "f.txt"), "old_string": "b", "new_string": "B"}, nil), []string{"hook", "claude", "--root", c.dir}, nil, false},
	}
	s := mcpSession(t, c)
	// The first read makes the dry runs' lines read.
	if _, errOut, code := c.run("", "read", "f.txt"); code != 0 {
		t.Fatalf("read: %s", errOut)
	}
	for _, op := range ops.Table() {
		t.Run(strings.TrimPrefix(op.Method(), "sightline/"), func(t *testing.T) {
			r, ok := rows[op.Method()]
			if !ok {
				// Its tool's example, through the CLI's derived command.
				args, params, cli, err := lsptest.Example(op, c.dir)
				if err != nil {
					t.Fatal(err)
				}
				r = row{params: params, cli: cli, tool: args, words: true}
			}
			if (op.Tool() != nil) != (r.tool != nil) {
				t.Fatalf("%s: the operation's tool and this test's row disagree", op.Method())
			}
			params := map[string]any{"render": true}
			for k, v := range r.params {
				params[k] = v
			}
			var lsp engine.Outcome
			if err := ed.Call(op.Method(), params, &lsp); err != nil {
				t.Fatalf("LSP: %v", err)
			}

			stdout, stderr, code := c.run(r.stdin, r.cli...)
			if (code == 0) != lsp.OK || (code != 0 && code != 1) {
				t.Fatalf("CLI verdict %d, LSP ok=%v %s\n%s%s", code, lsp.OK, lsp.Error, stdout, stderr)
			}
			cliText := stdout
			if !lsp.OK {
				cliText = stderr
			}
			switch {
			case !r.words:
			case op.Method() == "sightline/read":
				// The CLI's read prints the file's lines alone (they are
				// what a pipe wants); the text heads them with where they
				// come from.
				if !strings.HasSuffix(lsp.Text, cliText) || cliText == "" {
					t.Fatalf("CLI read:\n%s\nLSP text:\n%s", cliText, lsp.Text)
				}
			case cliText != lsp.Text:
				t.Fatalf("texts differ:\nLSP:\n%s\nCLI:\n%s", lsp.Text, cliText)
			}

			if r.tool == nil {
				return
			}
			text, isErr := callText(t, s, op.Tool().Name, r.tool)
			if isErr == lsp.OK {
				t.Fatalf("MCP verdict isError=%v, LSP ok=%v: %s", isErr, lsp.OK, text)
			}
			if r.words && text != lsp.Text {
				t.Fatalf("texts differ:\nLSP:\n%s\nMCP:\n%s", lsp.Text, text)
			}
			// The editors' agent tools: the same arguments on the
			// operation's method (ops.ToolCall).
			var editor engine.Outcome
			if err := ed.Call(op.Method(), map[string]any{"arguments": r.tool, "agent": "editor-test", "render": true}, &editor); err != nil {
				t.Fatalf("the editors' tool call: %v", err)
			}
			if editor.OK != lsp.OK || r.words && editor.Text != lsp.Text {
				t.Fatalf("the editors' tool call answers otherwise:\nLSP:\n%s\ntool call:\n%s", lsp.Text, editor.Text)
			}
		})
	}

	// State afterwards: the dry runs wrote nothing, and the reset reached
	// the server.
	if got := ed.Buffer(u); got != "" {
		t.Fatalf("a buffer appeared: %q", got)
	}
	var led engine.LedgerResult
	if err := ed.Call("sightline/ledger", map[string]any{"session": "other"}, &led); err != nil || len(led.Documents) != 0 {
		t.Fatalf("session other after its reset: %v %+v", err, led.Documents)
	}
}

// claudeEvent is a Claude Code hook event as its stdin carries it.
func claudeEvent(cwd, event, tool string, input, response map[string]any) string {
	b, _ := json.Marshal(map[string]any{"session_id": "table", "cwd": cwd, "hook_event_name": event, "tool_name": tool,
		"tool_input": input, "tool_response": response})
	return string(b)
}
