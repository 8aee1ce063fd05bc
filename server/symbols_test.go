package server_test

import (
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestSymbolDoors: workspace/symbol finds declarations across the
// workspace's files; sightline/read by symbol reads one with its doc
// comment; an edit by symbol goes through the guard.
func TestSymbolDoors(t *testing.T) {
	src := "package p\n\n// Load reads.\nfunc Load() error {\n\treturn nil\n}\n\ntype Store struct{}\n\nfunc (s *Store) Load() {}\n"
	e, root := start(t, map[string]string{"p.go": src, "q.py": "def load_all():\n    pass\n"}, lsptest.Options{})
	var syms []protocol.SymbolInformation
	if err := e.Call("workspace/symbol", map[string]any{"query": "load"}, &syms); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range syms {
		c := ""
		if s.ContainerName != nil {
			c = *s.ContainerName + "."
		}
		got = append(got, c+s.Name)
	}
	if len(got) != 3 || got[0] != "Load" || got[1] != "Store.Load" || got[2] != "load_all" {
		t.Fatalf("workspace/symbol load = %q", got)
	}
	if syms[0].Location.Range.Start.Line != 3 || syms[0].Kind != protocol.SymbolKindFunction {
		t.Errorf("Load at %+v kind %v", syms[0].Location.Range, syms[0].Kind)
	}

	u := fileURI(root, "p.go")
	var rd engine.ReadResult
	if err := e.Call("sightline/read", map[string]any{"textDocument": map[string]string{"uri": u}, "symbol": "Store.Load"}, &rd); err != nil || !rd.OK {
		t.Fatalf("read by symbol: %v %+v", err, rd.Outcome)
	}
	if rd.Range.Start != 10 || rd.Range.End != 10 {
		t.Errorf("Store.Load read as %v", rd.Range)
	}
	var ed engine.EditResult
	edits := []map[string]any{{"type": "replace_symbol", "symbol": "Load", "new_content": "func Load() error { return nil }"}}
	if err := e.Call("sightline/edit", map[string]any{"textDocument": map[string]string{"uri": u}, "edits": edits}, &ed); err != nil {
		t.Fatal(err)
	}
	// "Load" is the function (a qualified name exactly), not Store.Load,
	// whose lines were read: the function's were not.
	if ed.OK || ed.Error != "unread_range" || ed.Expanded == "" {
		t.Fatalf("replace_symbol of an unread declaration: %+v", ed.Outcome)
	}
	ed = engine.EditResult{}
	if err := e.Call("sightline/edit", map[string]any{"textDocument": map[string]string{"uri": u}, "edits": edits}, &ed); err != nil || !ed.OK {
		t.Fatalf("after the refusal handed the lines over: %v %+v", err, ed.Outcome)
	}
}
