package server_test

import (
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestSummaryAndOutline: sightline/summary and textDocument/documentSymbol on
// a real file (CPython's sched.py).
func TestSummaryAndOutline(t *testing.T) {
	src, err := os.ReadFile("../testdata/realworld/sched.py")
	if err != nil {
		t.Fatal(err)
	}
	e, root := start(t, map[string]string{"sched.py": string(src)}, lsptest.Options{})
	u := fileURI(root, "sched.py")
	var sum engine.SummaryResult
	if err := e.Call("sightline/summary", map[string]any{"textDocument": map[string]string{"uri": u}, "maxChars": 300}, &sum); err != nil {
		t.Fatal(err)
	}
	if !sum.OK || sum.Language != "python" || len(sum.Excerpt) > 300 || !strings.HasPrefix(sum.Excerpt, `"""A generally useful event scheduler class.`) {
		t.Fatalf("summary: %+v", sum)
	}
	names := map[string]bool{}
	for _, s := range sum.Symbols {
		names[s.Kind+" "+s.Name] = true
	}
	for _, want := range []string{"class scheduler", "method enterabs", "method run"} {
		if !names[want] {
			t.Errorf("summary lacks %s: %v", want, names)
		}
	}
	var led engine.LedgerResult
	e.Call("sightline/ledger", map[string]any{"textDocument": map[string]string{"uri": u}}, &led)
	if got := led.Documents[0].Read; len(got) != 1 || got[0] != *sum.ExcerptRange {
		t.Fatalf("excerpt not recorded as read: %+v vs %+v", got, sum.ExcerptRange)
	}

	e.Open(u, "python", string(src))
	var outline []protocol.DocumentSymbol
	if err := e.Call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]string{"uri": u}}, &outline); err != nil {
		t.Fatal(err)
	}
	var cls *protocol.DocumentSymbol
	for i := range outline {
		if outline[i].Name == "scheduler" {
			cls = &outline[i]
		}
	}
	if cls == nil || cls.Kind != protocol.SymbolKindClass || len(cls.Children) < 5 || cls.Range.Start.Line != 50 {
		t.Fatalf("outline: %+v", outline)
	}
}
