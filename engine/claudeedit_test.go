package engine

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
)

// refChar is a character of the text Claude Code's Edit works on, with the
// file's line it came from (0: an edit wrote it).
type refChar struct {
	r    rune
	line int
}

// refClaudeEdit is a reference model of Claude Code's Edit and MultiEdit,
// written from their documented behaviour, character by character: the
// file is read with CRLF as LF; each edit, in order, finds its old_string
// in the text the edits before it left (as written, else with curly quotes
// read as straight), needs it once unless replace_all, and replaces the
// first (or every) occurrence; an empty new_string also takes the line
// break after the text. It returns the file's lines whose characters an
// edit replaced, and false when the tool would refuse the call.
func refClaudeEdit(file string, edits []OldText) (map[int]bool, bool) {
	var cur []refChar
	line := 1
	for _, r := range strings.ReplaceAll(file, "\r\n", "\n") {
		cur = append(cur, refChar{r, line})
		if r == '\n' {
			line++
		}
	}
	text := func(cs []refChar, straight bool) []rune {
		out := make([]rune, len(cs))
		for i, c := range cs {
			out[i] = c.r
			if straight {
				switch c.r {
				case '\u2018', '\u2019':
					out[i] = '\''
				case '\u201c', '\u201d':
					out[i] = '"'
				}
			}
		}
		return out
	}
	index := func(hay, needle []rune, from int) int {
		for i := from; i+len(needle) <= len(hay); i++ {
			if slices.Equal(hay[i:i+len(needle)], needle) {
				return i
			}
		}
		return -1
	}
	straighten := func(s string) []rune {
		return text(func() []refChar {
			var cs []refChar
			for _, r := range s {
				cs = append(cs, refChar{r: r})
			}
			return cs
		}(), true)
	}
	touched := map[int]bool{}
	for _, e := range edits {
		repl := []rune(*e.New)
		var spans [][2]int
		if e.Text == "" {
			if strings.TrimSpace(string(text(cur, false))) != "" {
				return nil, false
			}
			if len(cur) > 0 {
				spans = [][2]int{{0, len(cur)}}
			}
		} else {
			old := []rune(e.Text)
			at := index(text(cur, false), old, 0)
			if at < 0 {
				at = index(text(cur, true), straighten(e.Text), 0)
			}
			if at < 0 {
				return nil, false
			}
			actual := text(cur, false)[at : at+len(old)]
			if !e.All && index(text(cur, false), actual, at+len(actual)) >= 0 {
				return nil, false
			}
			if len(repl) == 0 && actual[len(actual)-1] != '\n' && index(text(cur, false), append(slices.Clone(actual), '\n'), 0) >= 0 {
				actual = append(slices.Clone(actual), '\n')
			}
			for from := 0; ; {
				i := index(text(cur, false), actual, from)
				if i < 0 {
					break
				}
				spans = append(spans, [2]int{i, i + len(actual)})
				from = i + len(actual)
				if !e.All {
					break
				}
			}
		}
		var next []refChar
		last := 0
		for _, sp := range spans {
			next = append(next, cur[last:sp[0]]...)
			for _, c := range cur[sp[0]:sp[1]] {
				if c.line > 0 {
					touched[c.line] = true
				}
			}
			for _, r := range repl {
				next = append(next, refChar{r: r})
			}
			last = sp[1]
		}
		next = append(next, cur[last:]...)
		if len(spans) == 0 && len(cur) == 0 {
			for _, r := range repl {
				next = append(next, refChar{r: r})
			}
		}
		cur = next
	}
	return touched, true
}

// TestClaudeTargetsProperty: for generated files (LF, CRLF, curly quotes)
// and edits (sequential, replace_all, deletions, texts found only after
// an earlier edit), the lines sightline targets are exactly those the
// reference model of Claude Code's Edit changes, and sightline places
// every edit the tool would apply.
func TestClaudeTargetsProperty(t *testing.T) {
	words := []string{"a", "b", "ab", "x", "“q”", "\"q\"", "‘s’", "'s'", " "}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(t, "lines")
		eol := rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "eol")
		var ls []string
		for i := range n {
			ls = append(ls, strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 0, 3).Draw(t, "line"+string(rune('0'+i))), ""))
		}
		file := strings.Join(ls, eol)
		if n > 0 && rapid.Bool().Draw(t, "final eol") {
			file += eol
		}
		var edits []OldText
		for i := range rapid.IntRange(1, 3).Draw(t, "edits") {
			var old string
			if len(file) > 0 && rapid.Bool().Draw(t, "from the file") {
				// A piece of the file, its line breaks as LF.
				lf := strings.ReplaceAll(file, "\r\n", "\n")
				rs := []rune(lf)
				a := rapid.IntRange(0, len(rs)-1).Draw(t, "from")
				b := rapid.IntRange(a+1, min(len(rs), a+8)).Draw(t, "to")
				old = string(rs[a:b])
				if rapid.Bool().Draw(t, "straighten") {
					old = strings.NewReplacer("“", "\"", "”", "\"", "‘", "'", "’", "'").Replace(old)
				}
			} else {
				old = strings.Join(rapid.SliceOfN(rapid.SampledFrom(append(words, "\n")), 0, 3).Draw(t, "old"), "")
			}
			newText := strings.Join(rapid.SliceOfN(rapid.SampledFrom([]string{"", "n", "m\nm", "\n"}), 0, 2).Draw(t, "new"+string(rune('0'+i))), "")
			edits = append(edits, OldText{Text: old, New: &newText, All: rapid.Bool().Draw(t, "all")})
		}
		want, ok := refClaudeEdit(file, edits)
		got, unmatched := claudeTargets(textdoc.New(file), "f.txt", edits)
		if !ok {
			return // the tool refuses the call: nothing changes, whatever sightline says
		}
		if len(unmatched) > 0 {
			t.Fatalf("file %q, edits %s: sightline could not place edit %d, the tool applies it", file, show(edits), unmatched[0])
		}
		var gotLines []int
		for _, r := range got {
			for l := r.Start; l <= r.End; l++ {
				gotLines = append(gotLines, l)
			}
		}
		var wantLines []int
		for l := range want {
			wantLines = append(wantLines, l)
		}
		slices.Sort(wantLines)
		if !slices.Equal(gotLines, wantLines) {
			t.Fatalf("file %q, edits %s: targets %v, the tool changes lines %v", file, show(edits), ledger.List(got), wantLines)
		}
	})
}

func show(edits []OldText) string {
	var b strings.Builder
	for _, e := range edits {
		b.WriteString("{" + strings.ReplaceAll(e.Text, "\n", `\n`) + " -> " + strings.ReplaceAll(*e.New, "\n", `\n`))
		if e.All {
			b.WriteString(" all")
		}
		b.WriteString("} ")
	}
	return b.String()
}
