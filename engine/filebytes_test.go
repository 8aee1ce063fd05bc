package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestPatchOfMarkedLineOne: a file that starts with a byte-order mark,
// changed by a diff of its bytes (git's: the mark is part of line 1's
// context or removed line), in every dialect: the hunk or block applies
// and the mark stays.
func TestPatchOfMarkedLineOne(t *testing.T) {
	ctx := context.Background()
	const before, after = "\ufeffa\nb\nc\n", "\ufeffa\nB\nc\n"
	for _, tc := range []struct{ dialect, text string }{
		{"unified", "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n \ufeffa\n-b\n+B\n c\n"},
		{"udiff", "--- a/f.txt\n+++ b/f.txt\n@@ ... @@\n \ufeffa\n-b\n+B\n c\n"},
		{"v4a", "*** Begin Patch\n*** Update File: f.txt\n@@\n \ufeffa\n-b\n+B\n c\n*** End Patch\n"},
		{"blocks", "f.txt\n<<<<<<< SEARCH\n\ufeffa\nb\n=======\n\ufeffa\nB\n>>>>>>> REPLACE\n"},
		// Line 1 itself replaced: the mark stays on the new line 1.
		{"first line", "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-\ufeffa\n+\ufeffa\n b\n"},
	} {
		root := t.TempDir()
		p := filepath.Join(root, "f.txt")
		os.WriteFile(p, []byte(before), 0o644)
		env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
		c := engine.Caller{Session: "s"}
		env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(p))}})
		var ok bool
		var msg string
		if tc.dialect == "blocks" {
			r, _ := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: c, Text: tc.text})
			ok, msg = r.OK, r.Message
		} else {
			r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: tc.text})
			ok, msg = r.OK, r.Message
		}
		want := after
		if tc.dialect == "first line" {
			want = before
		}
		if b, _ := os.ReadFile(p); !ok || string(b) != want {
			t.Errorf("%s: ok=%v %s: %q, want %q", tc.dialect, ok, msg, b, want)
		}
		env.Close(ctx)
	}
}
