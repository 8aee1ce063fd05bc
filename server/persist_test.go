package server_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

// TestLedgerSurvivesRestart: reads persist in the state database; after a
// restart they still count for files whose bytes are unchanged, and for the
// unchanged lines of files that changed meanwhile (the changed lines that
// were read are stale).
func TestLedgerSurvivesRestart(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(t.TempDir(), "state")
	os.WriteFile(filepath.Join(root, "same.txt"), []byte("a\nb\nc\nd\n"), 0o644)
	os.WriteFile(filepath.Join(root, "changed.txt"), []byte("a\nb\nc\nd\n"), 0o644)
	o := lsptest.Options{Root: root, Server: server.Options{StateDir: state}}

	e := lsptest.Start(t, o)
	for _, name := range []string{"same.txt", "changed.txt"} {
		if res := read(t, e, fileURI(root, name), &ledger.Range{Start: 2, End: 3}, map[string]any{"session": "s1"}); !res.OK {
			t.Fatalf("read %s: %+v", name, res.Outcome)
		}
	}
	if code := e.Shutdown(); code != 0 {
		t.Fatalf("exit %d", code)
	}

	os.WriteFile(filepath.Join(root, "changed.txt"), []byte("a\nB\nc\nd\n"), 0o644)
	e = lsptest.Start(t, o)
	ledgerOf := func(name string) engine.DocLedger {
		var res engine.LedgerResult
		if err := e.Call("sightline/ledger", map[string]any{"session": "s1", "textDocument": map[string]string{"uri": fileURI(root, name)}}, &res); err != nil {
			t.Fatal(err)
		}
		return res.Documents[0]
	}
	if d := ledgerOf("same.txt"); d.State != ledger.PartialRead || len(d.Read) != 1 || d.Read[0] != (ledger.Range{Start: 2, End: 3}) {
		t.Fatalf("unchanged file after restart: %+v", d)
	}
	if d := ledgerOf("changed.txt"); d.State != ledger.Stale || len(d.Read) != 1 || d.Read[0] != (ledger.Range{Start: 3, End: 3}) ||
		len(d.Stale) != 1 || d.Stale[0] != (ledger.Range{Start: 2, End: 2}) {
		t.Fatalf("changed file after restart: %+v", d)
	}

	// A reset session stays reset across a restart.
	var out engine.Outcome
	if err := e.Call("sightline/session/reset", map[string]any{"session": "s1"}, &out); err != nil || !out.OK {
		t.Fatalf("reset: %v %+v", err, out)
	}
	e.Shutdown()
	e = lsptest.Start(t, o)
	if d := ledgerOf("same.txt"); d.State != ledger.NeverRead {
		t.Fatalf("after reset and restart: %+v", d)
	}
	e.Shutdown()
}
