package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchLoad measures a cold load (read, detect, decode) of one file.
func benchLoad(b *testing.B, data []byte, editorconfig string) {
	root := b.TempDir()
	p := filepath.Join(root, "big.txt")
	os.WriteFile(p, data, 0o644)
	if editorconfig != "" {
		os.WriteFile(filepath.Join(root, ".editorconfig"), []byte(editorconfig), 0o644)
	}
	w := newWS(b, []string{root}, Options{})
	k := FromPath(p)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w.Forget(k)
		if _, err := w.Get(k); err != nil {
			b.Fatal(err)
		}
	}
}

// A 20 MB file in UTF-8 and the same text in Latin-1: what decoding (and
// the check that it encodes back to the same bytes) costs.
func BenchmarkLoadUTF8(b *testing.B) {
	benchLoad(b, []byte(strings.Repeat("caf\xc3\xa9 au lait, une ligne de texte\n", 20<<20/36)), "")
}

func BenchmarkLoadLatin1(b *testing.B) {
	benchLoad(b, []byte(strings.Repeat("caf\xe9 au lait, une ligne de texte  \n", 20<<20/36)), "[*]\ncharset = latin1\n")
}

// BenchmarkDeclared: looking for .editorconfig files for a file three
// folders deep where there are none (every cold load of a file pays it).
func BenchmarkDeclared(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, "a", "b", "c", "f.go")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("package f\n"), 0o644)
	r, rel, err := newWS(b, []string{root}, Options{}).Locate(FromPath(p))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Declared(r, filepath.ToSlash(rel))
	}
}
