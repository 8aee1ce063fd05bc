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

// TestDryRunCreateInDeclaredCharset: a new file whose text the charset its
// .editorconfig declares cannot hold is refused unrepresentable by a dry
// run exactly as by the real run, through each door that creates a file
// (write's create mode, a patch's *** Add File, a block with an empty EDIT
// half); a representable text passes both.
func TestDryRunCreateInDeclaredCharset(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".editorconfig"), []byte("root = true\n[*.txt]\ncharset = latin1\n"), 0o644)
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	c := engine.Caller{Session: "s"}
	doors := map[string]func(text string, dry bool) engine.Outcome{
		"write": func(text string, dry bool) engine.Outcome {
			r, err := env.Write(ctx, engine.WriteParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "w.txt")))}, Mode: "create", Content: &text, DryRun: dry})
			if err != nil {
				t.Fatal(err)
			}
			return r.Outcome
		},
		"patch": func(text string, dry bool) engine.Outcome {
			r, err := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: "*** Begin Patch\n*** Add File: p.txt\n+" + text + "*** End Patch\n", DryRun: dry})
			if err != nil {
				t.Fatal(err)
			}
			return r.Outcome
		},
		"blocks": func(text string, dry bool) engine.Outcome {
			r, err := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: c, Text: "b.txt\n<<<<<<< SEARCH\n=======\n" + text + ">>>>>>> REPLACE\n", DryRun: dry})
			if err != nil {
				t.Fatal(err)
			}
			// The answer's kind is the summary's; the block's says why.
			if !r.OK && len(r.Blocks) == 1 {
				r.Error = r.Blocks[0].Error
			}
			return r.Outcome
		},
	}
	for door, run := range doors {
		for _, dry := range []bool{true, false} {
			o := run("→\n", dry)
			if o.OK || o.Error != result.Unrepresentable {
				t.Errorf("%s dry=%v: a character Latin-1 lacks: %+v", door, dry, o)
			}
		}
		if o := run("café\n", true); !o.OK {
			t.Errorf("%s: dry run of a representable text: %+v", door, o)
		}
	}
	for _, n := range []string{"w.txt", "p.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(root, n)); !os.IsNotExist(err) {
			t.Errorf("%s was written: %v", n, err)
		}
	}
}
