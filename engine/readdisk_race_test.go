package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestConcurrentRangeReadsOfANewDocumentAllCount: a long-lived process (the
// daemon) gets range reads of one document it does not hold, at once: each
// takes a revision for its view of the file, and every read is recorded,
// whichever of them shapes the document first.
func TestConcurrentRangeReadsOfANewDocumentAllCount(t *testing.T) {
	const n = 16
	var text strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	rounds := 40
	if testing.Short() { // under the race detector in CI
		rounds = 8
	}
	for round := range rounds {
		root := t.TempDir()
		path := filepath.Join(root, "f.txt")
		if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		e := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir()})
		var wg sync.WaitGroup
		for i := 1; i <= n; i++ {
			wg.Go(func() {
				p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(path))}, Range: &ledger.Range{Start: i, End: i}}
				p.Session = "s"
				if _, err := e.ReadDisk(context.Background(), p); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		k, err := e.WS.Resolve("f.txt")
		if err != nil {
			t.Fatal(err)
		}
		v := e.Ledger.Doc("s", ledger.DocKey(k))
		// Closed before the test's folders are removed: Windows removes no
		// open file.
		if err := e.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := ledger.NewRangeSet(v.Read...)
		if !got.Covers(ledger.Range{Start: 1, End: n}) {
			t.Fatalf("round %d: read %v, want 1-%d", round, v.Read, n)
		}
	}
}
