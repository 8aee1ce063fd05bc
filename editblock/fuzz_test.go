package editblock

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/textdoc"
)

// FuzzParser: the parser never panics, every block it emits is complete in
// the input (checked against the input's own lines, independently of the
// parser's streaming), every "<<<< EDIT" is reported once (block, orphan or
// partial), and any chunking gives what one Write gives.
func FuzzParser(f *testing.F) {
	seeds := []string{
		"",
		"src/a.go\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\n",
		"src/a.go\r\n<<<< EDIT\r\nx\r\n==== REPLACE\r\ny\r\n>>>> EDIT END",
		"a.go\r<<<< EDIT\r\r==== REPLACE\r>>>> EDIT END\r",
		"```go\n### `a/b.go`\n\n```\n<<<< EDIT\n==== REPLACE\nnew\n>>>> EDIT END tail\n```\n",
		"<<<< EDIT\n==== REPLACE\n==== REPLACE\n>>>> EDIT END\n<<<< EDIT x.go\n<<<< EDIT\n",
		"a.go\n<<<< EDIT\nx\n>>>> EDIT END\na.go\n<<<< EDIT\n==== REPLACE\ny\nb.go\n<<<< EDIT\n",
		"**File:** `x/y z.go`\n<<<< EDIT\n\t\n==== REPLACE\n>>>> EDIT E",
		strings.Repeat("long prose ", 100) + "\n<<<< EDIT\n==== REPLACE\n>>>> EDIT END\n",
	}
	golden, _ := filepath.Glob("testdata/*.txtar")
	for _, g := range golden {
		raw, err := os.ReadFile(g)
		if err == nil {
			if i := strings.Index(string(raw), "-- output"); i >= 0 {
				seeds = append(seeds, string(raw[i:]))
			}
		}
	}
	for i, s := range seeds {
		f.Add([]byte(s), []byte{byte(i), 3, 1, 7, 200})
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		whole := Parse(string(data))

		var chunks [][]byte
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, 1+int(cuts[i%len(cuts)])%32)
			}
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		split := parseChunks(chunks)
		if !reflect.DeepEqual(split, whole) {
			t.Fatalf("chunked parse differs:\n%+v\n%+v", split, whole)
		}

		ls := lines.Split(string(data))
		content := func(i int) (string, bool) {
			if i < 0 || i >= len(ls) {
				return "", false
			}
			return ls[i].Content, true
		}
		seen := map[int]bool{}
		mark := func(i int) {
			if seen[i] {
				t.Fatalf("index %d reported twice", i)
			}
			seen[i] = true
		}
		for _, b := range whole.Blocks {
			mark(b.Index)
			if b.Path == "" {
				t.Fatalf("block without path: %+v", b)
			}
			i := b.Line - 1
			c, ok := content(i)
			_, aider, isMark := editMarker([]byte(c))
			if !ok || !isMark {
				t.Fatalf("block %d: line %d is %q, not an edit marker", b.Index, b.Line, c)
			}
			dialect := &Parser{cur: pending{aider: aider}}
			closing := []func([]byte) bool{dialect.isReplace, dialect.isEnd}
			for h, half := range [][]string{b.Old, b.New} {
				for _, want := range half {
					i++
					if c, ok := content(i); !ok || c != want {
						t.Fatalf("block %d: line %d is %q, want %q", b.Index, i+1, c, want)
					}
				}
				i++
				if c, ok := content(i); !ok || !closing[h]([]byte(c)) {
					t.Fatalf("block %d: line %d is %q, not the marker closing half %d", b.Index, i+1, c, h)
				}
			}
		}
		for _, o := range whole.Orphans {
			mark(o.Index)
		}
		if whole.Partial != nil {
			mark(whole.Partial.Index)
		}
		for i := range len(seen) {
			if !seen[i] {
				t.Fatalf("index %d never reported (%d reported)", i, len(seen))
			}
		}
		// Every marker line outside blocks starts one: count them.
		markers := 0
		for _, l := range ls {
			if _, _, ok := editMarker([]byte(l.Content)); ok {
				markers++
			}
		}
		if markers != len(seen) {
			t.Fatalf("%d marker lines, %d reported", markers, len(seen))
		}
	})
}

// FuzzMatchBlock: matching and diagnosing never panic, a failure carries
// no change, and a success's text holds the REPLACE half where the EDIT half
// was.
func FuzzMatchBlock(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B")
	f.Add("\tif x {\r\n\t}\r\n", "    if x {", "if y {")
	f.Add("func a() {\n\treturn 1\n}\nfunc b() {\n\treturn 1\n}\n", "\treturn 1\n}", "\treturn 2\n}")
	f.Add("x := compute(a)\ny\n", "x := compute(a, b)\ny", "x := compute(a, b, c)\ny")
	f.Add("\uFEFFa\nb", "a\nb", "a\nb\nc")
	f.Fuzz(func(t *testing.T, text, old, new string) {
		split := func(s string) []string {
			var out []string
			for _, l := range lines.Split(s) {
				out = append(out, l.Content)
			}
			return out
		}
		b := Block{Path: "f", Old: split(old), New: split(new)}
		src := hashline.TextSource(text)
		m, d := MatchBlock(src, b, textdoc.New(text).Dominant())
		if d != nil {
			if !reflect.DeepEqual(m, Match{}) || d.Message == "" {
				t.Fatalf("failure %+v with %+v", d, m)
			}
			return
		}
		if m.NoOp {
			return
		}
		got := split(render(src, m.Plan.Splices))
		if len(got) > 0 && strings.HasPrefix(text, hashline.BOM) {
			// The mark stays in front of the file, outside line 1's content.
			if !strings.HasPrefix(got[0], hashline.BOM) {
				t.Fatalf("the byte-order mark moved: %q", got)
			}
			got[0] = got[0][len(hashline.BOM):]
		}
		if b.IsCreate() {
			if !slices.Equal(got, b.New) {
				t.Fatalf("created %q, want %q", got, b.New)
			}
			return
		}
		p := m.Start - 1
		if p < 0 || p+len(b.New) > len(got) || !slices.Equal(got[p:p+len(b.New)], b.New) {
			t.Fatalf("text %q → %q; REPLACE half %q not at line %d", text, got, b.New, m.Start)
		}
	})
}
