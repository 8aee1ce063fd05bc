package workspace

import (
	"math/rand/v2"
	"testing"
)

// textCheck, fed a text in parts cut anywhere (inside a character too),
// says what IsBinary says of the whole.
func TestTextCheckInParts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "\n", "é", "€", "𝄞", "\t", "\xff", "\x00", "\xe2\x82", "\x80", "\xf0\x9d"}
	for i := range 20000 {
		var b []byte
		for range r.IntN(12) {
			p := pieces[r.IntN(len(pieces))]
			if i%3 != 0 && (p == "\xff" || p == "\x00" || p == "\xe2\x82" || p == "\x80" || p == "\xf0\x9d") {
				continue // two in three texts valid
			}
			b = append(b, p...)
		}
		var c textCheck
		rest := b
		for len(rest) > 0 {
			n := 1 + r.IntN(len(rest))
			c.write(rest[:n])
			rest = rest[n:]
		}
		if c.text() == IsBinary(b) {
			t.Fatalf("%q: textCheck says text %v, IsBinary %v", b, c.text(), IsBinary(b))
		}
	}
}

func FuzzTextCheck(f *testing.F) {
	f.Add([]byte("héllo\n€"), uint8(3))
	f.Add([]byte("\xe2\x82\xac"), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		var c textCheck
		n := int(cut) % (len(b) + 1)
		c.write(b[:n])
		c.write(b[n:])
		if c.text() == IsBinary(b) {
			t.Fatalf("%q cut at %d: textCheck text %v, IsBinary %v", b, n, c.text(), IsBinary(b))
		}
	})
}
