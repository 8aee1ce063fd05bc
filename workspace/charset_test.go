package workspace

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/charset"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEncodingFromEditorconfig: the nearest .editorconfig section that
// names a charset for the file decides, a root = true file ends the
// search, and the file hash is of the bytes on disk.
func TestEncodingFromEditorconfig(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".editorconfig":         "[*]\ncharset = latin1\n",
		"a.txt":                 "caf\xe9\n",
		"sub/.editorconfig":     "[*.txt]\ncharset = windows-1252\n",
		"sub/b.txt":             "\x80 5\n",
		"sub/c.md":              "caf\xe9\n",
		"iso/.editorconfig":     "root = true\n[*.md]\nindent_style = tab\n",
		"iso/d.txt":             "caf\xe9\n",
		"bom/.editorconfig":     "[*]\ncharset = latin1\n",
		"bom/e.txt":             "\xff\xfeh\x00i\x00\n\x00",
		"unknown/.editorconfig": "[*]\ncharset = klingon\n",
		"unknown/f.txt":         "caf\xe9\n",
	})
	w := newWS(t, []string{root}, Options{})
	for name, want := range map[string]string{"a.txt": "café\n", "sub/b.txt": "€ 5\n", "sub/c.md": "café\n", "bom/e.txt": "\ufeffhi\n"} {
		d, err := w.Get(FromPath(filepath.Join(root, name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Snap.Text() != want {
			t.Fatalf("%s: %q", name, d.Snap.Text())
		}
		data, _ := os.ReadFile(filepath.Join(root, name))
		if got := d.FileHash(); got != fmt.Sprintf("sha256:%x", sha256.Sum256(data)) {
			t.Fatalf("%s: file hash %s is not of the file's bytes", name, got)
		}
	}
	for name, says := range map[string]string{"iso/d.txt": "charset = latin1", "unknown/f.txt": `"klingon"`} {
		_, err := w.Get(FromPath(filepath.Join(root, name)))
		if result.KindOf(err) != result.Binary || !strings.Contains(err.Error(), says) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestEncodingsSetting: a file that is not UTF-8 and declares nothing is
// binary until the encodings setting lists its encoding; the first that
// fits wins.
func TestEncodingsSetting(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.txt": "\x93quoted\x94\n"})
	w := newWS(t, []string{root}, Options{})
	k := FromPath(filepath.Join(root, "a.txt"))
	if _, err := w.Get(k); result.KindOf(err) != result.Binary || !strings.Contains(err.Error(), ".editorconfig") {
		t.Fatalf("undeclared: %v", err)
	}
	sjis, _ := charset.Lookup("shift_jis")
	cp, _ := charset.Lookup("windows-1252")
	w.SetEncodings([]charset.Charset{sjis, cp})
	w.Forget(k)
	d, err := w.Get(k)
	if err != nil || d.Snap.Text() != "“quoted”\n" || d.Charset.Name() != "windows-1252" {
		t.Fatalf("with the setting: %q %s %v", d.Snap.Text(), d.Charset.Name(), err)
	}
	// An editor opening the file keeps its encoding: LSP reports none.
	o, err := w.Open(string(k), "plaintext", 1, "“quoted”\n")
	if err != nil || o.Charset.Name() != "windows-1252" || o.Rev != d.Rev {
		t.Fatalf("open: %s rev %d/%d %v", o.Charset.Name(), o.Rev, d.Rev, err)
	}
}

// TestHashOfUnencodableBuffer: an editor buffer of a Latin-1 file can hold
// a character Latin-1 lacks (the user typed it); its hash is of its UTF-8
// text, not of the part before that character, so two such buffers that
// differ after it do not share a hash.
func TestHashOfUnencodableBuffer(t *testing.T) {
	latin1, _ := charset.Lookup("latin1")
	a := Doc{Snap: textdoc.New("caf\u00e9 \u2192 a\n"), Charset: latin1}
	b := Doc{Snap: textdoc.New("caf\u00e9 \u2192 b\n"), Charset: latin1}
	if a.FileHash() == b.FileHash() || a.FileHash() != fmt.Sprintf("sha256:%x", sha256.Sum256([]byte("caf\u00e9 \u2192 a\n"))) {
		t.Fatalf("hashes %s %s", a.FileHash(), b.FileHash())
	}
	if c := (Doc{Snap: textdoc.New("caf\u00e9\n"), Charset: latin1}); c.FileHash() != fmt.Sprintf("sha256:%x", sha256.Sum256([]byte("caf\xe9\n"))) {
		t.Fatalf("Latin-1 text hashed as %s", c.FileHash())
	}
}

// TestOpenTakesDeclaredEncoding: a buffer opened before its file was read
// takes the encoding its .editorconfig declares.
func TestOpenTakesDeclaredEncoding(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".editorconfig": "[*.txt]\ncharset = latin1\n", "a.txt": "plain\n"})
	w := newWS(t, []string{root}, Options{})
	d, err := w.Open(string(FromPath(filepath.Join(root, "a.txt"))), "plaintext", 1, "plain\n")
	if err != nil || d.Charset.Name() != "ISO-8859-1" {
		t.Fatalf("open: %s %v", d.Charset.Name(), err)
	}
}

// TestUTF8MarkWinsOverDeclaration: a file with a UTF-8 byte-order mark is
// UTF-8 even where .editorconfig declares Latin-1.
func TestUTF8MarkWinsOverDeclaration(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".editorconfig": "[*]\ncharset = latin1\n", "a.txt": "\xef\xbb\xbfcaf\xc3\xa9\n"})
	d, err := newWS(t, []string{root}, Options{}).Get(FromPath(filepath.Join(root, "a.txt")))
	if err != nil || !d.Charset.IsUTF8() || d.Snap.Text() != "\ufeffcafé\n" {
		t.Fatalf("%v %s", err, d.Charset.Name())
	}
}
