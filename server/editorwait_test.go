package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestEditorThatDoesNotAnswer: an editor that takes longer than
// applyTimeoutMs to answer workspace/applyEdit gets a timeout refusal in
// time, the document is not left locked, and when the editor applies the
// edit late the lines still count as the agent's.
func TestEditorThatDoesNotAnswer(t *testing.T) {
	src := numbered(10)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{InitOptions: json.RawMessage(`{"applyTimeoutMs": 300}`)})
	u := fileURI(root, "f.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	late := make(chan struct{})
	e.ApplyEdit = func(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		time.Sleep(900 * time.Millisecond)
		defer close(late)
		return e.DefaultApplyEdit(p)
	}
	start := time.Now()
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 3), "new_content": "THREE"}}, nil)
	if took := time.Since(start); res.OK || res.Error != "timeout" || took > 800*time.Millisecond {
		t.Fatalf("silent editor: %+v after %v", res.Outcome, took)
	}
	if !strings.Contains(res.Message, "nothing is known to be applied") {
		t.Fatalf("timeout message: %q", res.Message)
	}
	<-late
	// The late edit is the agent's own: authored, not stale.
	var led engine.LedgerResult
	deadline := time.Now().Add(2 * time.Second)
	for {
		e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &led)
		if d := led.Documents[0]; hasRange(d.Authored, ledger.Range{Start: 3, End: 3}) && len(d.Stale) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("late edit not credited: %+v", led.Documents[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The document is not locked: the next edit goes through.
	e.ApplyEdit = nil
	cur := e.Buffer(u)
	res = edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(cur, 4), "new_content": "FOUR"}}, nil)
	if !res.OK {
		t.Fatalf("edit after a timeout: %+v", res.Outcome)
	}
}

// TestEditorThatNeverEchoes: an editor that says applied but never reports
// the change: ok with a warning, and no window recorded as read.
func TestEditorThatNeverEchoes(t *testing.T) {
	src := numbered(10)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{InitOptions: json.RawMessage(`{"applyTimeoutMs": 400}`)})
	u := fileURI(root, "f.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, &ledger.Range{Start: 1, End: 5}, nil)
	e.ApplyEdit = func(protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		return protocol.ApplyWorkspaceEditResult{Applied: true}
	}
	start := time.Now()
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 3), "new_content": "THREE"}}, nil)
	if !res.OK || len(res.Warnings) == 0 || res.Window != "" || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("no echo: %+v warnings %v window %q after %v", res.Outcome, res.Warnings, res.Window, time.Since(start))
	}
	var led engine.LedgerResult
	e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &led)
	if d := led.Documents[0]; hasRange(d.Read, ledger.Range{Start: 6, End: 8}) {
		t.Fatalf("lines never shown recorded as read: %+v", d)
	}
}
