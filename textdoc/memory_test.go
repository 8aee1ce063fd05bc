package textdoc

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMemoryPerDocument measures what an open document costs: the heap New
// adds to its text (the line index), for a 1 MB document of 25,000 lines.
func TestMemoryPerDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("memory measurement")
	}
	var b strings.Builder
	for i := range 25000 {
		fmt.Fprintf(&b, "\tvalue_%06d := compute(%d, %d) // x\n", i, i, i*7)
	}
	text := b.String()
	base := liveHeap()
	s := New(text)
	index := liveHeap() - base
	t.Logf("New of a %d-byte, %d-line document: index %d bytes (%.1f B/line), text + index %.2f MB (%.2fx the text)",
		len(text), s.LineCount(), index, float64(index)/float64(s.LineCount()),
		float64(len(text)+int(index))/1e6, float64(len(text)+int(index))/float64(len(text)))
	runtime.KeepAlive(s)
	runtime.KeepAlive(text)
}
