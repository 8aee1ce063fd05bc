package editblock

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/textdoc"
	"pgregory.net/rapid"
)

// Content lines, many of them traps: path-looking lines, fences, headings,
// near-markers, whitespace, non-ASCII, invalid UTF-8.
var contentLines = []string{
	"", "", "}", "\tx := 1", "    return nil", "trailing  ", "src/a.go", "main.go", "```", "```go",
	"# heading", "- item", "<<<< EDITOR", "==== REPLACED", ">>>> EDIT EN", " >>>> EDIT END", " <<<< EDIT",
	"é😀€", "\xff\xfe", "==== REPLACE x",
}

// Prose lines never look like paths or markers.
var proseLines = []string{
	"Here is the change:", "", "This fixes the bug in the handler.", "```", "```go",
	"Run the tests afterwards, please.", "> Note: be careful", "1. First step",
}

var pathSegs = []string{"src", "internal", "a", "b_c", "x-y", "pkg.v2", "é"}

func genPath(t *rapid.T) string {
	if rapid.IntRange(0, 5).Draw(t, "bare") == 0 {
		return rapid.SampledFrom([]string{"main.go", "Makefile", "README.md", ".gitignore"}).Draw(t, "bareName")
	}
	segs := rapid.SliceOfN(rapid.SampledFrom(pathSegs), 1, 3).Draw(t, "segs")
	sep := "/"
	if rapid.IntRange(0, 5).Draw(t, "backslash") == 0 {
		sep = `\`
	}
	return strings.Join(segs, sep) + rapid.SampledFrom([]string{".go", ".py", ".md", ".ts"}).Draw(t, "ext")
}

// decorate draws a format for a path line, the ways models write them.
func decorate(t *rapid.T) string {
	return rapid.SampledFrom([]string{"%s", "### %s", "`%s`", "**%s**", "**%s**:", "File: %s", "  %s  ", "**File:** `%s`"}).
		Draw(t, "decoration")
}

func genHalf(t *rapid.T, label string) []string {
	return rapid.SliceOfN(rapid.SampledFrom(contentLines), 0, 5).Draw(t, label)
}

// rendered is a model output and what it holds.
type rendered struct {
	text   string
	blocks []Block
	starts []int // byte offset right after each block's "<<<< EDIT"
	ends   []int // byte offset right after each block's ">>>> EDIT END"
}

// genOutput renders a random well-formed output: prose, blocks with
// decorated paths, fences, blank lines, one terminator style.
func genOutput(t *rapid.T) rendered {
	term := rapid.SampledFrom([]string{"\n", "\r\n", "\r"}).Draw(t, "term")
	var b strings.Builder
	line := 0
	put := func(s string) {
		b.WriteString(s)
		b.WriteString(term)
		line++
	}
	var r rendered
	lastPath := ""
	justEnded := false
	nb := rapid.IntRange(0, 5).Draw(t, "blocks")
	for i := range nb {
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(proseLines), 0, 3).Draw(t, "prose") {
			put(p)
			if p != "" && !strings.HasPrefix(p, "```") {
				justEnded = false
			}
		}
		blk := Block{Index: i, Old: genHalf(t, "old"), New: genHalf(t, "new")}
		if term == "\r\n" {
			blk.OldCR, blk.NewCR = allTrue(len(blk.Old)), allTrue(len(blk.New))
		}
		if justEnded && rapid.IntRange(0, 3).Draw(t, "inherit") == 0 {
			blk.Path, blk.Inherited = lastPath, true
		} else {
			blk.Path = genPath(t)
			put(fmt.Sprintf(decorate(t), blk.Path))
		}
		for range rapid.IntRange(0, 2).Draw(t, "gap") {
			put(rapid.SampledFrom([]string{"", "```", "```diff", "  "}).Draw(t, "gapLine"))
		}
		blk.Line = line + 1
		r.starts = append(r.starts, b.Len()+len(markEdit))
		put(markEdit)
		for _, l := range blk.Old {
			put(l)
		}
		put(markReplace)
		for _, l := range blk.New {
			put(l)
		}
		b.WriteString(markEnd)
		r.ends = append(r.ends, b.Len())
		if rapid.Bool().Draw(t, "endTail") {
			b.WriteString(" (done)")
		}
		if i < nb-1 || rapid.Bool().Draw(t, "finalTerm") {
			b.WriteString(term)
			line++
		}
		r.blocks = append(r.blocks, blk)
		lastPath, justEnded = blk.Path, true
	}
	if rapid.Bool().Draw(t, "trailingProse") && strings.HasSuffix(b.String(), term) {
		put("That's all.")
	}
	r.text = b.String()
	return r
}

