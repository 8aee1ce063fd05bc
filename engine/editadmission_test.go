package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// countingApprover counts the questions the user is asked, and approves.
type countingApprover struct{ asked int }

func (a *countingApprover) Approve(context.Context, engine.Approval) (engine.Decision, error) {
	a.asked++
	return engine.AllowOnce, nil
}

// Malformed edits are refused before the admission step: the user is not
// asked to approve a sensitive file for an edit that cannot apply, and a
// path refused by name is still answered as refused.
func TestMalformedEditsAskNoApproval(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("A=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ap := &countingApprover{}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true, Approver: ap})
	res, err := env.Edit(context.Background(), engine.EditParams{TextDocument: engine.TextDocument{URI: workspace.FromPath(filepath.Join(root, ".env")).String()},
		Edits: []byte(`[{"type":"replace_line"}]`)})
	if err != nil || res.OK || res.Error != result.InvalidEdit {
		t.Fatalf("malformed edit of .env: %v %+v", err, res.Outcome)
	}
	if ap.asked != 0 {
		t.Fatalf("the user was asked %d times to approve an edit that cannot apply", ap.asked)
	}
	res, err = env.Edit(context.Background(), engine.EditParams{TextDocument: engine.TextDocument{URI: workspace.FromPath(filepath.Join(root, ".git", "config")).String()},
		Edits: []byte(`[{"type":"replace_line"}]`)})
	if err != nil || res.OK || res.Error != result.Denied {
		t.Fatalf("malformed edit of .git/config: %v %+v, want denied", err, res.Outcome)
	}
}
