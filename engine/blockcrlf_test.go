package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
)

// TestBlockCreatesCRLF: an edit block that creates a file writes its lines
// with the terminators the block gives them ("\r\n" for a .cmd script
// written so), not always "\n".
func TestBlockCreatesCRLF(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ text, want string }{
		{"run.cmd\n<<<<<<< SEARCH\n=======\n@echo off\r\nexit /b\r\n>>>>>>> REPLACE\n", "@echo off\r\nexit /b\r\n"},
		{"run.cmd\n<<<<<<< SEARCH\n=======\n@echo off\nexit /b\n>>>>>>> REPLACE\n", "@echo off\nexit /b\n"},
	} {
		root := t.TempDir()
		env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
		r, err := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: engine.Caller{Session: "s"}, Text: tc.text})
		if b, _ := os.ReadFile(filepath.Join(root, "run.cmd")); err != nil || !r.OK || string(b) != tc.want {
			t.Errorf("%q: %v %+v: %q, want %q", tc.text, err, r, b, tc.want)
		}
		env.Close(ctx)
	}
}
