package lines

import (
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/internal/gosrc"
)

// BenchmarkAppendEnds200k finds the line ends of 200,000 lines of the
// standard library's Go (about 6 MB); -cpu 1 measures the search alone,
// the default adds the split among goroutines.
func BenchmarkAppendEnds200k(b *testing.B) {
	src, err := gosrc.Lines(200_000)
	if err != nil {
		b.Skip(err)
	}
	text := strings.Join(src, "")
	b.SetBytes(int64(len(text)))
	dst := make([]uint32, 0, len(src))
	for b.Loop() {
		dst = AppendEnds(dst[:0], text)
	}
}
