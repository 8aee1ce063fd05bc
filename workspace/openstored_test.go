package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/charset"
)

// A buffer the editor opens before sightline read its file is in the
// encoding the file's bytes show, as a load would read them: a UTF-16
// byte-order mark, or (for bytes that are not UTF-8) the encodings
// setting. Taken as UTF-8, a write under it would be refused as a change
// of the file, or worse, written in another encoding.
func TestOpenedBufferKeepsTheFilesEncoding(t *testing.T) {
	root := t.TempDir()
	utf16 := filepath.Join(root, "wide.txt")
	// "hé\n" in UTF-16 LE with its mark.
	if err := os.WriteFile(utf16, []byte{0xFF, 0xFE, 'h', 0, 0xE9, 0, '\n', 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	latin1 := filepath.Join(root, "old.txt")
	if err := os.WriteFile(latin1, []byte("caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWS(t, []string{root}, Options{})
	d, err := w.Open(FromPath(utf16).String(), "plaintext", 1, "hé\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Charset.Name(); got != "UTF-16LE" {
		t.Fatalf("a buffer of a UTF-16 file is in %q", got)
	}
	cs, err := charset.Lookup("latin1")
	if err != nil {
		t.Fatal(err)
	}
	w.SetEncodings([]charset.Charset{cs})
	d, err = w.Open(FromPath(latin1).String(), "plaintext", 1, "café\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Charset.Name(); got != cs.Name() {
		t.Fatalf("a buffer of a Latin-1 file (the encodings setting lists it) is in %q", got)
	}
}