// cut splits text at random points.
func cut(t *rapid.T, text string) [][]byte {
	var out [][]byte
	b := []byte(text)
	for len(b) > 0 {
		n := rapid.IntRange(1, max(1, min(len(b), 40))).Draw(t, "chunk")
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func parseChunks(chunks [][]byte) Parsed {
	var p Parser
	var r Parsed
	for _, c := range chunks {
		r.Blocks = append(r.Blocks, p.Write(c)...)
	}
	r.Partial = p.Close()
	r.Orphans = p.Orphans()
	return r
}

// normBlocks makes empty halves comparable.
func normBlocks(bs []Block) []Block {
	if len(bs) == 0 {
		return nil
	}
	out := slices.Clone(bs)
	for i := range out {
		if len(out[i].Old) == 0 {
			out[i].Old = nil
		}
		if len(out[i].New) == 0 {
			out[i].New = nil
		}
	}
	return out
}

// Any well-formed block set round-trips through the parser, whole and
// under arbitrary chunk splits.
func TestRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genOutput(t)
		whole := Parse(r.text)
		if len(whole.Orphans) > 0 || whole.Partial != nil {
			t.Fatalf("orphans %+v partial %+v in\n%q", whole.Orphans, whole.Partial, r.text)
		}
		if got, want := normBlocks(whole.Blocks), normBlocks(r.blocks); !reflect.DeepEqual(got, want) {
			t.Fatalf("blocks differ in %q:\n got %+v\nwant %+v", r.text, got, want)
		}
		split := parseChunks(cut(t, r.text))
		if !reflect.DeepEqual(split, whole) {
			t.Fatalf("chunked parse differs:\n%+v\n%+v", split, whole)
		}
	})
}

// A stream cut anywhere yields exactly the blocks whose end marker made it
// in, and reports the one it was cut in: never an incomplete block.
func TestTruncationProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genOutput(t)
		at := rapid.IntRange(0, len(r.text)).Draw(t, "cut")
		got := parseChunks(cut(t, r.text[:at]))
		n := 0
		for n < len(r.ends) && r.ends[n] <= at {
			n++
		}
		if want := normBlocks(r.blocks[:n]); !reflect.DeepEqual(normBlocks(got.Blocks), want) {
			t.Fatalf("cut at %d of %q:\n got %+v\nwant %+v", at, r.text, got.Blocks, want)
		}
		// A cut inside a content line can leave a marker-looking last line
		// ("==== REPLACE" of "==== REPLACED"): the parser cannot know more,
		// so the orphans and partial are only checked when the last line
		// is whole or not a marker.
		cutText := r.text[:at]
		last := cutText[strings.LastIndexAny(cutText, "\r\n")+1:]
		full := r.text[len(cutText)-len(last):]
		if i := strings.IndexAny(full, "\r\n"); i >= 0 {
			full = full[:i]
		}
		native := &Parser{}
		if _, _, ok := editMarker([]byte(last)); last != full && (ok || native.isReplace([]byte(last)) || native.isEnd([]byte(last))) {
			return
		}
		if len(got.Orphans) > 0 {
			t.Fatalf("orphans %+v", got.Orphans)
		}
		// Block n is reported unfinished once its "<<<< EDIT" is in.
		if n < len(r.blocks) && at >= r.starts[n] {
			want := Partial{Index: n, Path: r.blocks[n].Path, Line: r.blocks[n].Line}
			if got.Partial == nil {
				t.Fatalf("cut at %d of %q: no partial", at, r.text)
			}
			p := *got.Partial
			p.InNew, p.Message = false, ""
			if p != want {
				t.Fatalf("partial %+v, want %+v", p, want)
			}
		} else if got.Partial != nil {
			t.Fatalf("cut at %d of %q: partial %+v", at, r.text, got.Partial)
		}
	})
}

var fileLines = []string{"", "}", "a", "b", "\tc", "    c", "c ", "d", "return nil", "x := 1"}

