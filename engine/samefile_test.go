package engine

import (
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sightline-lsp/sightline/textdoc"
)

// TestSameReader: the streamed comparison of a file with a snapshot tells
// equal, shorter, longer and different apart, wherever the difference
// falls against its chunks.
func TestSameReader(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString(strings.Repeat("x", i%97))
		b.WriteString("\r\n")
	}
	text := b.String() // about 250 KB: several chunks
	s := textdoc.New(text)
	flip := func(i int) string { return text[:i] + "#" + text[i+1:] }
	for _, c := range []struct {
		name, file string
		want       bool
	}{
		{"equal", text, true},
		{"shorter", text[:len(text)-1], false},
		{"longer", text + "x", false},
		{"first byte", flip(0), false},
		{"at a chunk edge", flip(64 << 10), false},
		{"last byte", flip(len(text) - 1), false},
		{"empty", "", false},
	} {
		got, err := sameReader(strings.NewReader(c.file), s)
		if err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
		// Short reads change nothing.
		got, err = sameReader(iotest.HalfReader(strings.NewReader(c.file)), s)
		if err != nil || got != c.want {
			t.Errorf("%s (short reads): %v %v, want %v", c.name, got, err, c.want)
		}
	}
	if got, err := sameReader(strings.NewReader(""), textdoc.New("")); !got || err != nil {
		t.Errorf("empty vs empty: %v %v", got, err)
	}
	if _, err := sameReader(iotest.ErrReader(iotest.ErrTimeout), s); err == nil {
		t.Error("a read error is not reported")
	}
}
