package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestBlocksCreateThenEdit: a block may edit a file an earlier block of the
// same output creates; several blocks of one read file chain; the guard
// covers what the blocks of a file change together.
func TestBlocksCreateThenEdit(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\nthree\nfour\n"), 0o644)
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	c := engine.Caller{Session: "s"}
	// Only line 1 read: a second block reaching line 4 is refused whole.
	if _, err := env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "a.txt")))}, Range: &ledger.Range{Start: 1, End: 1}}); err != nil {
		t.Fatal(err)
	}
	out := "n/new.txt\n<<<< EDIT\n==== REPLACE\nhello\n>>>> EDIT END\n" +
		"n/new.txt\n<<<< EDIT\nhello\n==== REPLACE\nhello\nworld\n>>>> EDIT END\n" +
		"a.txt\n<<<< EDIT\none\n==== REPLACE\nONE\n>>>> EDIT END\n" +
		"a.txt\n<<<< EDIT\nfour\n==== REPLACE\nFOUR\n>>>> EDIT END\n"
	res, _ := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: c, Text: out})
	if res.OK || res.Error != "unread_range" {
		t.Fatalf("a block of unread lines: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "n")); err == nil {
		t.Fatal("written although refused")
	}
	env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "a.txt")))}})
	res, _ = env.ApplyBlocks(ctx, engine.BlocksParams{Caller: c, Text: out})
	if !res.OK {
		t.Fatalf("blocks: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "n/new.txt")); string(b) != "hello\nworld\n" {
		t.Fatalf("n/new.txt: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "ONE\ntwo\nthree\nFOUR\n" {
		t.Fatalf("a.txt: %q", b)
	}
	for _, b := range res.Blocks {
		if b.Status != "applied" || !strings.Contains(b.Message, b.Path) {
			t.Fatalf("block: %+v", b)
		}
	}
}
