package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestFollowSession: with followSession the editor is shown the session
// that made the latest agent call (an agent's hook session through the
// bridge as much as the editor's own tools): its coverage, and a
// sightline/session notification naming it; without the setting, the
// configured session stays.
func TestFollowSession(t *testing.T) {
	src := numbered(20)
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{})
	e.SetSettings(json.RawMessage(`{"followSession": true}`))
	if err := e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{"followSession": true}}}); err != nil {
		t.Fatal(err)
	}
	u := fileURI(root, "f.txt")
	e.Open(u, "plaintext", src)
	covered := func(session string, r ledger.Range) {
		t.Helper()
		e.WaitCoverage(u, func(raw json.RawMessage) bool {
			var c engine.CoverageParams
			_ = json.Unmarshal(raw, &c)
			return c.Session == session && len(c.Read) == 1 && c.Read[0] == r
		})
		waitSessionNote(t, e, session)
	}
	read(t, e, u, &ledger.Range{Start: 1, End: 3}, map[string]any{"session": "claude-abc"})
	covered("claude-abc", ledger.Range{Start: 1, End: 3})
	read(t, e, u, &ledger.Range{Start: 5, End: 9}, map[string]any{"session": "codex-xyz"})
	covered("codex-xyz", ledger.Range{Start: 5, End: 9})
	// Back to the first: its own reads, not the other's.
	read(t, e, u, &ledger.Range{Start: 2, End: 2}, map[string]any{"session": "claude-abc"})
	covered("claude-abc", ledger.Range{Start: 1, End: 3})

	// sightline/sessions lists the most recently active first.
	var ss engine.SessionsResult
	if err := e.Call("sightline/sessions", map[string]any{}, &ss); err != nil {
		t.Fatal(err)
	}
	if len(ss.Sessions) < 2 || ss.Sessions[0].Session != "claude-abc" {
		t.Fatalf("sessions: %+v", ss.Sessions)
	}

	// Following turned off: the configured session again.
	e.SetSettings(json.RawMessage(`{"session": "default"}`))
	if err := e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"sightline": map[string]any{"session": "default"}}}); err != nil {
		t.Fatal(err)
	}
	read(t, e, u, &ledger.Range{Start: 10, End: 10}, map[string]any{"session": "default"})
	read(t, e, u, &ledger.Range{Start: 11, End: 11}, map[string]any{"session": "codex-xyz"})
	e.WaitCoverage(u, func(raw json.RawMessage) bool {
		var c engine.CoverageParams
		_ = json.Unmarshal(raw, &c)
		return c.Session == "default" && len(c.Read) == 1 && c.Read[0] == ledger.Range{Start: 10, End: 10}
	})
}

// waitSessionNote waits for the latest sightline/session notification to
// name the session.
func waitSessionNote(t *testing.T, e *lsptest.Editor, session string) {
	t.Helper()
	last := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		notes := e.Notes()
		for i := len(notes) - 1; i >= 0; i-- {
			if notes[i].Method != "sightline/session" {
				continue
			}
			var p struct {
				Session string `json:"session"`
				Follow  bool   `json:"follow"`
			}
			_ = json.Unmarshal(notes[i].Params, &p)
			if p.Session == session && p.Follow {
				return
			}
			last = string(notes[i].Params)
			break
		}
	}
	t.Fatalf("no sightline/session naming %s; last: %s", session, last)
}
