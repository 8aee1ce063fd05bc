package engine_test

import (
	"context"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

// TestBlocksWithoutABlockAreAudited: edit-block output holding no block is
// refused (invalid_edit), and audited like every refusal, as a patch that
// names no file is.
func TestBlocksWithoutABlockAreAudited(t *testing.T) {
	env := engine.SetupTest(t, engine.Options{Roots: []string{t.TempDir()}, Config: config.Default(), NoPersist: true})
	ctx := context.Background()
	call := &ops.Call{Env: env}
	res, err := ops.Do(ctx, ops.ApplyBlocks, call, engine.BlocksParams{Caller: engine.Caller{Session: "b"}, Text: "no block here\n"})
	if err != nil || res.OK || res.Error != "invalid_edit" {
		t.Fatalf("blocks: %+v %v", res.Outcome, err)
	}
	if res, err := ops.Do(ctx, ops.ApplyPatch, call, engine.PatchParams{Caller: engine.Caller{Session: "p"}, Text: "no patch here\n"}); err != nil || res.OK {
		t.Fatalf("patch: %+v %v", res.Outcome, err)
	}
	for _, session := range []string{"b", "p"} {
		a, err := env.Audit(ctx, engine.AuditParams{Session: session})
		if err != nil || len(a.Entries) != 1 || a.Entries[0].Outcome != "refused" || a.Entries[0].Error != "invalid_edit" {
			t.Errorf("session %s: audit %+v %v", session, a.Entries, err)
		}
	}
}
