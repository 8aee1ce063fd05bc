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

// TestBlockFillsEmptyFile: a block with an empty EDIT half on a file that
// exists and is empty (an empty __init__.py) fills it, once the file was
// read; on a file with lines it is refused, as before.
func TestBlockFillsEmptyFile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ before, want string }{
		{"", "x = 1\n"},
		{"y = 2\n", "y = 2\n"},
	} {
		root := t.TempDir()
		p := filepath.Join(root, "__init__.py")
		os.WriteFile(p, []byte(tc.before), 0o644)
		env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
		c := engine.Caller{Session: "s"}
		env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(p))}})
		r, err := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: c, Text: "__init__.py\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n"})
		if b, _ := os.ReadFile(p); err != nil || r.OK != (tc.before == "") || string(b) != tc.want {
			t.Errorf("%q: %v %+v: %q, want %q", tc.before, err, r, b, tc.want)
		}
		env.Close(ctx)
	}
}
