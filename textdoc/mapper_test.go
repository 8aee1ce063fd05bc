package textdoc

import (
	"errors"
	"testing"
)

func TestCharCount(t *testing.T) {
	cases := []struct {
		in                 string
		utf16, utf8, utf32 uint32
	}{
		{"", 0, 0, 0},
		{"abc", 3, 3, 3},
		{"é", 1, 2, 1},
		{"€", 1, 3, 1},
		{"😀", 2, 4, 1},
		{"aé😀b", 5, 8, 4},
		{"a\xffb", 3, 3, 3},       // invalid byte: one U+FFFD
		{"\xe2\x82", 2, 2, 2},     // truncated sequence: one U+FFFD per byte
		{"\xed\xa0\x80", 3, 3, 3}, // encoded surrogate is invalid UTF-8
		{"\t x ", 4, 4, 4},
	}
	for _, c := range cases {
		for enc, want := range map[Encoding]uint32{UTF16: c.utf16, UTF8: c.utf8, UTF32: c.utf32} {
			if got := CharCount(c.in, enc); got != want {
				t.Errorf("CharCount(%q, %v) = %d, want %d", c.in, enc, got, want)
			}
		}
	}
}

func TestByteCol(t *testing.T) {
	// "aé😀b": a at 0, é at 1-2, 😀 at 3-6, b at 7, end 8.
	const s = "aé😀b"
	cases := []struct {
		content string
		enc     Encoding
		char    uint32
		want    int
	}{
		{s, UTF16, 0, 0},
		{s, UTF16, 1, 1},
		{s, UTF16, 2, 3},
		{s, UTF16, 3, 3}, // inside the surrogate pair: rounds down
		{s, UTF16, 4, 7},
		{s, UTF16, 5, 8},
		{s, UTF16, 99, 8}, // past the end: clamps
		{s, UTF16, 1 << 31, 8},
		{s, UTF8, 1, 1},
		{s, UTF8, 2, 1}, // inside é
		{s, UTF8, 3, 3},
		{s, UTF8, 6, 3}, // inside 😀
		{s, UTF8, 7, 7},
		{s, UTF8, 8, 8},
		{s, UTF8, 100, 8},
		{s, UTF32, 2, 3},
		{s, UTF32, 3, 7},
		{s, UTF32, 4, 8},
		{s, UTF32, 9, 8},
		{"a\xff\x80b", UTF16, 2, 2}, // every invalid byte is a unit of its own
		{"a\xff\x80b", UTF16, 3, 3},
		{"a\xff\x80b", UTF8, 2, 2},
		{"a\xff\x80b", UTF8, 3, 3},
		{"\xe2\x82", UTF8, 1, 1},
		{"\xe2\x82", UTF32, 1, 1},
		{"", UTF16, 3, 0},
	}
	for _, c := range cases {
		if got := ByteCol(c.content, c.char, c.enc); got != c.want {
			t.Errorf("ByteCol(%q, %d, %v) = %d, want %d", c.content, c.char, c.enc, got, c.want)
		}
	}
}

func TestLineColAndPos(t *testing.T) {
	// Lines: 0 "aé😀b" CRLF (10 bytes), 1 "xy" CR, 2 "z" LF; LineCount 3.
	s := New("aé😀b\r\nxy\rz\n")
	cases := []struct {
		p         Pos
		enc       Encoding
		line, col int
		back      Pos // Pos(line, col)
	}{
		{Pos{0, 0}, UTF16, 0, 0, Pos{0, 0}},
		{Pos{0, 2}, UTF16, 0, 3, Pos{0, 2}},
		{Pos{0, 3}, UTF16, 0, 3, Pos{0, 2}}, // inside the surrogate pair
		{Pos{0, 4}, UTF16, 0, 7, Pos{0, 4}},
		{Pos{0, 5}, UTF16, 0, 8, Pos{0, 5}},
		{Pos{0, 6}, UTF16, 0, 8, Pos{0, 5}}, // past the content, not into the CRLF
		{Pos{0, 100}, UTF8, 0, 8, Pos{0, 8}},
		{Pos{0, 2}, UTF8, 0, 1, Pos{0, 1}},
		{Pos{0, 3}, UTF32, 0, 7, Pos{0, 3}},
		{Pos{1, 2}, UTF16, 1, 2, Pos{1, 2}},
		{Pos{1, 9}, UTF16, 1, 2, Pos{1, 2}},
		{Pos{2, 1}, UTF16, 2, 1, Pos{2, 1}},
		{Pos{3, 0}, UTF16, 3, 0, Pos{3, 0}}, // end of document
		{Pos{3, 7}, UTF16, 3, 0, Pos{3, 0}},
	}
	for _, c := range cases {
		line, col, err := s.LineCol(c.p, c.enc)
		if err != nil || line != c.line || col != c.col {
			t.Errorf("LineCol(%v, %v) = %d, %d, %v; want %d, %d", c.p, c.enc, line, col, err, c.line, c.col)
			continue
		}
		if got := s.Pos(line, col, c.enc); got != c.back {
			t.Errorf("Pos(%d, %d, %v) = %v, want %v", line, col, c.enc, got, c.back)
		}
	}
	if _, _, err := s.LineCol(Pos{4, 0}, UTF16); !errors.Is(err, ErrBadPosition) {
		t.Errorf("LineCol past the end: err = %v, want ErrBadPosition", err)
	}
	if _, _, err := s.LineCol(Pos{0, 0}, Encoding(7)); err == nil {
		t.Errorf("LineCol with a bad encoding: no error")
	}
	// Pos clamps and rounds.
	for _, c := range []struct {
		line, col int
		want      Pos
	}{
		{0, 5, Pos{0, 2}}, // inside 😀
		{0, 2, Pos{0, 1}}, // inside é
		{0, 100, Pos{0, 5}},
		{0, -4, Pos{0, 0}},
		{-1, 3, Pos{0, 2}},
		{9, 3, Pos{3, 0}},
	} {
		if got := s.Pos(c.line, c.col, UTF16); got != c.want {
			t.Errorf("Pos(%d, %d) = %v, want %v", c.line, c.col, got, c.want)
		}
	}
}

