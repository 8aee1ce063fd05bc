package editblock

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// feed parses text cut into chunks of n bytes (n <= 0: whole).
func feed(text string, n int) Parsed {
	var p Parser
	var r Parsed
	b := []byte(text)
	if n <= 0 {
		n = len(b) + 1
	}
	for len(b) > 0 {
		k := min(n, len(b))
		r.Blocks = append(r.Blocks, p.Write(b[:k])...)
		b = b[k:]
	}
	r.Partial = p.Close()
	r.Orphans = p.Orphans()
	return r
}

func TestPathFrom(t *testing.T) {
	cases := []struct {
		line, want string // want "" = not a path
	}{
		{"src/a.go", "src/a.go"},
		{"  src/a.go  ", "src/a.go"},
		{`pkg\win\a.go`, `pkg\win\a.go`},
		{"main.go", "main.go"},
		{".gitignore", ".gitignore"},
		{"Makefile", "Makefile"},
		{"go.mod", "go.mod"},
		{"### src/a.go", "src/a.go"},
		{"# a.go", "a.go"},
		{"`src/a.go`", "src/a.go"},
		{"`src/a.go`:", "src/a.go"},
		{"**src/a.go**", "src/a.go"},
		{"**src/a.go:**", "src/a.go"},
		{"**`src/a.go`**", "src/a.go"},
		{"*src/a.go*", "src/a.go"},
		{"File: src/a.go", "src/a.go"},
		{"**File:** `src/a.go`", "src/a.go"},
		{"**Path**: src/a.go", "src/a.go"},
		{"file: a.go", "a.go"},
		{"Note: see a.go", ""},
		{`"my dir/a b.go"`, "my dir/a b.go"},
		{"`docs/release notes.md`", "docs/release notes.md"},
		{"src/a b.go", ""},       // spaces need quotes
		{"Here is the fix:", ""}, // prose
		{"// src/a.go", ""},      // a comment
		{"- src/a.go", ""},       // a list item
		{"> src/a.go", ""},       // a quote
		{"* src/a.go", ""},
		{"#include <stdio.h>", ""},
		{"https://example.com/a.go", ""},
		{"src/", ""}, // a folder
		{"Done.", ""},
		{"1.5", ""},
		{"fix", ""},
		{"go", ""},
		{strings.Repeat("a/", 100) + "x.go", ""}, // too long
		{"", ""},
		{"```", ""},
		{"a/b\x00c", ""},
	}
	for _, c := range cases {
		got, ok := pathFrom([]byte(c.line))
		if !ok {
			got = ""
		}
		if got != c.want {
			t.Errorf("pathFrom(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestParserCases(t *testing.T) {
	type blk struct {
		Path     string
		Old, New []string
		Line     int
	}
	cases := []struct {
		name    string
		text    string
		want    []blk
		orphans []string // "index reason line"
		partial string   // "index path line"
	}{
		{
			name: "plain",
			text: "src/a.go\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\n",
			want: []blk{{"src/a.go", []string{"x"}, []string{"y"}, 2}},
		},
		{
			name: "end marker without final newline",
			text: "src/a.go\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END",
			want: []blk{{"src/a.go", []string{"x"}, []string{"y"}, 2}},
		},
		{
			name: "end marker with trailing text and fence after",
			text: "src/a.go\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END (1/2)\n```\n",
			want: []blk{{"src/a.go", []string{"x"}, []string{"y"}, 2}},
		},
		{
			name: "CRLF output, blank and fence between path and marker",
			text: "Fix:\r\n\r\nsrc/a.go\r\n\r\n```go\r\n<<<< EDIT\r\n\tx \r\n==== REPLACE \r\n\ty\r\n\r\n>>>> EDIT END\r\n```\r\n",
			want: []blk{{"src/a.go", []string{"\tx "}, []string{"\ty", ""}, 6}},
		},
		{
			name: "CR-only output",
			text: "a.go\r<<<< EDIT\rx\r==== REPLACE\ry\r>>>> EDIT END\r",
			want: []blk{{"a.go", []string{"x"}, []string{"y"}, 2}},
		},
		{
			name: "fence opening before the path and closing after",
			text: "```\nsrc/a.go\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\n```\n",
			want: []blk{{"src/a.go", []string{"x"}, []string{"y"}, 3}},
		},
		{
			name: "path in the fence's info string",
			text: "Change:\n```go src/a.go\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\n```\n",
			want: []blk{{"src/a.go", []string{"x"}, []string{"y"}, 3}},
		},
		{
			name: "fences inside content stay content",
			text: "README.md\n<<<< EDIT\n```sh\nmake\n```\n==== REPLACE\n```sh\nmake test\n```\n>>>> EDIT END\n",
			want: []blk{{"README.md", []string{"```sh", "make", "```"}, []string{"```sh", "make test", "```"}, 2}},
		},
		{
			name: "create and empty halves",
			text: "new/a.txt\n<<<< EDIT\n==== REPLACE\n\n>>>> EDIT END\n",
			want: []blk{{"new/a.txt", []string{}, []string{""}, 2}},
		},
		{
			name: "path on the marker line wins over the line before",
			text: "src/old.go\n<<<< EDIT src/b.go\nx\n==== REPLACE\ny\n>>>> EDIT END\n",
			want: []blk{{"src/b.go", []string{"x"}, []string{"y"}, 2}},
		},
		{
			name:    "inherited path; prose outside the fence breaks the inheritance",
			text:    "a/b.go\n<<<< EDIT\n1\n==== REPLACE\n2\n>>>> EDIT END\n\n```\n<<<< EDIT\n3\n==== REPLACE\n4\n>>>> EDIT END\n```\nNow:\n<<<< EDIT\n5\n==== REPLACE\n6\n>>>> EDIT END\n",
			want:    []blk{{"a/b.go", []string{"1"}, []string{"2"}, 2}, {"a/b.go", []string{"3"}, []string{"4"}, 9}},
			orphans: []string{"2 no_path 16"},
		},
		{
			name:    "no path at the very start",
			text:    "<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\nsrc/a.go\n<<<< EDIT\nx\n==== REPLACE\nz\n>>>> EDIT END\n",
			want:    []blk{{"src/a.go", []string{"x"}, []string{"z"}, 7}},
			orphans: []string{"0 no_path 1"},
		},
		{
			name:    "a long prose line is no path",
			text:    strings.Repeat("word ", 200) + "\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\n",
			orphans: []string{"0 no_path 2"},
		},
		{
			name: "markers must start the line",
			text: "Use `<<<< EDIT` then\n  <<<< EDIT\nx\n ==== REPLACE\n>>>> EDIT END\n",
		},
		{
			name:    "truncated in the old half",
			text:    "src/a.go\n<<<< EDIT\nx\n==== REPL",
			partial: "0 src/a.go 2 old",
		},
		{
			name:    "truncated end marker is not an end marker",
			text:    "src/a.go\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT EN",
			partial: "0 src/a.go 2 new",
		},
		{
			name:    "a new marker ends a block without end marker",
			text:    "a.go\n<<<< EDIT\nx\n==== REPLACE\ny\nb.go\n<<<< EDIT\np\n==== REPLACE\nq\n>>>> EDIT END\n",
			want:    []blk{{"b.go", []string{"p"}, []string{"q"}, 7}},
			orphans: []string{"0 no_end 2"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var first Parsed
			for _, n := range []int{0, 1, 2, 3, 7, 64} {
				r := feed(c.text, n)
				var got []blk
				for i, b := range r.Blocks {
					if b.Old == nil || b.New == nil {
						t.Fatalf("chunk %d: block %d has a nil half", n, i)
					}
					got = append(got, blk{b.Path, b.Old, b.New, b.Line})
				}
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("chunk %d: blocks\n got %+v\nwant %+v", n, got, c.want)
				}
				var orph []string
				for _, o := range r.Orphans {
					orph = append(orph, strings.Join([]string{strconv.Itoa(o.Index), o.Reason, strconv.Itoa(o.Line)}, " "))
				}
				if !reflect.DeepEqual(orph, c.orphans) {
					t.Errorf("chunk %d: orphans %q, want %q", n, orph, c.orphans)
				}
				part := ""
				if r.Partial != nil {
					stage := "old"
					if r.Partial.InNew {
						stage = "new"
					}
					part = strings.Join([]string{strconv.Itoa(r.Partial.Index), r.Partial.Path, strconv.Itoa(r.Partial.Line), stage}, " ")
				}
				if part != c.partial {
					t.Errorf("chunk %d: partial %q, want %q", n, part, c.partial)
				}
				if n == 0 {
					first = r
				} else if !reflect.DeepEqual(r, first) {
					t.Errorf("chunk %d: differs from one Write:\n%+v\n%+v", n, r, first)
				}
			}
		})
	}
}

// A block is emitted by the Write that brings its end marker, before the
// line ends; the Parser keeps no reference to the caller's chunk.
func TestParserStreaming(t *testing.T) {
	var p Parser
	buf := []byte("src/a.go\n<<<< EDIT\nold\n==== REPLACE\nnew\n>>>> EDIT")
	if bs := p.Write(buf); bs != nil {
		t.Fatalf("early block %v", bs)
	}
	if pd := p.Pending(); pd == nil || pd.Path != "src/a.go" || !pd.InNew || pd.Line != 2 {
		t.Fatalf("Pending = %+v", pd)
	}
	for i := range buf {
		buf[i] = 'X' // the caller reuses its buffer
	}
	bs := p.Write([]byte(" END"))
	if len(bs) != 1 || bs[0].Old[0] != "old" || bs[0].New[0] != "new" || bs[0].Path != "src/a.go" {
		t.Fatalf("blocks = %+v", bs)
	}
	if p.Pending() != nil {
		t.Fatal("still pending")
	}
	// The rest of the end marker's line is ignored, whatever it is.
	if bs := p.Write([]byte(" <<<< EDIT\r")); bs != nil {
		t.Fatal(bs)
	}
	if part := p.Close(); part != nil {
		t.Fatalf("partial %+v", part)
	}
	// Close resets: the parser takes a new stream, numbering from 0.
	bs = p.Write([]byte("b.go\n<<<< EDIT\n==== REPLACE\nx\n>>>> EDIT END\n"))
	if len(bs) != 1 || bs[0].Index != 0 || bs[0].Line != 2 || !bs[0].IsCreate() {
		t.Fatalf("after Close: %+v", bs)
	}
}

func TestBlockHelpers(t *testing.T) {
	b := Block{Old: []string{"a", "b", "c"}, New: []string{"a", "b", "x", "c"}}
	if b.Anchor() != 2 || b.IsNoOp() || b.IsCreate() {
		t.Fatal(b.Anchor(), b.IsNoOp(), b.IsCreate())
	}
	if !(Block{Old: []string{"a"}, New: []string{"a"}}).IsNoOp() || (Block{New: []string{"a"}}).IsNoOp() {
		t.Fatal("IsNoOp")
	}
}

// Parse parses a whole output.
func Parse(text string) Parsed {
	var p Parser
	bs := p.Write([]byte(text))
	part := p.Close()
	return Parsed{Blocks: bs, Orphans: p.Orphans(), Partial: part}
}

// TestLineCRs: a block says which lines of each half ended with "\r\n"
// (nil when none did), however the output is cut into chunks; a lone '\r'
// is no "\r\n".
func TestLineCRs(t *testing.T) {
	for _, tc := range []struct {
		text     string
		old, new []bool
	}{
		{"a.bat\r\n<<<<<<< SEARCH\r\n=======\r\n@echo off\r\nexit\r\n>>>>>>> REPLACE\r\n", nil, []bool{true, true}},
		{"a.bat\n<<<<<<< SEARCH\n=======\n@echo off\r\nexit\r\n>>>>>>> REPLACE\n", nil, []bool{true, true}},
		{"a.bat\n<<<<<<< SEARCH\n=======\n@echo off\r\nexit\n>>>>>>> REPLACE\n", nil, []bool{true, false}},
		{"a.bat\n<<<<<<< SEARCH\n=======\n@echo off\rexit\r\n>>>>>>> REPLACE\n", nil, []bool{false, true}},
		{"a.bat\n<<<<<<< SEARCH\n=======\n@echo off\r\nexit\r>>>>>>> REPLACE\n", nil, []bool{true, false}},
		{"a.bat\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n", nil, nil},
		{"a.bat\n<<<<<<< SEARCH\r\nx\r\nz\n=======\ny\n>>>>>>> REPLACE\r\n", []bool{true, false}, nil},
	} {
		for size := 1; size <= len(tc.text); size++ {
			p := NewParser()
			var got []Block
			for i := 0; i < len(tc.text); i += size {
				got = append(got, p.Write([]byte(tc.text[i:min(i+size, len(tc.text))]))...)
			}
			p.Close()
			if len(got) != 1 || !reflect.DeepEqual(got[0].OldCR, tc.old) || !reflect.DeepEqual(got[0].NewCR, tc.new) {
				t.Fatalf("%q in chunks of %d: %+v, want OldCR=%v NewCR=%v", tc.text, size, got, tc.old, tc.new)
			}
		}
	}
}
