package textdoc

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

var goTemplates = []string{
	"func (s *%s) %s(ctx context.Context) error {",
	"if err != nil {",
	"return nil, fmt.Errorf(\"%s: %w\", err)",
	"}",
	"",
	"%s := make([]byte, 0, len(%s))",
	"// %s reports whether the %s is set.",
	"for i, v := range %s {",
	"%s = append(%s, v)",
	"case %s:",
	"%s.%s = %s",
	"defer %s.Close()",
	"var %s sync.Mutex",
	"return %s",
	"x := \"é😀\" // non-ASCII",
	"%s, err := %s.ReadFile(ctx, %s.Path)",
	"log.Printf(\"%s: changed %%d lines\", %s)",
	"// %s keeps the %s of the document in sync.",
}

var goIdents = []string{"buf", "s", "doc", "reader", "n", "line", "Server", "handleChange", "offset", "cfg", "result", "documentStore", "encoding", "lineIndex", "snapshot", "documentVersion"}

// goSource returns n lines of Go-looking text, about 32 bytes a line on
// average, deterministic for a seed.
func goSource(n int, seed uint64) string {
	r := newRand(seed)
	var b strings.Builder
	b.Grow(n * 34)
	depth := 0
	for range n {
		tpl := goTemplates[r.IntN(len(goTemplates))]
		if tpl == "}" && depth > 0 {
			depth--
		}
		b.WriteString(strings.Repeat("\t", depth))
		for {
			i := strings.Index(tpl, "%")
			if i < 0 {
				break
			}
			b.WriteString(tpl[:i])
			if tpl[i+1] == 'w' || tpl[i+1] == '%' {
				b.WriteString(tpl[i : i+2])
			} else {
				b.WriteString(goIdents[r.IntN(len(goIdents))])
			}
			tpl = tpl[i+2:]
		}
		b.WriteString(tpl)
		b.WriteByte('\n')
		if strings.HasSuffix(tpl, "{") && depth < 3 {
			depth++
		}
	}
	return b.String()
}

func TestGoSourceSize(t *testing.T) {
	s := goSource(200000, 1)
	t.Logf("average line %.1f bytes", float64(len(s))/200000)
	if avg := len(s) / 200000; avg < 28 || avg > 36 {
		t.Errorf("average line %d bytes, want ~32", avg)
	}
}

func BenchmarkNew200k(b *testing.B) {
	text := goSource(200000, 1)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		New(text)
	}
}

// BenchmarkTypeChar100k types one character per op at spread-out lines of a
// 100,000-line document, each op on the snapshot the previous one made.
func BenchmarkTypeChar100k(b *testing.B) {
	benchTyping(b, 100000, UTF16)
}

func BenchmarkTypeChar100kUTF8(b *testing.B) {
	benchTyping(b, 100000, UTF8)
}

func BenchmarkTypeChar1M(b *testing.B) {
	benchTyping(b, 1000000, UTF16)
}

func benchTyping(b *testing.B, n int, enc Encoding) {
	s := New(goSource(n, 2))
	r := newRand(3)
	ch := []Change{{Range: &Range{}, Text: "x"}}
	b.ReportAllocs()
	for b.Loop() {
		l := uint32(r.IntN(n))
		*ch[0].Range = Range{Start: Pos{l, 1}, End: Pos{l, 1}}
		ns, _, err := s.Apply(ch, enc)
		if err != nil {
			b.Fatal(err)
		}
		s = ns
	}
}

// BenchmarkPaste100Lines100k inserts a 100-line block into a 100,000-line
// document (takes the split/concat path).
func BenchmarkPaste100Lines100k(b *testing.B) {
	s := New(goSource(100000, 2))
	block := goSource(100, 4)
	r := newRand(5)
	b.ReportAllocs()
	for b.Loop() {
		l := uint32(r.IntN(s.LineCount()))
		ns, _, err := s.Apply([]Change{{rng(l, 0, l, 0), block}}, UTF16)
		if err != nil {
			b.Fatal(err)
		}
		if ns.LineCount() > 200000 {
			ns = New(goSource(100000, 2))
		}
		s = ns
	}
}

// BenchmarkDeleteLines100k deletes 100 lines and pastes them back elsewhere,
// so the document keeps its size.
func BenchmarkDeleteLines100k(b *testing.B) {
	s := New(goSource(100000, 2))
	r := newRand(6)
	b.ReportAllocs()
	for b.Loop() {
		l := uint32(r.IntN(s.LineCount() - 100))
		del := string(s.AppendText(nil, int(l), int(l)+100))
		ns, _, err := s.Apply([]Change{{rng(l, 0, l+100, 0), ""}, {rng(l/2, 0, l/2, 0), del}}, UTF16)
		if err != nil {
			b.Fatal(err)
		}
		s = ns
	}
}

func BenchmarkLine100k(b *testing.B) {
	s := New(goSource(100000, 2))
	r := newRand(7)
	for b.Loop() {
		s.Line(r.IntN(100000))
	}
}

func BenchmarkLineCol100k(b *testing.B) {
	s := New(goSource(100000, 2))
	r := newRand(8)
	for b.Loop() {
		if _, _, err := s.LineCol(Pos{uint32(r.IntN(100000)), 20}, UTF16); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkText100kAfterEdit(b *testing.B) {
	s := New(goSource(100000, 2))
	b.ReportAllocs()
	for b.Loop() {
		ns, _, _ := s.Apply([]Change{{rng(500, 0, 500, 0), "x"}}, UTF16)
		_ = ns.Text()
	}
}

func BenchmarkFullSync100k(b *testing.B) {
	s := New(goSource(100000, 2))
	text := s.Text()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t := text
		if i%2 == 0 {
			t = text[:1000] + "x" + text[1000:]
		}
		ns, _, _ := s.Apply([]Change{{nil, t}}, UTF16)
		s = ns
	}
}
