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
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestDiffOfCurrentIsARead: a diff against "current" shows the document's
// text as it is now, so that text is admitted as a read's is: a file that
// gained a second hard link since sightline wrote it may be a secret under
// another name, and its lines need the user's approval, as its read does.
func TestDiffOfCurrentIsARead(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "notes.txt")
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir()})
	ctx := context.Background()
	doc := engine.TextDocument{URI: string(workspace.FromPath(path))}
	content := "one\n"
	if res, err := env.Write(ctx, engine.WriteParams{TextDocument: doc, Mode: "create", Content: &content}); err != nil || !res.OK {
		t.Fatalf("create: %+v %v", res.Outcome, err)
	}
	if err := os.Link(path, filepath.Join(t.TempDir(), "id_ed25519")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if err := os.WriteFile(path, []byte("one\nPRIVATE KEY\n"), 0o644); err != nil { // in place: the link stays
		t.Fatal(err)
	}
	if res, err := env.Read(ctx, engine.ReadParams{TextDocument: doc}); err != nil || res.Error != result.ApprovalRefused {
		t.Fatalf("read: %+v %v", res.Outcome, err)
	}
	res, err := env.Diff(ctx, engine.DiffParams{TextDocument: doc})
	if err != nil || res.OK || res.Error != result.ApprovalRefused || strings.Contains(res.Diff+res.Message, "PRIVATE") {
		t.Fatalf("diff: %+v %q %v", res.Outcome, res.Diff, err)
	}
}

// TestPatchDeleteShowsAReadText: a patch that deletes a file answers its
// lines (the diff), so the file is admitted as a read's is: one with a
// second hard link needs the user's approval, whatever the guard.
func TestPatchDeleteShowsAReadText(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(path, []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, filepath.Join(t.TempDir(), "id_ed25519")); err != nil {
		t.Skip("no hard links here:", err)
	}
	cfg := config.Default()
	cfg.Guard = "warn"
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: cfg, NoPersist: true})
	res, err := env.ApplyPatch(context.Background(), engine.PatchParams{Text: "*** Begin Patch\n*** Delete File: notes.txt\n*** End Patch\n", DryRun: true})
	if err != nil || res.OK || res.Error != result.ApprovalRefused || strings.Contains(fmt.Sprintf("%+v", res), "PRIVATE") {
		t.Fatalf("%+v %v", res, err)
	}
}
