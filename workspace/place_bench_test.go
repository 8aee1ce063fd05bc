package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkPlace: placing a document, as the admission step of every call
// does (with the look at links leading out).
func BenchmarkPlace(b *testing.B) {
	w, k := benchDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		if pl := w.Place(k); pl.Err != nil || pl.Escapes {
			b.Fatal(pl.Err)
		}
	}
}

// BenchmarkGetBuffer: an open buffer's text, as a call's admission step gets
// it (with the link count of the file under its name).
func BenchmarkGetBuffer(b *testing.B) {
	w, k := benchDoc(b)
	w.Open(string(k), "go", 1, "x\n")
	pl := w.Place(k)
	b.ReportAllocs()
	for b.Loop() {
		if d, err := w.GetAt(pl); err != nil || !d.Open || d.Links != 1 {
			b.Fatal(d.Links, err)
		}
	}
}

// benchDoc is a workspace a few folders deep with one small file in it.
func benchDoc(b *testing.B) (*Workspace, Key) {
	root := filepath.Join(b.TempDir(), "a", "b", "c", "ws")
	p := filepath.Join(root, "src", "pkg", "f.go")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return newWS(b, []string{root}, Options{}), FromPath(p)
}
