package hashline

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/sightline-lsp/sightline/lines"
)

// parallelChunk is the least text worth a goroutine of its own: below it,
// starting one and copying its output costs more than it saves.
const parallelChunk = 1 << 20

// Annotate appends text to dst in the hashline format, numbering its first
// line firstLine (1 for a whole file). Lines are split by the LSP rule and
// their terminators dropped; every output line, the last included, ends with
// "\n", so annotated windows of one file concatenate into a valid block. An
// empty text appends nothing.
//
// Large texts are annotated by up to GOMAXPROCS goroutines, each on its own
// run of whole lines; the output is the same.
func Annotate(dst []byte, text string, firstLine int) []byte {
	if text == "" {
		return dst
	}
	workers := min(runtime.GOMAXPROCS(0), len(text)/parallelChunk)
	if workers < 2 || firstLine < 0 {
		return annotate(slices.Grow(dst, estimate(len(text))), text, firstLine)
	}

	chunks := splitChunks(text, workers)
	first := make([]int, len(chunks))
	first[0] = firstLine
	for i := 1; i < len(chunks); i++ {
		first[i] = first[i-1] + countLines(chunks[i-1])
	}
	outs := make([][]byte, len(chunks))
	var wg sync.WaitGroup
	for i := 1; i < len(chunks); i++ {
		wg.Go(func() {
			outs[i] = annotate(make([]byte, 0, estimate(len(chunks[i]))), chunks[i], first[i])
		})
	}
	// Growing dst only now lets its zeroing overlap the other workers.
	dst = annotate(slices.Grow(dst, estimate(len(text))), chunks[0], firstLine)
	wg.Wait()
	for _, out := range outs[1:] {
		dst = append(dst, out...)
	}
	return dst
}

// estimate is the room n bytes of text are likely to take annotated: the
// prefix adds well under half the length of a typical source line, and one
// growth up front spares the doublings of a large file.
func estimate(n int) int { return n + n/2 + 16 }

// annotate is Annotate on one goroutine.
func annotate(dst []byte, text string, firstLine int) []byte {
	if firstLine < 0 {
		// Not a real line number; the counter below handles only n >= 0.
		for n := firstLine; text != ""; n++ {
			var l lines.Line
			l, text = lines.Next(text)
			dst = append(AppendLine(dst, n, l.Content), '\n')
		}
		return dst
	}
	w := NewLineWriter(firstLine)
	if strings.IndexByte(text, '\r') < 0 {
		// Without '\r' every line ends at a '\n': one scan per line instead
		// of the two the LSP rule needs in general.
		for text != "" {
			i := strings.IndexByte(text, '\n')
			c := text
			if i >= 0 {
				c, text = text[:i], text[i+1:]
			} else {
				text = ""
			}
			dst = w.Append(dst, c)
		}
		return dst
	}
	for text != "" {
		var l lines.Line
		l, text = lines.Next(text)
		dst = w.Append(dst, l.Content)
	}
	return dst
}

// splitChunks cuts text into at most n runs of whole lines of similar size.
// Each cut is made just after a '\n', which always ends a line (alone or as
// the end of "\r\n"), so no terminator is split. Text with no '\n' after a
// cut point (lines ended by bare '\r') yields fewer chunks.
func splitChunks(text string, n int) []string {
	chunks := make([]string, 0, n)
	size := len(text) / n
	for len(chunks) < n-1 && len(text) > size {
		i := strings.IndexByte(text[size:], '\n')
		if i < 0 {
			break
		}
		cut := size + i + 1
		chunks = append(chunks, text[:cut])
		text = text[cut:]
	}
	return append(chunks, text)
}

// countLines is lines.Count, with a fast path for the common text without
// '\r', where every line ends at a '\n'. The chunks it counts end in '\n'.
func countLines(s string) int {
	if strings.IndexByte(s, '\r') < 0 {
		return strings.Count(s, "\n")
	}
	return lines.Count(s)
}

// AnnotateRange appends lines [from, to] (1-based, inclusive, clamped to
// the document) of src in the hashline format, each ending in "\n", as
// Annotate does. With bom, a byte-order mark at the start of line 1 is left
// out, as reads leave it out. It is how a window of fresh refs is shown.
func AnnotateRange(dst []byte, src Source, from, to int, bom bool) []byte {
	from, to = max(from, 1), min(to, src.LineCount())
	for i := from; i <= to; i++ {
		c := src.Line(i - 1).Content
		if bom && i == 1 {
			_, c = StripBOM(c)
		}
		dst = append(AppendLine(dst, i, c), '\n')
	}
	return dst
}