// Matching against a brute-force oracle: a block applies exactly when its
// EDIT half occurs once, and then the new file is the old one with that
// occurrence replaced by the REPLACE half, every other line byte-identical;
// otherwise the diagnosis agrees with the count, and nothing is applied.
func TestMatchProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		term := rapid.SampledFrom([]string{"\n", "\r\n", "\r"}).Draw(t, "term")
		n := rapid.IntRange(0, 30).Draw(t, "n")
		var fb strings.Builder
		for range n {
			fb.WriteString(rapid.SampledFrom(fileLines).Draw(t, "line"))
			fb.WriteString(term)
		}
		text := fb.String()
		if n > 0 && rapid.Bool().Draw(t, "noFinalNewline") {
			text += rapid.SampledFrom(fileLines[1:]).Draw(t, "last")
		}
		file := lines.Split(text)
		var old []string
		if len(file) > 0 && rapid.IntRange(0, 3).Draw(t, "fromFile") > 0 {
			i := rapid.IntRange(0, len(file)-1).Draw(t, "from")
			j := rapid.IntRange(i+1, min(len(file), i+4)).Draw(t, "to")
			for _, l := range file[i:j] {
				old = append(old, l.Content)
			}
		} else {
			old = rapid.SliceOfN(rapid.SampledFrom(fileLines), 1, 3).Draw(t, "old")
		}
		// New: the old lines with some kept at both ends, some new between.
		k := rapid.IntRange(0, len(old)).Draw(t, "keepFront")
		s := rapid.IntRange(0, len(old)-k).Draw(t, "keepBack")
		mid := rapid.SliceOfN(rapid.SampledFrom(fileLines), 0, 3).Draw(t, "mid")
		nw := slices.Concat(old[:k], mid, old[len(old)-s:])
		b := Block{Path: "f", Old: old, New: nw}

		src := hashline.TextSource(text)
		m, d := MatchBlock(src, b, textdoc.New(text).Dominant())

		var at []int
		for p := 0; p+len(old) <= len(file); p++ {
			ok := true
			for j := range old {
				if file[p+j].Content != old[j] {
					ok = false
					break
				}
			}
			if ok {
				at = append(at, p)
			}
		}
		if b.IsNoOp() {
			if d != nil || !m.NoOp {
				t.Fatalf("no-op: %+v %+v", m, d)
			}
			return
		}
		switch {
		case len(at) == 1:
			if d != nil {
				t.Fatalf("occurs once at %d but %+v", at[0]+1, d)
			}
		case len(at) > 1:
			if d == nil || d.Kind != KindAmbiguous || d.Line != at[0]+1 {
				t.Fatalf("occurs at %v but %+v %+v", at, m, d)
			}
		default:
			if d == nil || d.Kind == KindAmbiguous {
				t.Fatalf("occurs nowhere but %+v %+v", m, d)
			}
		}
		if d != nil {
			if !reflect.DeepEqual(m, Match{}) {
				t.Fatalf("a failed match carries a change: %+v", m)
			}
			out := ApplySequence(src, []Block{b}, textdoc.New(text).Dominant())
			if out[0].Text != text || out[0].Applied() {
				t.Fatal("a failed block changed the text")
			}
			return
		}
		p := at[0]
		if m.Start != p+1 || m.End != p+len(old) {
			t.Fatalf("lines %d-%d, want %d-%d", m.Start, m.End, p+1, p+len(old))
		}
		got := lines.Split(render(src, m.Plan.Splices))
		var gotC []string
		for _, l := range got {
			gotC = append(gotC, l.Content)
		}
		var wantC []string
		for _, l := range file[:p] {
			wantC = append(wantC, l.Content)
		}
		wantC = append(wantC, nw...)
		for _, l := range file[p+len(old):] {
			wantC = append(wantC, l.Content)
		}
		if !slices.Equal(gotC, wantC) {
			t.Fatalf("text %q → %q; want contents %q", text, render(src, m.Plan.Splices), wantC)
		}
		// Lines outside the splice keep their bytes.
		sp := m.Splice
		delta := len(sp.New) - sp.Old
		for i, l := range file {
			switch {
			case i < sp.Start:
				if got[i] != l {
					t.Fatalf("line %d changed: %q → %q", i+1, l, got[i])
				}
			case i >= sp.Start+sp.Old:
				if got[i+delta] != l {
					t.Fatalf("line %d changed: %q → %q", i+1, l, got[i+delta])
				}
			}
		}
		// The splice stays within the matched region, give or take the
		// one-line byte rules.
		if sp.Start < p-1 || sp.Start+sp.Old > p+len(old)+1 {
			t.Fatalf("splice %+v outside lines %d-%d", sp, p+1, p+len(old))
		}
	})
}

// allTrue is n trues, or nil for none.
func allTrue(n int) []bool {
	if n == 0 {
		return nil
	}
	bs := make([]bool, n)
	for i := range bs {
		bs[i] = true
	}
	return bs
}
