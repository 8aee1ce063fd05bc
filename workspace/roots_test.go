package workspace

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestSetRootsConcurrent: workspace folders change (SetRoots) while requests
// resolve paths; under -race this must be clean, and every call must see one
// whole set of roots, never a half-written one.
func TestSetRootsConcurrent(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	w := newWS(t, []string{a}, Options{})
	sets := [][]string{{a}, {b, a}, {a, b}}
	n := 2000
	if testing.Short() {
		n = 300
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			w.SetRoots(sets[i%len(sets)])
		}
	}()
	inA := filepath.Join(a, "x.go")
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				// a is a root in every set, so a path under it always resolves.
				if !w.Inside(inA) {
					t.Error("a path under a root that never left is outside")
					return
				}
				if _, err := w.Resolve(inA); err != nil {
					t.Errorf("Resolve: %v", err)
					return
				}
				if got := w.Rel(FromPath(inA)); got != "x.go" {
					t.Errorf("Rel = %q, want x.go", got)
					return
				}
				if rs := w.Roots(); len(rs) == 0 {
					t.Error("no roots")
					return
				}
				if r := w.Root(); r != a && r != b {
					t.Errorf("Root = %q", r)
					return
				}
			}
		}()
	}
	wg.Wait()
}
