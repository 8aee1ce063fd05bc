package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/workspace"
)

// BenchmarkPatchNewFiles: one patch adding N files to one folder, with the
// state database (the journal). The cost per file should not grow with N.
//
//	go test ./engine/ -run XXX -bench PatchNewFiles -benchtime 1x
func BenchmarkPatchNewFiles(b *testing.B) {
	for _, n := range []int{1000, 4000, 10000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			var text strings.Builder
			for i := range n {
				fmt.Fprintf(&text, "--- /dev/null\n+++ b/d/f%05d.txt\n@@ -0,0 +1 @@\n+file %d\n", i, i)
			}
			ctx := context.Background()
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				root := b.TempDir()
				db, err := statedb.Open(ctx, b.TempDir(), zap.NewNop())
				if err != nil {
					b.Fatal(err)
				}
				env := newEnv(workspace.New([]string{root}, workspace.Options{}), ledger.New(ledger.Options{}), db, nil, config.Default(), nil, b.TempDir())
				b.StartTimer()
				start := time.Now()
				res, err := env.ApplyPatch(ctx, PatchParams{Text: text.String()})
				total += time.Since(start)
				b.StopTimer()
				if err != nil || !res.OK {
					b.Fatalf("%+v %v", res.Outcome, err)
				}
				db.Close(ctx)
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N*n), "µs/file")
		})
	}
}
