//go:build !race

// Allocations are not measured under the race detector.

package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestHistoryKeepsAWholeTextWithoutCopyingIt: a write the history keeps
// whole (the first of a file, one in every few after it) compresses the
// text as the document holds it; it copied all of it once more first: an
// 8 MB text read from the disk allocated 12.3 MB, an edited one 21.0 MB
// (now 3.9 and 12.6 MB).
func TestHistoryKeepsAWholeTextWithoutCopyingIt(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "big.go")
	var b strings.Builder
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, "\tx := compute(%d, y) // a line of typical length\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	env := SetupTest(t, Options{Roots: []string{root}, Config: config.Default(), StateDir: t.TempDir(), LockDir: t.TempDir()})
	defer env.Close(context.Background())
	d, err := env.admit(context.Background(), Caller{}, env.WS.Place(workspace.FromPath(path)), reportAccess)
	if err != nil {
		t.Fatal(err)
	}
	d.FileHash()
	// An edited text, as the history meets it after a write: held in
	// pieces, its whole text built once (and kept by the snapshot).
	p := hashline.NewPlan(d.Snap.LineCount(), []hashline.Splice{{Start: 10, Old: 1, New: []lines.Line{{Content: "\tedited()", Term: "\n"}}}}, nil)
	next, _, err := p.Apply(d.Snap)
	if err != nil {
		t.Fatal(err)
	}
	edited := workspace.Doc{Snap: next}
	edited.FileHash()
	for _, c := range []struct {
		name string
		doc  workspace.Doc
		text int // what building its whole text allocates
	}{{"read from disk", d, 0}, {"edited", edited, next.Len()}} {
		ctx := context.Background()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		env.tx.record(ctx, Caller{Session: "s"}, "big.go", written{after: c.doc})
		env.history.drain()
		runtime.ReadMemStats(&after)
		alloc := int(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%s: %d bytes allocated to keep a %d-byte text whole", c.name, alloc, c.doc.Snap.Len())
		// Its compression takes a few writers' tables (about 1.5 MB each,
		// one per part compressed side by side) and the compressed text:
		// less than a copy of the text.
		if limit := c.text + c.doc.Snap.Len(); alloc > limit {
			t.Errorf("%s: keeping a %d-byte text whole allocated %d bytes, over %d (what building its whole text takes, and less than a copy of it)", c.name, c.doc.Snap.Len(), alloc, limit)
		}
	}
}
