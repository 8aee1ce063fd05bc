package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// bigGo is a Go file of n 20-line functions, each with a doc comment.
func bigGo(n int) string {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := range n {
		fmt.Fprintf(&b, "// F%d does step %d.\nfunc F%d(x int) int {\n", i, i, i)
		for j := range 16 {
			fmt.Fprintf(&b, "\tx += %d * %d\n", i, j)
		}
		b.WriteString("\treturn x\n}\n")
	}
	return b.String()
}

// BenchmarkSymbolReads: outline of a 10,000-line file and a read of one of
// its declarations by name, beside a 10-line range read of the same file,
// in one run (the file loaded and its declarations extracted once, as a
// server holds them), each in a session of its own (an outline leaves its
// session hundreds of read lines apart, which every later answer's ledger
// carries):
//
//	go test -run '^$' -bench SymbolReads ./engine/
func BenchmarkSymbolReads(b *testing.B) {
	root := b.TempDir()
	path := filepath.Join(root, "big.go")
	src := bigGo(500) // 2 + 500*20 lines
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	env := engine.SetupTest(b, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := engine.TextDocument{URI: string(workspace.FromPath(path))}
	ctx := context.Background()
	if res, err := env.Read(ctx, engine.ReadParams{TextDocument: u, Symbol: "F250"}); err != nil || !res.OK || res.Range.End-res.Range.Start != 19 {
		b.Fatalf("F250: %v %+v", err, res.Outcome)
	}
	b.Run("range10", func(b *testing.B) {
		for range b.N {
			r := ledger.Range{Start: 5001, End: 5010}
			if res, _ := env.Read(ctx, engine.ReadParams{Caller: engine.Caller{Session: "range"}, TextDocument: u, Range: &r}); !res.OK {
				b.Fatal(res.Message)
			}
		}
	})
	b.Run("outline", func(b *testing.B) {
		for range b.N {
			if res, _ := env.Outline(ctx, engine.OutlineParams{Caller: engine.Caller{Session: "outline"}, TextDocument: u}); !res.OK || len(res.Symbols) != 500 {
				b.Fatal(res.Message)
			}
		}
	})
	b.Run("symbol", func(b *testing.B) {
		for range b.N {
			if res, _ := env.Read(ctx, engine.ReadParams{Caller: engine.Caller{Session: "symbol"}, TextDocument: u, Symbol: "F250"}); !res.OK {
				b.Fatal(res.Message)
			}
		}
	})
}

// BenchmarkWorkspaceSymbols: a query over 10,000 files whose declarations
// are known (warm), with the editor watching files (the walk kept) and
// without (a walk per query, as in the CLI's process):
//
//	go test -run '^$' -bench WorkspaceSymbols ./engine/
func BenchmarkWorkspaceSymbols(b *testing.B) {
	root := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 10000 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		src := fmt.Sprintf("package p\n\ntype T%d struct{}\n\nfunc (t *T%d) Run() {}\n\nfunc New%d() *T%d { return nil }\n", i, i, i, i)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	// A file changed within the clock's resolution is hashed again on every
	// query (its hash cannot be trusted yet): the files settle first, as a
	// workspace's files have.
	time.Sleep(2500 * time.Millisecond)
	for _, watched := range []bool{true, false} {
		name := "walked"
		if watched {
			name = "watched"
		}
		b.Run(name, func(b *testing.B) {
			env := engine.SetupTest(b, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
			env.WatchingFiles(watched)
			ctx := context.Background()
			start := time.Now()
			res, err := env.Symbols(ctx, engine.SymbolsParams{Query: "new4242"})
			if err != nil || len(res.Symbols) != 1 || res.Files != 10000 {
				b.Fatalf("cold: %v %d symbols of %d files", err, len(res.Symbols), res.Files)
			}
			cold := time.Since(start)
			b.ResetTimer()
			for range b.N {
				res, _ := env.Symbols(ctx, engine.SymbolsParams{Query: "new4242"})
				if res.Extracted != 0 || len(res.Symbols) != 1 {
					b.Fatalf("warm query extracted %d", res.Extracted)
				}
			}
			b.ReportMetric(float64(cold.Milliseconds()), "cold-ms")
		})
	}
}
