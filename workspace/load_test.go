package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentGetsReadOnce: a storm of requests for a large closed file
// that is not loaded yet reads it once, not once per request (2,000
// cancelled reads of a 50 MB file once held 13 GB).
func TestConcurrentGetsReadOnce(t *testing.T) {
	root := t.TempDir()
	text := strings.Repeat(strings.Repeat("y", 63)+"\n", 8<<20/64) // 8 MB
	p := filepath.Join(root, "big.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	w := New([]string{root}, Options{})
	k := FromPath(p)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, err := w.Get(k); err != nil || d.Snap.Len() != len(text) {
				t.Errorf("get: %v", err)
			}
		}()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 6*uint64(len(text)) {
		t.Fatalf("32 concurrent loads allocated %d MB for an %d MB file", got>>20, len(text)>>20)
	}
}
