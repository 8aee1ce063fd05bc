package engine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
)

// DialectClaudeCode places old texts as Claude Code's Edit (and its former
// MultiEdit) places them: the file is read with its CRLFs as LF; each
// replacement is applied in order to the text the ones before it left; an
// old text is found as written, else with curly quotes read as straight
// ones (the file's own spelling is then replaced, and the new text takes
// the file's curly quotes); without all it must occur once in that text.
const DialectClaudeCode = "claude-code"

// unplaced is the refusal of a change whose i-th old text (or hunk) the
// dialect's tool would not find once: what it would change cannot be told.
func unplaced(dialect string, i int) string {
	if dialect == DialectCodex {
		return fmt.Sprintf("hunk %d is not in the file as Codex's apply_patch would look for it (in order after the hunks before it; exactly, then ignoring white space at the ends of lines, then with typographic punctuation read as ASCII), so sightline cannot tell what it would change. Nothing was changed; read the lines you mean to change, then retry with context lines the file holds.", i+1)
	}
	return fmt.Sprintf("edit %d's old text is not in the file once as Claude Code's Edit would look for it (found as written, else with curly quotes read as straight), so sightline cannot tell what it would change. Nothing was changed; read the lines you mean to change, then retry with an old text the file holds once.", i+1)
}

// piece is a run of the text as the replacements so far left it: from the
// file read as LF (orig, its offset there) or written by a replacement
// (orig -1).
type piece struct {
	text string
	orig int
}

// claudeTargets returns the lines of the document that Claude Code's
// replacements olds (each with its New), applied in order, change: the
// document's lines holding a character one of them replaces. A line an
// earlier replacement wrote is the agent's own and no target. unmatched is
// the index of the first replacement the tool would fail on (nothing is
// changed then, and the ones after it cannot be told).
func claudeTargets(s *textdoc.Snapshot, name string, olds []OldText) (targets []ledger.Range, unmatched []int) {
	lf, crs := readLF(s.Text())
	// crs are the offsets of lf whose '\n' lost its '\r': an offset of lf
	// is the document's plus the carriage returns dropped before it.
	docOff := func(i int) int { return i + sort.SearchInts(crs, i) }
	pieces := []piece{{text: lf, orig: 0}}
	markdown := isMarkdown(name)
	var set ledger.RangeSet
	for i, o := range olds {
		cur := joinPieces(pieces)
		repl := ""
		if o.New != nil {
			repl = *o.New
		}
		if !markdown {
			repl = stripTrailingSpace(repl)
		}
		var at [][2]int
		if o.Text == "" {
			// The tool writes the new text over a file holding nothing
			// but white space; any other file it refuses.
			if strings.TrimFunc(cur, jsSpace) != "" {
				return set.Ranges(), []int{i}
			}
			if cur != "" {
				at = [][2]int{{0, len(cur)}}
			}
		} else {
			actual, ok := findActual(cur, o.Text)
			if !ok {
				return set.Ranges(), []int{i}
			}
			if !o.All && twice(cur, actual) {
				return set.Ranges(), []int{i}
			}
			repl = preserveQuoteStyle(o.Text, actual, repl)
			if repl == "" && !strings.HasSuffix(actual, "\n") && strings.Contains(cur, actual+"\n") {
				// Deleting a text also deletes the line break after it.
				actual += "\n"
			}
			at = occurrences(cur, actual, o.All)
		}
		var touched [][2]int
		pieces, touched = splice(pieces, at, repl)
		for _, t := range touched {
			first := int(s.PosAt(docOff(t[0]), textdoc.UTF8).Line) + 1
			last := int(s.PosAt(docOff(t[1]-1), textdoc.UTF8).Line) + 1
			set.Add(ledger.Range{Start: first, End: min(last, s.LineCount())})
		}
	}
	return set.Ranges(), nil
}

// readLF returns text with each CRLF read as LF, and the offsets (in the
// result) of the line feeds that lost their carriage return.
func readLF(text string) (string, []int) {
	if !strings.Contains(text, "\r\n") {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text))
	var crs []int
	for {
		i := strings.Index(text, "\r\n")
		if i < 0 {
			b.WriteString(text)
			return b.String(), crs
		}
		b.WriteString(text[:i])
		crs = append(crs, b.Len())
		b.WriteByte('\n')
		text = text[i+2:]
	}
}

func joinPieces(ps []piece) string {
	if len(ps) == 1 {
		return ps[0].text
	}
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.text)
	}
	return b.String()
}

