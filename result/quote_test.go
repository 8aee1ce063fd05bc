package result

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// encoded is s as the encoder quotes it with this package's options.
func encoded(t testing.TB, s string) string {
	b, err := json.Marshal(s, options)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkEscaped(t testing.TB, s string) {
	t.Helper()
	want := encoded(t, s)
	if got := `"` + string(appendEscaped(nil, s)) + `"`; got != want {
		t.Fatalf("appendEscaped(%q):\n got %q\nwant %q", s, got, want)
	}
	for _, chunk := range []int{1, 2, 3, 5, 8, 9, 64} {
		var b bytes.Buffer
		if err := writeQuoted(&b, []byte("<"), s, []byte(">"), chunk); err != nil || b.String() != "<"+want+">" {
			t.Fatalf("writeQuoted(%q, chunk %d):\n got %q (%v)\nwant %q", s, chunk, b.String(), err, want)
		}
	}
}

// pieces are what a file can hold that escaping treats apart.
var pieces = []string{
	"a", "Z", " ", "~", "\x7f", "\t", "\n", "\r", "\r\n", `"`, `\`, "/", "\x00", "\x01", "\b", "\f", "\x1b", "\x1f",
	"<", ">", "&", "</script>", "\u2028", "\u2029", "é", "世", "😀", "\ufeff", "\ufffd",
	"\xff", "\xfe", "\x80", "\xbf", "\xc0\x80", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\xe4\xb8", "\xf0\x9f\x98", "\xc3", "12:a3Kf|", "\tx := \"a\\tb\"\n",
}

func TestAppendEscaped(t *testing.T) {
	checkEscaped(t, "")
	for c := range 256 {
		checkEscaped(t, string([]byte{byte(c)}))
		// At every offset of the word, with plain bytes around it.
		for at := range 10 {
			checkEscaped(t, strings.Repeat("x", at)+string([]byte{byte(c)})+strings.Repeat("y", 17-at))
		}
	}
	for _, a := range pieces {
		for _, b := range pieces {
			checkEscaped(t, a+b)
			checkEscaped(t, "1234567"+a+b+"12345678")
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			if r.IntN(3) == 0 {
				b.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				b.WriteString(strings.Repeat("q", r.IntN(12)))
			}
		}
		checkEscaped(t, b.String())
	}
}

// TestWriteQuotedChunks: a cut between chunks never splits a character,
// valid or not, nor shifts how invalid bytes are replaced.
func TestWriteQuotedChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	multi := []string{"é", "世", "😀", "\xff", "\x80\x80\x80\x80\x80", "\xf0\x9f\x98", "\xe4\xb8"}
	for range 300 {
		var b strings.Builder
		for b.Len() < quoteChunk*2+100 {
			b.WriteString(multi[r.IntN(len(multi))])
			b.WriteString(strings.Repeat("a", r.IntN(3)))
		}
		s := b.String()
		want := encoded(t, s)
		var got bytes.Buffer
		if err := writeQuoted(&got, nil, s, nil, quoteChunk); err != nil || got.String() != want {
			t.Fatalf("writeQuoted differs from the encoder (%v)", err)
		}
	}
}

func FuzzAppendEscaped(f *testing.F) {
	for _, p := range pieces {
		f.Add(p + "0123456789")
	}
	f.Fuzz(func(t *testing.T, s string) { checkEscaped(t, s) })
}

// large is a result with a LargeText member, encoded both ways below.
type large struct {
	OK     bool              `json:"ok"`
	Name   string            `json:"name,omitempty"`
	Text   string            `json:"text"`
	Nested map[string]string `json:"nested,omitempty"`
	After  []int             `json:"after"`
}

func (l large) SplitText() (any, string, string) {
	text := l.Text
	l.Text = ""
	return l, "text", text
}

// plainLarge has large's fields but not its SplitText: the encoder's case.
type plainLarge large

// TestWriteLarge: Write of a LargeText is what the encoder writes for the
// whole value (what Marshal, the language server's encoding, gives), compact
// and indented, wherever the member is and whatever else says "text".
func TestWriteLarge(t *testing.T) {
	cases := []large{
		{},
		{OK: true, Text: "a\tb\n\"q\" \\ </script> \xff é\r\n"},
		{Name: `text":"`, Text: "x", Nested: map[string]string{"text": "", `"text"`: `""`}, After: []int{1}},
		{Text: strings.Repeat("12:a3Kf|\tline \"x\"\n", 10000)},
	}
	for _, v := range cases {
		for _, indent := range []bool{false, true} {
			// The encoder's own output: plainLarge is not a LargeText.
			want, err := Marshal(plainLarge(v))
			if indent {
				want, err = marshalIndent(plainLarge(v))
			}
			if fast, err := Marshal(v); err != nil || string(fast) != string(want) && !indent {
				t.Fatalf("Marshal of a LargeText:\n got %.300q\nwant %.300q (%v)", fast, want, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			w := &countWrites{w: &got}
			if err := Write(w, v, indent); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want)+"\n" {
				t.Fatalf("Write(indent %v):\n got %.300q\nwant %.300q", indent, got.String(), want)
			}
			if len(v.Text) < quoteChunk && w.n != 1 {
				t.Fatalf("Write of a small text: %d writes, want 1", w.n)
			}
		}
	}
}

// BenchmarkQuote compares writeQuoted with the encoder on a whole-file read
// of Go source: annotated lines, tabs at their starts.
func BenchmarkQuote(b *testing.B) {
	var src strings.Builder
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for i, line := range strings.SplitAfter(string(text), "\n") {
			fmt.Fprintf(&src, "%d:abcd|%s", i+1, line)
		}
	}
	s := src.String()
	if len(s) == 0 {
		b.Skip("no Go source under GOROOT")
	}
	b.Run("writeQuoted", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			writeQuoted(io.Discard, nil, s, nil, quoteChunk)
		}
	})
	b.Run("encoder", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			enc := jsontext.NewEncoder(io.Discard, options)
			json.MarshalEncode(enc, s, options)
		}
	})
}

type countWrites struct {
	w io.Writer
	n int
}

func (c *countWrites) Write(p []byte) (int, error) {
	c.n++
	return c.w.Write(p)
}

// A server encodes a whole-file read's answer (Marshal of a LargeText) into
// one buffer of about its size: grown by doubling, it allocated twice the
// answer and cleared and copied it on the way, a quarter of a daemon's time
// on a 6 MB read.
func TestMarshalLargeTextAllocatesItsSize(t *testing.T) {
	v := large{OK: true, Text: strings.Repeat("12:a3Kf|\tline \"x\" of a source file\n", 8<<20/36)}
	var out []byte
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	out, err := Marshal(v)
	runtime.ReadMemStats(&b)
	if err != nil {
		t.Fatal(err)
	}
	if per := float64(b.TotalAlloc-a.TotalAlloc) / float64(len(out)); per > 1.3 {
		t.Fatalf("Marshal allocated %.2f bytes per byte of a %d-byte answer, want at most 1.3", per, len(out))
	}
	want, _ := Marshal(plainLarge(v))
	if string(out) != string(want) {
		t.Fatal("Marshal of a LargeText differs from the encoder's")
	}
}
