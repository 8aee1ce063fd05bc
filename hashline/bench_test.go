package hashline

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// sourceLike builds n lines that look like source code (indentation, words,
// punctuation, blank lines), about 32 bytes a line, the same for every run.
func sourceLike(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"func", "return", "if", "err", "!=", "nil", "{", "}", "ctx", "for", ":=", "range",
		"s.mu.Lock()", "defer", "fmt.Errorf(\"store: %w\",", "x", "i++", "len(buf)", "string", "int", "//", "the", "value"}
	var b strings.Builder
	b.Grow(n * 34)
	for range n {
		if r.IntN(8) == 0 {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(strings.Repeat("\t", r.IntN(4)))
		for w := 3 + r.IntN(8); w > 0; w-- {
			b.WriteString(words[r.IntN(len(words))])
			if w > 1 {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func BenchmarkAnnotate200k(b *testing.B) {
	text := sourceLike(200_000)
	b.SetBytes(int64(len(text)))
	b.ReportMetric(float64(len(text))/200_000, "bytes/line")
	var dst []byte
	for b.Loop() {
		dst = Annotate(dst[:0], text, 1)
	}
}

func BenchmarkAnnotate200kFresh(b *testing.B) {
	text := sourceLike(200_000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = Annotate(nil, text, 1)
	}
}

func BenchmarkHash(b *testing.B) {
	line := "\tif err := s.db.PutEntries(ctx, puts); err != nil {"
	for b.Loop() {
		_ = Hash(line)
	}
}

// BenchmarkFileHash200k is the file hash of a 200,000-line file (SHA-256
// of its bytes), what a large file's read or edit pays once per version.
func BenchmarkFileHash200k(b *testing.B) {
	data := []byte(sourceLike(200_000))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		_ = FileHash(data)
	}
}

func BenchmarkAppendLine(b *testing.B) {
	line := "\tif err := s.db.PutEntries(ctx, puts); err != nil {"
	dst := make([]byte, 0, 128)
	for b.Loop() {
		dst = AppendLine(dst[:0], 123456, line)
	}
}

func TestSourceLikeSize(t *testing.T) {
	text := sourceLike(200_000)
	t.Logf("%d bytes, %.1f bytes/line", len(text), float64(len(text))/200_000)
}

// BenchmarkAnnotate200kSerial is the one-goroutine path, for comparison.
func BenchmarkAnnotate200kSerial(b *testing.B) {
	text := sourceLike(200_000)
	b.SetBytes(int64(len(text)))
	dst := make([]byte, 0, estimate(len(text)))
	for b.Loop() {
		dst = annotate(dst[:0], text, 1)
	}
}

func BenchmarkAnnotate200kCRLF(b *testing.B) {
	text := strings.ReplaceAll(sourceLike(200_000), "\n", "\r\n")
	b.SetBytes(int64(len(text)))
	var dst []byte
	for b.Loop() {
		dst = Annotate(dst[:0], text, 1)
	}
}

// BenchmarkAnnotate200kBareLoop is the floor annotate is measured against:
// the plainest Go loop making the same output (lines cut at '\n' only,
// strconv for the number, the same hash), written for speed, not the LSP
// line rule.
func BenchmarkAnnotate200kBareLoop(b *testing.B) {
	text := sourceLike(200_000)
	b.SetBytes(int64(len(text)))
	dst := make([]byte, 0, estimate(len(text)))
	for b.Loop() {
		dst = dst[:0]
		n := 1
		for rest := text; rest != ""; n++ {
			i := strings.IndexByte(rest, '\n')
			line := rest
			if i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else {
				rest = ""
			}
			dst = strconv.AppendInt(dst, int64(n), 10)
			dst = append(dst, ':')
			dst = appendHash(dst, line)
			dst = append(dst, '|')
			dst = append(dst, line...)
			dst = append(dst, '\n')
		}
	}
}
