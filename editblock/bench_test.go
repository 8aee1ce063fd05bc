package editblock

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/textdoc"
)

// modelOutput builds about size bytes of model output that is mostly prose
// (paragraphs, lists, fenced examples), with an edit block every ~4 KB.
func modelOutput(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "The handler in step %d validates the request before it reads the body, so a malformed request never reaches the store; the change below keeps that order but returns a wrapped error that names the handler, which makes the logs easier to follow when several handlers fail at once.\n\n", i)
		b.WriteString("- keep the validation first\n- wrap the error with the handler's name\n- leave the success path untouched\n\n")
		b.WriteString("For example:\n\n```go\nif err := validate(r); err != nil {\n\treturn err\n}\n```\n\n")
		if i%4 == 0 {
			fmt.Fprintf(&b, "### `internal/server/handler%d.go`\n\n```go\n<<<< EDIT\nfunc handler%d(w http.ResponseWriter, r *http.Request) error {\n\tif err := validate(r, %d); err != nil {\n\t\treturn err\n==== REPLACE\nfunc handler%d(w http.ResponseWriter, r *http.Request) error {\n\tif err := validate(r, %d); err != nil {\n\t\treturn fmt.Errorf(\"handler %d: %%w\", err)\n>>>> EDIT END\n```\n\n", i, i, i, i, i, i)
		}
	}
	return b.String()
}

func BenchmarkParse(b *testing.B) {
	text := []byte(modelOutput(4 << 20))
	want := len(Parse(string(text)).Blocks)
	for _, chunk := range []int{0, 4096, 16} {
		name := "whole"
		if chunk > 0 {
			name = fmt.Sprintf("chunks%d", chunk)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				var p Parser
				n := 0
				if chunk == 0 {
					n = len(p.Write(text))
				} else {
					for rest := text; len(rest) > 0; {
						k := min(chunk, len(rest))
						n += len(p.Write(rest[:k]))
						rest = rest[k:]
					}
				}
				p.Close()
				if n != want {
					b.Fatalf("%d blocks, want %d", n, want)
				}
			}
		})
	}
}

// goFile builds a Go-like file of n lines: many short repeated lines ("}",
// "\treturn nil", blank), every function distinct by name and number.
func goFile(n int) string {
	var b strings.Builder
	for i := 0; i*7 < n; i++ {
		fmt.Fprintf(&b, "func handler%d(w http.ResponseWriter, r *http.Request) error {\n\tif err := validate(r, %d); err != nil {\n\t\treturn fmt.Errorf(\"handler %d: %%w\", err)\n\t}\n\treturn nil\n}\n\n", i, i, i)
	}
	s := b.String()
	for cnt, i := 0, 0; i < len(s); i++ { // trim to exactly n lines
		if s[i] == '\n' {
			if cnt++; cnt == n {
				return s[:i+1]
			}
		}
	}
	return s
}

func BenchmarkMatchBlock100k(b *testing.B) {
	text := goFile(100_000)
	const fn = 7000 // a function in the middle: lines 49001-49007
	block := func(old, new string) Block {
		return Block{Path: "h.go", Old: strings.Split(old, "\n"), New: strings.Split(new, "\n")}
	}
	head := fmt.Sprintf("func handler%d(w http.ResponseWriter, r *http.Request) error {", fn)
	cases := []struct {
		name string
		b    Block
		kind string
	}{
		{"unique", block(
			head+fmt.Sprintf("\n\tif err := validate(r, %d); err != nil {\n\t\treturn fmt.Errorf(\"handler %d: %%w\", err)", fn, fn),
			head+fmt.Sprintf("\n\tif err := validate(r, %d); err != nil {\n\t\treturn fmt.Errorf(\"handler%d: %%w\", err)", fn, fn)), ""},
		{"insertion", block(head, head+"\n\tlog.Println(r.URL)"), ""},
		{"ambiguous", block("\treturn nil\n}", "\treturn err\n}"), KindAmbiguous},
		{"whitespace", block(head+fmt.Sprintf("\n    if err := validate(r, %d); err != nil {", fn), head+"\n    x()"), KindWhitespace},
		{"near", block(head+fmt.Sprintf("\n\tif err := validate(r, %d, true); err != nil {\n\t\treturn fmt.Errorf(\"handler %d: %%w\", err)\n\t}", fn, fn), head+"\n\tx()"), KindNear},
		{"not_found", block("func nothing() {\n\tpanic(\"x\")\n}", "func nothing() {}"), KindNotFound},
	}
	sources := []struct {
		name string
		src  hashline.Source
	}{{"text", hashline.TextSource(text)}, {"snapshot", textdoc.New(text)}}
	for _, s := range sources {
		for _, c := range cases {
			b.Run(s.name+"/"+c.name, func(b *testing.B) {
				m, d := MatchBlock(s.src, c.b, "\n")
				kind := ""
				if d != nil {
					kind = d.Kind
				}
				if kind != c.kind {
					b.Fatalf("got %q (%+v %+v), want %q", kind, m, d, c.kind)
				}
				b.ReportAllocs()
				for b.Loop() {
					MatchBlock(s.src, c.b, "\n")
				}
			})
		}
	}
}
