package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// The audit log's bound holds while a process lives (a language server runs
// for days, the daemon for hours), not only from one process's start to the
// next: the retention check runs as the calls go, every few dozen rows of
// the log, whichever process appends them.
func TestAuditBoundHoldsAsCallsGo(t *testing.T) {
	ctx := context.Background()
	root, state := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Audit.MaxEntries = 40
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: cfg, StateDir: state})
	uri := string(workspace.FromPath(filepath.Join(root, "f.txt")))
	for range 200 {
		if _, err := ops.Do(ctx, ops.Read, &ops.Call{Env: env}, engine.ReadParams{TextDocument: engine.TextDocument{URI: uri}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Close(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Audit(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) > 40+engine.RetainEvery {
		t.Fatalf("%d audit rows after 200 calls of one process, bound 40: the log was not pruned as the calls went", len(rows))
	}
}
