package server_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/server"
)

// A whole read of an editor's buffer through the bridge carries its
// content apart from its JSON (an attachment) and decodes to the editor's
// own answer, byte for byte; the editor's answer (LSP) has it in its JSON.
func TestBridgeReadCarriesItsContentApart(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	e, root := start(t, map[string]string{"f.go": "package a\n"}, lsptest.Options{Server: server.Options{Bridge: true, StateDir: state}})
	u := fileURI(root, "f.go")
	text := strings.Repeat("\tfunc f() { s := \"a\\tb\\\\\" // é € \u2028 𝄞 \x01\x1f\x7f }\n", 20000)
	e.Open(u, "go", text)
	params := map[string]any{"textDocument": map[string]string{"uri": u}, "budget": map[string]int{"chars": 100_000_000}}

	var lsp engine.ReadResult
	if err := e.Call("sightline/read", params, &lsp); err != nil {
		t.Fatal(err)
	}
	dir, err := bridge.Dir(state)
	if err != nil {
		t.Fatal(err)
	}
	socks := bridge.Sockets(dir)
	if len(socks) != 1 {
		t.Fatalf("sockets %v, want the server's", socks)
	}
	ctx := context.Background()
	c, err := bridge.Dial(ctx, socks[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := c.Call(ctx, ops.Read.Method(), params)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Attachment) < len(text) || len(a.Result) > 4096 {
		t.Fatalf("JSON of %d bytes, attachment of %d, want the content (%d bytes) apart", len(a.Result), len(a.Attachment), len(text))
	}
	res, err := ops.Read.Result(a.Result, a.Attachment)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(engine.ReadResult); got.Content != lsp.Content || got.TotalLines != lsp.TotalLines || !strings.Contains(got.Content, "|\tfunc f()") {
		t.Fatalf("through the bridge: %d lines %.80q, the editor's: %d lines %.80q", got.TotalLines, got.Content, lsp.TotalLines, lsp.Content)
	}
}
