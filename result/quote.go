package result

import (
	"encoding/binary"
	"io"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// appendEscaped appends s as the inside of a JSON string, byte for byte as
// the encoder writes it with the options of this package (the fuzz test
// holds the two together): '"' and '\\' get a backslash; \b \f \n \r \t
// their short escapes; other bytes below 0x20 \u00XX; each byte of invalid
// UTF-8 becomes U+FFFD (AllowInvalidUTF8); everything else, '<', '>', '&',
// U+2028 and U+2029 included, is copied as is (no HTML or JavaScript
// escaping).
//
// It exists for the text of a whole-file read, megabytes of source in which
// most bytes need nothing but a tab or a newline comes every few dozen: it
// moves eight bytes at a time, storing each word whole and keeping the part
// before its first byte that needs escaping, so a short run costs no call.
func appendEscaped(dst []byte, s string) []byte {
	n := len(dst)
	i := 0
	for i+8 <= len(s) {
		// Room for a word and the longest escape, past what is kept.
		if cap(dst)-n < 16 {
			dst = slices.Grow(dst[:n], 16+len(s)-i)
		}
		dst = dst[:cap(dst)]
		w := s[i : i+8] // one bounds check for the eight loads, merged into one
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		binary.LittleEndian.PutUint64(dst[n:], x)
		m := special8(x)
		if m == 0 {
			i, n = i+8, n+8
			continue
		}
		// The lowest flagged byte is exact (see special8).
		k := bits.TrailingZeros64(m) / 8
		i, n = i+k, n+k
		// A tab or a newline, in source: escaped here, without a call.
		if c := s[i]; c < utf8.RuneSelf && shortEscape[c] != 0 {
			dst[n], dst[n+1] = '\\', shortEscape[c]
			i, n = i+1, n+2
			continue
		}
		i, n = escapeAt(dst, n, s, i)
	}
	for i < len(s) {
		if cap(dst)-n < 6 {
			dst = slices.Grow(dst[:n], 6+len(s)-i)
		}
		dst = dst[:cap(dst)]
		if c := s[i]; c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			dst[n] = c
			i, n = i+1, n+1
			continue
		}
		i, n = escapeAt(dst, n, s, i)
	}
	return dst[:n]
}

// shortEscape is the letter after the backslash of the escapes that have
// one; 0 for the rest.
var shortEscape = [0x80]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// escapeAt writes at dst[n:] what s[i], a byte that is not plain ASCII,
// becomes, and returns where reading and writing go on. dst has room for 6
// bytes at n.
func escapeAt(dst []byte, n int, s string, i int) (int, int) {
	c := s[i]
	if c >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i + 1, n + copy(dst[n:], "\uFFFD")
		}
		// Valid, U+FFFD itself included: as is.
		return i + size, n + copy(dst[n:], s[i:i+size])
	}
	if e := shortEscape[c]; e != 0 {
		dst[n], dst[n+1] = '\\', e
		return i + 1, n + 2
	}
	const hex = "0123456789abcdef"
	dst[n], dst[n+1], dst[n+2], dst[n+3], dst[n+4], dst[n+5] = '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf]
	return i + 1, n + 6
}

// special8 flags (bit 7 of each byte) the bytes of the word x (eight bytes,
// little-endian) that are not plain ASCII to copy: below 0x20, '"', '\\',
// or 0x80 and up. These are the classic word-at-a-time tests (a byte below
// n: its subtraction borrows; equal to c: zero after xor); a borrow can flag
// a byte above a flagged one, never below, so the lowest flag is exact.
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	// A byte of x from 0x80 is flagged by x itself; below, x-0x20 sets its
	// high bit exactly when it is below 0x20.
	return (x | (x - ones*0x20) | (q-ones)&^q | (b-ones)&^b) & highs
}

// quoteChunk is how much of a large string is escaped at a time before it
// is written: large enough that writes are few, small enough to stay in
// cache.
const quoteChunk = 64 << 10

// writeQuoted writes before, s as a JSON string (quotes included, escaped
// as appendEscaped does) and after to w, escaping chunk bytes of s at a
// time: the text is never copied whole, and a small one takes one write. A
// chunk is at least 4 bytes, for runeCut to find a cut in it.
func writeQuoted(w io.Writer, before []byte, s string, after []byte, chunk int) error {
	chunk = max(chunk, utf8.UTFMax)
	buf := make([]byte, 0, len(before)+min(len(s), chunk)+chunk/4+len(after)+2)
	buf = append(append(buf, before...), '"')
	for {
		n := len(s)
		if n > chunk {
			n = runeCut(s, chunk)
		}
		buf = appendEscaped(buf, s[:n])
		s = s[n:]
		if s == "" {
			break
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	buf = append(append(buf, '"'), after...)
	_, err := w.Write(buf)
	return err
}

// runeCut moves a cut of s at n back to where escaping s[:n] and s[n:]
// apart gives what escaping s whole gives: before a byte that is not a
// UTF-8 continuation byte, at most 3 back. If s[n-3:n+1] are all
// continuation bytes, no valid sequence can span n (it would be over 4
// bytes long), so n itself is such a cut. n is at least 4.
func runeCut(s string, n int) int {
	for k := 0; k <= 3; k++ {
		if utf8.RuneStart(s[n-k]) {
			return n - k
		}
	}
	return n
}
