package server_test

import (
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestToolCall: an editor's agent tool calls the operation's method with
// the tool's arguments as the model wrote them (ops.ToolCall): a relative
// path is the workspace's, the caller's session the default, and the
// answer's text the MCP tool's words.
func TestToolCall(t *testing.T) {
	e, _ := start(t, map[string]string{"a.txt": "one\ntwo\n"}, lsptest.Options{})
	var r engine.ReadResult
	if err := e.Call("sightline/read", map[string]any{"arguments": map[string]any{"path": "a.txt", "start": "2"}, "session": "ed", "agent": "vscode-agent", "render": true}, &r); err != nil {
		t.Fatal(err)
	}
	if !r.OK || r.Range == nil || r.Range.Start != 2 || !strings.HasPrefix(r.Text, "a.txt lines 2-2 of 2 ") || !strings.Contains(r.Text, "|two\n") {
		t.Fatalf("read: %+v", r)
	}
	var l engine.LedgerResult
	if err := e.Call("sightline/ledger", map[string]any{"arguments": map[string]any{}, "session": "ed", "render": true}, &l); err != nil || l.Session != "ed" || len(l.Documents) != 1 {
		t.Fatalf("the caller's session is the call's: %v %+v", err, l)
	}
	if err := e.Call("sightline/ledger", map[string]any{"arguments": map[string]any{"session": "own"}, "session": "ed"}, &l); err != nil || l.Session != "own" {
		t.Fatalf("the arguments' session wins: %v %+v", err, l)
	}
	var re *jsonrpc2.Error
	err := e.Call("sightline/read", map[string]any{"arguments": map[string]any{"path": "a.txt", "start": "two"}}, nil)
	if !errors.As(err, &re) || re.Code != jsonrpc2.InvalidParams || !strings.Contains(re.Message, "invalid arguments for sightline_read") {
		t.Fatalf("unreadable arguments: %v", err)
	}
	err = e.Call("sightline/diff", map[string]any{"arguments": map[string]any{"path": "a.txt"}}, nil)
	if !errors.As(err, &re) || re.Code != jsonrpc2.InvalidParams || !strings.Contains(re.Message, "no agent tool") {
		t.Fatalf("arguments on a method without a tool: %v", err)
	}
}
