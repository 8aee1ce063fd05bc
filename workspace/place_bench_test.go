package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPlace: placing a document, as the admission step of every call
// does (with the look at links leading out).
func BenchmarkPlace(b *testing.B) {
	root := filepath.Join(b.TempDir(), "a", "b", "c", "ws")
	p := filepath.Join(root, "src", "pkg", "f.go")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	w := newWS(b, []string{root}, Options{})
	k := FromPath(p)
	b.ReportAllocs()
	for b.Loop() {
		if pl := w.Place(k); pl.Err != nil || pl.Escapes {
			b.Fatal(pl.Err)
		}
	}
}
