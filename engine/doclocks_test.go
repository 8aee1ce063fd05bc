package engine

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sightline-lsp/sightline/workspace"
)

// The per-document write locks exclude each other per document, and the
// map keeps only the documents being written: a long session that writes
// many files does not keep a lock for each of them.
func TestDocLocksExcludeAndShrink(t *testing.T) {
	var l docLocks
	var wg sync.WaitGroup
	inside := make([]int, 20)
	var mu sync.Mutex
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				d := (g + i) % len(inside)
				unlock := l.lock(workspace.Key(fmt.Sprintf("file:///w/%d.go", d)))
				mu.Lock()
				inside[d]++
				if inside[d] != 1 {
					mu.Unlock()
					t.Errorf("document %d written by %d at once", d, inside[d])
					unlock()
					return
				}
				mu.Unlock()
				mu.Lock()
				inside[d]--
				mu.Unlock()
				unlock()
			}
		}()
	}
	wg.Wait()
	l.mu.Lock()
	n := len(l.locks)
	l.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d document locks kept after every write ended", n)
	}
}
