package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestReadOfAnotherProcessAfterANoShow: a process that lives on (the ACP
// door) was told of a read whose text was no line of the document (an
// agent's summary, "Read lines 45-55 of 61", counts for nothing); another
// process (the agent's own hook) then records lines 45-55 for the same
// session. The first sees them at its next call: one live truth, whatever
// the first saw of the document before.
func TestReadOfAnotherProcessAfterANoShow(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	path := filepath.Join(root, "svc.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc := engine.TextDocument{URI: string(workspace.FromPath(path))}
	caller := engine.Caller{Session: "gemini-1", Agent: "gemini-cli"}
	door := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: state})
	door.Serve(caller.Session)
	if _, err := door.Shown(ctx, engine.ShownParams{Caller: caller, TextDocument: doc,
		Lines: []engine.ShownLine{{Line: 45, Text: "Read lines 45-55 of 61 from svc.txt"}}}); err != nil {
		t.Fatal(err)
	}
	door.Flush(ctx)
	hook := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: state, Ephemeral: true})
	hook.Serve(caller.Session)
	var lines []engine.ShownLine
	for i := 45; i <= 55; i++ {
		lines = append(lines, engine.ShownLine{Line: i, Text: fmt.Sprintf("line %d", i)})
	}
	if res, err := hook.Shown(ctx, engine.ShownParams{Caller: caller, TextDocument: doc, Lines: lines}); err != nil || !res.OK {
		t.Fatalf("the hook's read: %+v %v", res.Outcome, err)
	}
	if err := hook.Close(ctx); err != nil {
		t.Fatal(err)
	}
	door.Serve(caller.Session)
	res, err := door.Check(ctx, engine.CheckParams{Caller: caller, TextDocument: doc, Lines: []ledger.Range{{Start: 50, End: 50}}})
	if err != nil || !res.OK {
		t.Fatalf("the door's check of line 50 after the hook recorded it: %+v %v", res.Outcome, err)
	}
}