func TestLineColEmptyAndUnterminated(t *testing.T) {
	e := New("")
	if l, c, err := e.LineCol(Pos{0, 5}, UTF16); err != nil || l != 0 || c != 0 {
		t.Errorf("empty: LineCol(0:5) = %d, %d, %v", l, c, err)
	}
	if _, _, err := e.LineCol(Pos{1, 0}, UTF16); !errors.Is(err, ErrBadPosition) {
		t.Errorf("empty: LineCol(1:0) err = %v", err)
	}
	if p := e.Pos(0, 0, UTF16); p != (Pos{}) {
		t.Errorf("empty: Pos = %v", p)
	}
	s := New("ab")
	if l, c, err := s.LineCol(Pos{1, 0}, UTF16); err != nil || l != 1 || c != 0 {
		t.Errorf("unterminated: LineCol(1:0) = %d, %d, %v", l, c, err)
	}
}

func TestOffsetAndPosAt(t *testing.T) {
	s := New("aé😀b\r\nxy\rz\n")
	for _, c := range []struct {
		p    Pos
		want int
	}{
		{Pos{0, 0}, 0}, {Pos{0, 4}, 7}, {Pos{0, 9}, 8}, {Pos{1, 1}, 11}, {Pos{2, 0}, 13}, {Pos{3, 0}, 15},
	} {
		if got, err := s.Offset(c.p, UTF16); err != nil || got != c.want {
			t.Errorf("Offset(%v) = %d, %v; want %d", c.p, got, err, c.want)
		}
	}
	for _, c := range []struct {
		off  int
		want Pos
	}{
		{-3, Pos{0, 0}}, {0, Pos{0, 0}}, {7, Pos{0, 4}}, {5, Pos{0, 2}}, {8, Pos{0, 5}},
		{9, Pos{0, 5}}, // between \r and \n
		{10, Pos{1, 0}}, {12, Pos{1, 2}}, {13, Pos{2, 0}}, {15, Pos{3, 0}}, {99, Pos{3, 0}},
	} {
		if got := s.PosAt(c.off, UTF16); got != c.want {
			t.Errorf("PosAt(%d) = %v, want %v", c.off, got, c.want)
		}
	}
	if got := New("ab").PosAt(2, UTF16); got != (Pos{0, 2}) {
		t.Errorf("PosAt(end) of unterminated doc = %v", got)
	}
	if got := New("").PosAt(0, UTF16); got != (Pos{}) {
		t.Errorf("PosAt(0) of empty doc = %v", got)
	}
}

func TestParseEncoding(t *testing.T) {
	for _, e := range []Encoding{UTF8, UTF16, UTF32} {
		if got, ok := ParseEncoding(e.String()); !ok || got != e {
			t.Errorf("ParseEncoding(%q) = %v, %v", e.String(), got, ok)
		}
	}
	if _, ok := ParseEncoding("utf-7"); ok {
		t.Errorf("ParseEncoding(utf-7) ok")
	}
}

// ParseEncoding maps an LSP PositionEncodingKind to an Encoding.
func ParseEncoding(kind string) (Encoding, bool) {
	switch kind {
	case "utf-16":
		return UTF16, true
	case "utf-8":
		return UTF8, true
	case "utf-32":
		return UTF32, true
	}
	return 0, false
}
