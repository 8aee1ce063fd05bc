package textdoc

import (
	"fmt"
	"unicode/utf8"
)

// Encoding is an LSP position encoding: the unit that Pos.Char counts in.
type Encoding uint8

const (
	UTF16 Encoding = iota // UTF-16 code units, the LSP default
	UTF8                  // bytes
	UTF32                 // Unicode code points
)

// Valid reports whether e is one of the three LSP encodings.
func (e Encoding) Valid() bool { return e <= UTF32 }

// String returns the LSP PositionEncodingKind name ("utf-16", "utf-8", "utf-32").
func (e Encoding) String() string {
	switch e {
	case UTF16:
		return "utf-16"
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	}
	return fmt.Sprintf("Encoding(%d)", uint8(e))
}

// CharCount returns the length of a line's content in enc units. Each byte of
// an invalid UTF-8 sequence counts as one U+FFFD, i.e. one unit in UTF-16 and
// UTF-32, because that is what a client that decoded the bytes would see.
// It panics on an invalid Encoding (a programming error).
func CharCount(content string, enc Encoding) uint32 {
	switch enc {
	case UTF8:
		return uint32(len(content))
	case UTF32:
		return uint32(utf8.RuneCountInString(content))
	case UTF16:
		n := 0
		for _, r := range content { // invalid bytes decode as U+FFFD, width 1
			n++
			if r >= 0x10000 {
				n++ // surrogate pair
			}
		}
		return uint32(n)
	}
	panic("textdoc: invalid " + enc.String())
}

// ByteCol returns the byte offset in content of the position char (in enc
// units). A char past the end clamps to len(content), as LSP asks; a char that
// falls inside a character (the second half of a UTF-16 surrogate pair, the
// middle of a UTF-8 sequence) rounds down to that character's start.
// It panics on an invalid Encoding.
func ByteCol(content string, char uint32, enc Encoding) int {
	switch enc {
	case UTF8:
		if uint64(char) >= uint64(len(content)) {
			return len(content)
		}
		return runeStart(content, int(char))
	case UTF16, UTF32:
		want := uint64(char)
		var units uint64
		for i, r := range content {
			u := uint64(1)
			if enc == UTF16 && r >= 0x10000 {
				u = 2
			}
			if units+u > want {
				return i
			}
			units += u
		}
		return len(content)
	}
	panic("textdoc: invalid " + enc.String())
}

// runeStart rounds the byte offset c (0 <= c <= len(s)) down to the start of
// the character that contains it, with characters as a forward decode of s
// sees them (each byte of an invalid sequence is a character of its own).
// A valid multi-byte sequence never contains a byte for which utf8.RuneStart
// is true after its first, so looking back at most UTFMax-1 bytes suffices.
func runeStart(s string, c int) int {
	if c >= len(s) {
		return len(s)
	}
	for j := c; j >= 0 && j > c-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			if _, size := utf8.DecodeRuneInString(s[j:]); j+size > c {
				return j
			}
			return c
		}
	}
	return c
}