// splice replaces the spans at (sorted, disjoint, not empty) of the text
// the pieces make with repl; touched are the spans of the file (read as LF)
// whose characters were replaced.
func splice(ps []piece, at [][2]int, repl string) (out []piece, touched [][2]int) {
	if len(at) == 0 {
		if len(ps) == 0 || joinPieces(ps) == "" {
			// The whole of an empty text replaced: only what is written.
			return []piece{{text: repl, orig: -1}}, nil
		}
		return ps, nil
	}
	keep := func(p piece, from, to int) {
		if from < to {
			q := piece{text: p.text[from:to], orig: -1}
			if p.orig >= 0 {
				q.orig = p.orig + from
			}
			out = append(out, q)
		}
	}
	start, k := 0, 0
	for _, p := range ps {
		end := start + len(p.text)
		for i := 0; i < len(p.text); {
			abs := start + i
			if k < len(at) && at[k][0] <= abs && abs < at[k][1] {
				stop := min(at[k][1], end) - start
				if p.orig >= 0 {
					touched = append(touched, [2]int{p.orig + i, p.orig + stop})
				}
				i = stop
				if start+i == at[k][1] {
					if repl != "" {
						out = append(out, piece{text: repl, orig: -1})
					}
					k++
				}
				continue
			}
			next := len(p.text)
			if k < len(at) && at[k][0] < end {
				next = at[k][0] - start
			}
			keep(p, i, next)
			i = next
		}
		start = end
	}
	return out, touched
}

// findActual is the text as the file spells it that the tool replaces for
// old: old itself when the text holds it, else the first place where it
// does with curly quotes read as straight ones.
func findActual(text, old string) (string, bool) {
	if strings.Contains(text, old) {
		return old, true
	}
	nt, qs := straightQuotes(text)
	no, _ := straightQuotes(old)
	i := strings.Index(nt, no)
	if i < 0 {
		return "", false
	}
	// Each curly quote is three bytes where its straight one is one.
	off := func(n int) int { return n + 2*sort.SearchInts(qs, n) }
	return text[off(i):off(i+len(no))], true
}

// straightQuotes returns s with its curly quotes straight, and the offsets
// (in the result) of the quotes it straightened.
func straightQuotes(s string) (string, []int) {
	if !strings.ContainsAny(s, "\u2018\u2019\u201c\u201d") {
		return s, nil
	}
	var b strings.Builder
	var qs []int
	for _, r := range s {
		switch r {
		case '\u2018', '\u2019':
			qs = append(qs, b.Len())
			b.WriteByte('\'')
		case '\u201c', '\u201d':
			qs = append(qs, b.Len())
			b.WriteByte('"')
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), qs
}

// twice reports whether text holds s twice without overlap.
func twice(text, s string) bool {
	i := strings.Index(text, s)
	return i >= 0 && strings.Contains(text[i+len(s):], s)
}

// occurrences are the spans of s in text: the first, or all (left to
// right, without overlap).
func occurrences(text, s string, all bool) [][2]int {
	var out [][2]int
	for from := 0; ; {
		i := strings.Index(text[from:], s)
		if i < 0 {
			return out
		}
		out = append(out, [2]int{from + i, from + i + len(s)})
		from += i + len(s)
		if !all {
			return out
		}
	}
}

// preserveQuoteStyle gives new the file's curly quotes when old was found
// only with its quotes straightened (actual is the file's spelling), as the
// tool does: a quote after white space, an opening bracket, a dash or at the
// start opens, another closes; an apostrophe between letters is a right
// single quote.
func preserveQuoteStyle(old, actual, new string) string {
	if old == actual {
		return new
	}
	double := strings.ContainsAny(actual, "\u201c\u201d")
	single := strings.ContainsAny(actual, "\u2018\u2019")
	if double {
		new = curl(new, '"', '\u201c', '\u201d', false)
	}
	if single {
		new = curl(new, '\'', '\u2018', '\u2019', true)
	}
	return new
}

func curl(s string, q, open, close rune, apostrophes bool) string {
	rs := []rune(s)
	opening := func(i int) bool {
		if i == 0 {
			return true
		}
		switch rs[i-1] {
		case ' ', '\t', '\n', '\r', '(', '[', '{', '\u2014', '\u2013':
			return true
		}
		return false
	}
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[i] = r
		if r != q {
			continue
		}
		switch {
		case apostrophes && i > 0 && i < len(rs)-1 && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1]):
			out[i] = close
		case opening(i):
			out[i] = open
		default:
			out[i] = close
		}
	}
	return string(out)
}

// stripTrailingSpace removes the white space at the end of each line of s
// (lines end at CRLF, LF or CR), as the tool does to a new text outside
// Markdown.
func stripTrailingSpace(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(strings.TrimRightFunc(s, jsSpace))
			break
		}
		b.WriteString(strings.TrimRightFunc(s[:i], jsSpace))
		n := 1
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			n = 2
		}
		b.WriteString(s[i : i+n])
		s = s[i+n:]
	}
	return b.String()
}

// jsSpace is JavaScript's white space (\s): Go's but for U+0085, and U+FEFF.
func jsSpace(r rune) bool {
	switch r {
	case '\u0085':
		return false
	case '\ufeff':
		return true
	}
	return unicode.IsSpace(r)
}

func isMarkdown(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".mdx"
}
