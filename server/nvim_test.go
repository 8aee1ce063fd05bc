package server_test

import (
	"errors"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// Found while driving the server from Neovim's Lua client.

// Neovim's Lua encodes an empty table `{}` as the JSON array `[]`: a request
// with `[]` params is a request with empty params.
func TestEmptyArrayParamsAreEmptyParams(t *testing.T) {
	e, root := start(t, map[string]string{"a.txt": "one\ntwo\n"}, lsptest.Options{})
	read(t, e, fileURI(root, "a.txt"), nil, nil)

	var led engine.LedgerResult
	if err := e.Call("sightline/ledger", []any{}, &led); err != nil || !led.OK || len(led.Documents) != 1 {
		t.Fatalf("ledger with [] params: %v %+v", err, led)
	}
	var stats map[string]any
	if err := e.Call("sightline/stats", []any{}, &stats); err != nil {
		t.Fatalf("stats with [] params: %v", err)
	}
	var reset map[string]any
	if err := e.Call("sightline/session/reset", []any{}, &reset); err != nil || reset["ok"] != true {
		t.Fatalf("reset with [] params: %v %v", err, reset)
	}
	// A method that needs params still says what is missing, as -32602.
	var re *jsonrpc2.Error
	if err := e.Call("sightline/read", []any{}, nil); !errors.As(err, &re) || re.Code != jsonrpc2.InvalidParams {
		t.Fatalf("read with [] params: %v", err)
	}
	// A non-empty array is still a wrong type.
	if err := e.Call("sightline/ledger", []any{1}, nil); !errors.As(err, &re) || re.Code != jsonrpc2.InvalidParams {
		t.Fatalf("ledger with [1] params: %v", err)
	}
}

// The code lens runs a command the editor plugins implement: it opens the
// ledger of the document (argument: its uri).
func TestCodeLensOpensLedger(t *testing.T) {
	src := "a\nb\nc\n"
	e, root := start(t, map[string]string{"a.txt": src}, lsptest.Options{})
	u := fileURI(root, "a.txt")
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, map[string]any{"range": map[string]int{"start": 1, "end": 1}})
	var lenses []struct {
		Command struct {
			Title     string `json:"title"`
			Command   string `json:"command"`
			Arguments []any  `json:"arguments"`
		} `json:"command"`
	}
	if err := e.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]string{"uri": u}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) != 1 || lenses[0].Command.Command != "sightline.showLedger" ||
		len(lenses[0].Command.Arguments) != 1 || lenses[0].Command.Arguments[0] != u {
		t.Fatalf("lens: %+v", lenses)
	}
	if lenses[0].Command.Title != "Agent read 1/3 lines" {
		t.Fatalf("lens title: %q", lenses[0].Command.Title)
	}
}

// Neovim 0.7 prints an applyEdit's label on every edit ("Workspace edit
// ..."): the server sends none.
func TestApplyEditHasNoLabel(t *testing.T) {
	src := "a\nb\n"
	e, root := start(t, map[string]string{"a.txt": src}, lsptest.Options{})
	u := fileURI(root, "a.txt")
	var mu sync.Mutex
	var labels []*string
	e.ApplyEdit = func(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
		mu.Lock()
		labels = append(labels, p.Label)
		mu.Unlock()
		return e.DefaultApplyEdit(p)
	}
	e.Open(u, "plaintext", src)
	read(t, e, u, nil, nil)
	res := edit(t, e, u, []map[string]any{{"type": "replace_line", "ref": ref(src, 1), "new_content": "A"}}, nil)
	if !res.OK || e.Buffer(u) != "A\nb\n" {
		t.Fatalf("edit: %+v %q", res.Outcome, e.Buffer(u))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(labels) != 1 || labels[0] != nil {
		t.Fatalf("applyEdit labels: %v", labels)
	}
}
