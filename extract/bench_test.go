package extract

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Benchmarks report, they don't assert (targets: regex ≥ 50 MB/s,
// tree-sitter parse + extract of 10,000 lines ≤ 50 ms).
//
//	go test ./extract/ -run '^$' -bench . -benchtime 2s
//	CGO_ENABLED=1 go test -tags treesitter ./extract/ -run '^$' -bench . -benchtime 2s

// goCorpus returns real Go source from the toolchain's standard library.
func goCorpus(b *testing.B, pattern string) []Line {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", pattern))
	var sb strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err == nil {
			sb.Write(data)
		}
	}
	if sb.Len() == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	return srcLines(sb.String(), false)
}

func linesBytes(ls []Line) int64 {
	var n int64
	for _, l := range ls {
		n += int64(len(l.Content) + 1)
	}
	return n
}

// goldenCorpus repeats the golden source of a language to about 1 MB.
func goldenCorpus(b *testing.B, lang string) []Line {
	b.Helper()
	g := readGolden(&testing.T{}, filepath.Join("testdata", lang+".txtar"))
	src := g.sections["src"]
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(src)
	}
	return srcLines(sb.String(), false)
}

func benchExtract(b *testing.B, x Extractor, lang string, lines []Line) {
	b.SetBytes(linesBytes(lines))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Extract(lang, lines)
	}
}

func BenchmarkRegex(b *testing.B) {
	x := NewRegex()
	b.Run("go-net-http", func(b *testing.B) { benchExtract(b, x, "go", goCorpus(b, "net/http/*.go")) })
	for _, lang := range []string{"go", "typescript", "javascript", "python", "rust", "java", "c", "cpp", "ruby"} {
		b.Run("golden-"+lang, func(b *testing.B) { benchExtract(b, x, lang, goldenCorpus(b, lang)) })
	}
}
