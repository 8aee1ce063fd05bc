package textdoc

import (
	"bytes"
	"crypto/sha256"
	"runtime"
	"testing"
)

// TestWriteToAllocatesWithTheChange: streaming an edited text (to a file,
// a hash, a comparison) hands the unchanged runs on as they lie and
// gathers the rest: what it allocates grows with the lines changed, not
// with the file. A one-line edit of a 6 MB text allocated a 256 KB buffer
// for its kilobyte of new leaf.
func TestWriteToAllocatesWithTheChange(t *testing.T) {
	text := goSource(200_000, 1)
	for _, line := range []uint32{100, 100_000} {
		s, _, err := New(text).Apply([]Change{{Range: &Range{Start: Pos{Line: line}, End: Pos{Line: line + 1}}, Text: "\tedited()\n"}}, UTF8)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n, err := s.WriteTo(h)
		runtime.ReadMemStats(&after)
		if err != nil || n != int64(s.Len()) {
			t.Fatalf("WriteTo: %d bytes, %v", n, err)
		}
		var b bytes.Buffer
		if s.WriteTo(&b); b.String() != s.Text() {
			t.Fatal("WriteTo does not write the text")
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("line %d of %d bytes: %d bytes allocated", line, s.Len(), alloc)
		if alloc > 32<<10 {
			t.Errorf("streaming a %d-byte text with line %d edited allocated %d bytes, over 32 KB", s.Len(), line, alloc)
		}
	}
}
