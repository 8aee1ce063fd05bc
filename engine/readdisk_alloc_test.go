package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestWholeDiskReadAllocatesAboutTheAnswer: a whole read of a large file
// from the disk allocates its answer and the lines it takes once each, not
// a string per line and a slice of them grown by doubling: in a process
// that lives for one call every byte allocated is fresh memory, a page
// fault per 4 KB (a 6.6 MB file's whole read took 12,000 of them).
func TestWholeDiskReadAllocatesAboutTheAnswer(t *testing.T) {
	if raceOn {
		t.Skip("allocations are not measured under the race detector")
	}
	defer engine.SetRacyAge(-time.Hour)()
	root := t.TempDir()
	path := filepath.Join(root, "big.go")
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "\tx := compute(%d, y) // a line of typical length\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	ctx := context.Background()
	p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(path))}, Budget: &struct {
		Chars int `json:"chars"`
	}{1 << 30}}
	for _, label := range []string{"first sight", "from the stat cache"} {
		e := engine.Setup(ctx, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: state})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := e.ReadDisk(ctx, p)
		runtime.ReadMemStats(&after)
		if err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", label, err, res.Outcome)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes allocated for a %d-byte file, %d-byte answer", label, alloc, b.Len(), len(res.Content))
		if limit := uint64(len(res.Content) + b.Len()*3/2); alloc > limit {
			t.Errorf("%s: the whole read of a %d-byte file allocated %d bytes, over its %d-byte answer and 1.5 times the file (%d)", label, b.Len(), alloc, len(res.Content), limit)
		}
		if err := e.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSetupForARangeReadAllocatesLittle: a CLI command assembles the
// engines for its one call, and every byte it allocates is fresh memory. It
// makes nothing the call does not use: the signature extractor (its
// regular expressions, a tree-sitter language) is made on the first
// extraction, which a range read that shows every line it names does not
// need. Made at the start, it was 40% of the 109 KB such a call allocated.
func TestSetupForARangeReadAllocatesLittle(t *testing.T) {
	if raceOn {
		t.Skip("allocations are not measured under the race detector")
	}
	defer engine.SetRacyAge(-time.Hour)()
	root := t.TempDir()
	path := filepath.Join(root, "a.go")
	if err := os.WriteFile(path, []byte(strings.Repeat("func f() {}\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	ctx := context.Background()
	p := engine.ReadParams{TextDocument: engine.TextDocument{URI: string(workspace.FromPath(path))}, Range: &ledger.Range{Start: 10, End: 19}}
	for i := range 3 { // the first sees the file whole; the next, from the stat cache
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		e := engine.Setup(ctx, engine.Options{Roots: []string{root}, Config: config.Default(), StateDir: state, Ephemeral: true})
		res, err := e.ReadDisk(ctx, p)
		if err == nil {
			err = e.Close(ctx)
		}
		runtime.ReadMemStats(&after)
		if err != nil || !res.OK {
			t.Fatalf("%v %+v", err, res.Outcome)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("call %d: %d bytes allocated", i+1, alloc)
		if limit := uint64(80 << 10); i > 0 && alloc > limit {
			t.Errorf("call %d: assembling the engines and a 10-line read allocated %d bytes, over %d", i+1, alloc, limit)
		}
	}
}
