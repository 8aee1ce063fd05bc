package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestWorkspaceSymbols: a query finds declarations across the registry's
// files, best matches first, records nothing, and extracts only the files
// whose bytes it has not seen: in this process, nor (after a restart)
// in the state database.
func TestWorkspaceSymbols(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old) // older than the clock's resolution: its hash is remembered
	}
	write("a/cache.go", "package a\n\ntype TokenCache struct{}\n\nfunc (c *TokenCache) Refresh() {}\n")
	write("b/util.py", "def refresh_all():\n    pass\n\nclass Other:\n    def run(self):\n        pass\n")
	write("c/notes.txt", "Refresh me\n")
	write(".env", "SECRET=1\n")
	open := func() *engine.Env {
		return engine.SetupTest(t, engine.Options{Roots: []string{root}, StateDir: state, Config: config.Default()})
	}
	ctx := context.Background()
	env := open()
	res, err := env.Symbols(ctx, engine.SymbolsParams{Query: "refresh"})
	if err != nil || !res.OK {
		t.Fatal(err, res.Message)
	}
	var got []string
	for _, s := range res.Symbols {
		got = append(got, s.Path+"#"+s.Name)
	}
	if want := "a/cache.go#TokenCache.Refresh b/util.py#refresh_all"; strings.Join(got, " ") != want {
		t.Errorf("symbols = %q, want %q", got, want)
	}
	if res.Files != 2 || res.Extracted != 2 {
		t.Errorf("files %d, extracted %d; want 2 and 2", res.Files, res.Extracted)
	}
	if res, _ = env.Symbols(ctx, engine.SymbolsParams{Query: "runo"}); len(res.Symbols) != 0 {
		t.Errorf("runo matched %+v", res.Symbols)
	}
	if res, _ = env.Symbols(ctx, engine.SymbolsParams{Query: "orun"}); len(res.Symbols) != 1 || res.Symbols[0].Name != "Other.run" || res.Extracted != 0 {
		t.Errorf("orun: %+v (extracted %d, want 0: nothing changed)", res.Symbols, res.Extracted)
	}
	if l, _ := env.LedgerReport(ctx, engine.LedgerParams{}); len(l.Documents) != 0 {
		t.Errorf("a symbol query recorded reads: %+v", l.Documents)
	}
	env.Close(ctx)

	// Another process: the database knows the unchanged file.
	write("b/util.py", "def refresh_all():\n    pass\n\ndef refresh_more():\n    pass\n")
	env = open()
	res, _ = env.Symbols(ctx, engine.SymbolsParams{Query: "refresh", Limit: 2})
	if res.Extracted != 1 || len(res.Symbols) != 2 || res.More != 1 {
		t.Errorf("after a restart with one file changed: extracted %d (want 1), %d symbols (+%d more): %+v", res.Extracted, len(res.Symbols), res.More, res.Symbols)
	}
	// An editor's buffer is searched as it is, unsaved.
	if _, err := env.WS.Open(string(workspace.FromPath(filepath.Join(root, "b/util.py"))), "python", 1, "def refresh_typed():\n    pass\n"); err != nil {
		t.Fatal(err)
	}
	if res, _ = env.Symbols(ctx, engine.SymbolsParams{Query: "refresh_t"}); len(res.Symbols) != 1 || res.Symbols[0].Name != "refresh_typed" {
		t.Errorf("the buffer's declaration: %+v", res.Symbols)
	}
	if _, err := env.Symbols(ctx, engine.SymbolsParams{Limit: -1}); err == nil {
		t.Error("a negative limit was taken")
	}
}
