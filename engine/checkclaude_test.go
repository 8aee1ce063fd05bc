package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestCheckClaudeCodeDialect: with the claude-code dialect, sightline/check
// places old texts as Claude Code's Edit does (a CRLF file read with LF, in
// order) and targets the lines they change; an old text it cannot place so
// is refused as unjudged, and audited.
func TestCheckClaudeCodeDialect(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f.txt"), []byte("one\r\ntwo\r\nthree\r\nfour\r\n"), 0o644)
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(root, "f.txt")))
	ctx := context.Background()
	str := func(s string) *string { return &s }
	call := &ops.Call{Env: env} // through the envelope, which audits
	res, err := ops.Do(ctx, ops.Check, call, engine.CheckParams{Caller: engine.Caller{Session: "s"}, TextDocument: engine.TextDocument{URI: u},
		Dialect: engine.DialectClaudeCode, NoExpand: true, Old: []engine.OldText{
			{Text: "one", New: str("one\nmore")}, {Text: "more\ntwo\nthree", New: str("x")}}})
	if err != nil || len(res.Targets) != 1 || res.Targets[0] != (ledger.Range{Start: 1, End: 3}) || res.Error != "unread_range" {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = ops.Do(ctx, ops.Check, call, engine.CheckParams{Caller: engine.Caller{Session: "s"}, TextDocument: engine.TextDocument{URI: u},
		Dialect: engine.DialectClaudeCode, Old: []engine.OldText{{Text: "one", New: str("1")}, {Text: "absent", New: str("x")}}})
	if err != nil || res.Error != "unjudged" || len(res.Unmatched) != 1 || res.Unmatched[0] != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	a, err := env.Audit(ctx, engine.AuditParams{Session: "s"})
	if err != nil || len(a.Entries) != 2 || a.Entries[1].Error != "unjudged" {
		t.Fatalf("audit: %+v %v", a.Entries, err)
	}
	if _, err := env.Check(ctx, engine.CheckParams{TextDocument: engine.TextDocument{URI: u}, Dialect: "vim"}); err == nil {
		t.Fatal("an unknown dialect was accepted")
	}
}
