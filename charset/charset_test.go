package charset

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func lookup(t *testing.T, name string) Charset {
	t.Helper()
	c, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFixturesRoundTrip: each fixture (made with iconv) is detected from
// its declaration or byte-order mark, decodes to the expected text, and
// that text encodes back to the file's exact bytes.
func TestFixturesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file, declared, want, first string
	}{
		{"latin1.txt", "latin1", "ISO-8859-1", "café crème"},
		{"cp1252.txt", "windows-1252", "windows-1252", "“quoted” €5"},
		{"sjis.txt", "shift_jis", "Shift_JIS", "日本語"},
		{"gbk.txt", "gbk", "GBK", "中文"},
		{"utf16le.txt", "", "UTF-16LE", "\ufeffhéllo"},
		{"utf16be.txt", "", "UTF-16BE", "\ufeffhéllo"},
	} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "encodings", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var decl Charset
		if tc.declared != "" {
			decl = lookup(t, tc.declared)
		}
		c, text, ok := Detect(data, decl, nil)
		if !ok || c.Name() != tc.want {
			t.Fatalf("%s: detected %q ok=%v, want %s", tc.file, c.Name(), ok, tc.want)
		}
		if first, _, _ := strings.Cut(text, "\n"); strings.TrimSuffix(first, "\r") != tc.first {
			t.Fatalf("%s: line 1 %q, want %q", tc.file, first, tc.first)
		}
		var out bytes.Buffer
		if _, err := c.Bytes(strings.NewReader(text)).WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("%s: encoded back % x, want % x", tc.file, out.Bytes(), data)
		}
		// Undeclared, a legacy single- or multi-byte file is not guessed.
		if tc.declared != "" {
			if _, _, ok := Detect(data, UTF8, nil); ok {
				t.Fatalf("%s: detected without a declaration", tc.file)
			}
			// The settings' fallback order finds it.
			if c, _, ok := Detect(data, UTF8, []Charset{decl}); !ok || c.Name() != tc.want {
				t.Fatalf("%s: fallback gave %q %v", tc.file, c.Name(), ok)
			}
		}
	}
}

// TestStrict: bytes an encoding does not define, or defines twice, are not
// that encoding; NUL bytes are binary in every encoding.
func TestStrict(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"windows-1252", []byte("a\x81b")},              // undefined in cp1252
		{"shift_jis", []byte("\x82")},                   // a cut character
		{"shift_jis", []byte{0xFA, 0x5C}},               // IBM extension: encodes back as its NEC-selected twin ED 40
		{"latin1", []byte("a\x00b")},                    // NUL
		{"utf-16le", []byte{0xFF, 0xFE, 0x00, 0xD8}},    // a lone surrogate
		{"utf-16le", []byte{0xFF, 0xFE, 0x61, 0x00, 1}}, // an odd length
	} {
		if text, ok := lookup(t, tc.name).Decode(tc.data); ok {
			t.Errorf("%s % x: decoded as %q", tc.name, tc.data, text)
		}
	}
}

func TestUnrepresentable(t *testing.T) {
	r, at, ok := lookup(t, "latin1").Unrepresentable("café → 日")
	if !ok || r != '→' || at != 6 {
		t.Fatalf("got %q at %d (%v)", r, at, ok)
	}
	if _, _, ok := lookup(t, "shift_jis").Unrepresentable("日本語テスト"); ok {
		t.Fatal("Shift_JIS refused Japanese")
	}
	if _, _, ok := lookup(t, "utf-16le").Unrepresentable("😀"); ok {
		t.Fatal("UTF-16 refused an astral character")
	}
	if _, _, ok := UTF8.Unrepresentable("anything"); ok {
		t.Fatal("UTF-8 refused")
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"latin1": "ISO-8859-1", "ISO-8859-1": "ISO-8859-1", "cp1252": "windows-1252",
		"Shift_JIS": "Shift_JIS", "sjis": "Shift_JIS", "GBK": "GBK", "utf-8-bom": "utf-8",
		"UTF-16LE": "UTF-16LE", "euc-kr": "EUC-KR",
	} {
		if got := lookup(t, name).Name(); got != want {
			t.Errorf("Lookup(%q) = %q, want %q", name, got, want)
		}
	}
	for _, bad := range []string{"utf-16", "klingon", ""} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) accepted", bad)
		}
	}
}

// TestBOMWinsOverDeclaration: a byte-order mark says what the file is,
// whatever .editorconfig declares.
func TestBOMWinsOverDeclaration(t *testing.T) {
	latin1 := lookup(t, "latin1")
	if c, text, ok := Detect([]byte("\xef\xbb\xbfcaf\xc3\xa9\n"), latin1, nil); !ok || !c.IsUTF8() || text != "\ufeffcafé\n" {
		t.Fatalf("UTF-8 mark: %s %q %v", c.Name(), text, ok)
	}
	if c, text, ok := Detect([]byte("\xff\xfeh\x00\n\x00"), latin1, nil); !ok || c.Name() != "UTF-16LE" || text != "\ufeffh\n" {
		t.Fatalf("UTF-16 mark: %s %q %v", c.Name(), text, ok)
	}
}

// TestUnrepresentableReadsBack: a character an encoder accepts but that
// reads back as another (GB18030's private-use area) is refused: the next
// read would show the agent something else than it wrote.
func TestUnrepresentableReadsBack(t *testing.T) {
	if r, _, ok := lookup(t, "gb18030").Unrepresentable("a\ue000b"); !ok || r != '\ue000' {
		t.Fatalf("got %q %v", r, ok)
	}
	if _, _, ok := lookup(t, "gb18030").Unrepresentable("中文😀"); ok {
		t.Fatal("GB18030 refused what it has")
	}
}

// TestStatefulRefused: in a stateful encoding (ISO-2022-JP, HZ) a line's
// bytes depend on the lines before it, so an edit could not keep the other
// lines' bytes: such encodings are not accepted.
func TestStatefulRefused(t *testing.T) {
	for _, name := range []string{"iso-2022-jp", "ISO-2022-JP", "hz-gb-2312", "utf-7"} {
		if c, err := Lookup(name); err == nil {
			t.Errorf("Lookup(%q) = %s", name, c.Name())
		}
	}
}

// FuzzDecode: whatever the bytes, a file read in an encoding is written back
// as exactly those bytes, and its text holds no character the encoding
// would refuse.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"latin1.txt", "cp1252.txt", "sjis.txt", "gbk.txt", "utf16le.txt", "utf16be.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "encodings", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	var all []Charset
	for _, n := range []string{"latin1", "windows-1252", "shift_jis", "gbk", "gb18030", "euc-jp", "euc-kr", "big5", "koi8-r", "utf-16le", "utf-16be"} {
		c, err := Lookup(n)
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, c)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range all {
			text, ok := c.Decode(data)
			if !ok {
				continue
			}
			var out bytes.Buffer
			if _, err := c.Bytes(strings.NewReader(text)).WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("%s: % x decoded as %q, written back as % x (%v)", c.Name(), data, text, out.Bytes(), err)
			}
			if r, _, bad := c.Unrepresentable(text); bad {
				t.Fatalf("%s: % x decoded as %q, which holds %q it refuses", c.Name(), data, text, r)
			}
		}
	})
}
