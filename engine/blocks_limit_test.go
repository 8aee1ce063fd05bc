package engine_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
)

// Output that opens a block and never ends it is buffered up to a cap, then
// refused, instead of growing without bound.
func TestUnterminatedBlockIsCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds 100 MB")
	}
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	run := env.NewBlocks(engine.Caller{}, true, false)
	run.Write(context.Background(), []byte("a.txt\n<<<< EDIT\n"))
	chunk := []byte(strings.Repeat("x\n", 16<<10))
	var m runtime.MemStats
	peak := uint64(0)
	for fed := 0; fed < 100<<20; fed += len(chunk) {
		run.Write(context.Background(), chunk)
		if fed%(8<<20) == 0 {
			// What the run keeps (garbage collected first): the cap is on
			// what is buffered, not on how often the collector runs.
			runtime.GC()
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
		}
	}
	res := run.Close(context.Background())
	if res.OK || res.Error != "too_large" || len(res.Blocks) != 1 || !strings.Contains(res.Blocks[0].Message, "EDIT END") {
		t.Fatalf("unterminated 100 MB block: %+v", res)
	}
	if peak > 3*engine.MaxBlockBuffer {
		t.Fatalf("live heap peaked at %d MB", peak>>20)
	}
}
