package server_test

import (
	"encoding/json"
	"testing"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestPullDiagnostics: a client that offers pull diagnostics gets a
// diagnosticProvider, no pushed diagnostics, a refresh request after the
// ledger changes, and the same ranges when it pulls.
func TestPullDiagnostics(t *testing.T) {
	caps := `{"textDocument":{"diagnostic":{"dynamicRegistration":false}},"workspace":{"diagnostics":{"refreshSupport":true}}}`
	src := "def a():\n    pass\n\n\nclass Later:\n    pass\n"
	e, root := start(t, map[string]string{"m.py": src}, lsptest.Options{Capabilities: json.RawMessage(caps)})
	u := fileURI(root, "m.py")
	e.Open(u, "python", src)
	if res := read(t, e, u, &ledger.Range{Start: 1, End: 2}, nil); !res.OK {
		t.Fatal(res.Message)
	}
	// Coverage arrives after the read; a refresh request goes with it.
	e.WaitCoverage(u, func(json.RawMessage) bool { return true })
	e.WaitNote("workspace/diagnostic/refresh")

	var rep struct {
		Kind  string `json:"kind"`
		Items []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Range   struct {
				Start struct{ Line int } `json:"start"`
			} `json:"range"`
		} `json:"items"`
	}
	if err := e.Call("textDocument/diagnostic", map[string]any{"textDocument": map[string]string{"uri": u}}, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kind != "full" || len(rep.Items) != 1 || rep.Items[0].Code != "unread" || rep.Items[0].Range.Start.Line != 2 {
		t.Fatalf("pulled: %+v", rep)
	}
	if want := "Lines 3-6 not read by the agent (session default) — contains: class Later"; rep.Items[0].Message != want {
		t.Fatalf("message %q, want %q", rep.Items[0].Message, want)
	}
	for _, n := range e.Notes() {
		if n.Method == "textDocument/publishDiagnostics" {
			t.Fatalf("pushed diagnostics to a pull client: %s", n.Params)
		}
	}
}

// TestUntitledBuffer: a buffer that is not a file (untitled:) is read from
// the editor, tracked, and never looked for on disk.
func TestUntitledBuffer(t *testing.T) {
	e, _ := start(t, nil, lsptest.Options{})
	u := "untitled:Untitled-1"
	e.Open(u, "go", "package x\n\nfunc A() {}\n")
	res := read(t, e, u, &ledger.Range{Start: 1, End: 1}, nil)
	if !res.OK || res.TotalLines != 3 || res.Ledger.State != ledger.PartialRead {
		t.Fatalf("untitled read: %+v", res)
	}
	e.Close(u)
	if res := read(t, e, u, nil, nil); res.OK || res.Error != "not_found" {
		t.Fatalf("closed untitled buffer: %+v", res.Outcome)
	}
}
