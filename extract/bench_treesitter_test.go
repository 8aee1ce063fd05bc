//go:build treesitter

package extract

import "testing"

// BenchmarkTreeSitter10k parses and extracts 10,000 lines of Go: the first
// 10,000 lines of the compiler's generated AMD64 rewrite rules (one file),
// and of net/http's sources run together (a file of that size with many
// declarations and comments; the extra package clauses cost tree-sitter
// error recovery, so this is the pessimistic case).
func BenchmarkTreeSitter10k(b *testing.B) {
	first := func(ls []Line) []Line {
		if len(ls) < 10000 {
			b.Skipf("only %d lines", len(ls))
		}
		return ls[:10000]
	}
	x, r := NewTreeSitter(), NewRegex()
	b.Run("go-rewriteAMD64", func(b *testing.B) {
		benchExtract(b, x, "go", first(goCorpus(b, "cmd/compile/internal/ssa/rewriteAMD64.go")))
	})
	b.Run("go-net-http", func(b *testing.B) { benchExtract(b, x, "go", first(goCorpus(b, "net/http/*.go"))) })
	b.Run("regex-go-net-http", func(b *testing.B) { benchExtract(b, r, "go", first(goCorpus(b, "net/http/*.go"))) })
	b.Run("golden-python-1MB", func(b *testing.B) { benchExtract(b, x, "python", goldenCorpus(b, "python")) })
}
