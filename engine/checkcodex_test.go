package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// codexModel is a reference model of how Codex's apply_patch places a
// file's chunks, written from its source (codex-rs/apply-patch: lib.rs's
// compute_replacements, seek_sequence.rs) apart from the engine's own
// implementation: the lines each chunk replaces, or the chunk it finds no
// place for, or overlap when its replacements collide.
type codexModel struct {
	changed  []int // 1-based lines, sorted
	notFound int   // the chunk with no place, or -1
	overlap  bool
}

func modelLines(text string, keepCR bool) []string {
	var out []string
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		l := text[:i]
		if !keepCR {
			l = strings.TrimSuffix(l, "\r")
		}
		out = append(out, l)
		text = text[i+1:]
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}

func whiteSpace(r rune) bool { return unicode.Is(unicode.White_Space, r) }

var modelPunct = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ", "\u2007", " ",
	"\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ")

// modelSeek is seek_sequence: -1 when not found.
func modelSeek(lines, pattern []string, start int, eof bool) int {
	if len(pattern) == 0 {
		return start
	}
	if len(pattern) > len(lines) {
		return -1
	}
	if eof && len(lines)-len(pattern) > start {
		start = len(lines) - len(pattern) // the end, never before the cursor
	}
	norms := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRightFunc(s, whiteSpace) },
		func(s string) string { return strings.TrimFunc(s, whiteSpace) },
		func(s string) string { return modelPunct.Replace(strings.TrimFunc(s, whiteSpace)) },
	}
	for _, n := range norms {
	positions:
		for i := start; i+len(pattern) <= len(lines); i++ {
			for j := range pattern {
				if n(lines[i+j]) != n(pattern[j]) {
					continue positions
				}
			}
			return i
		}
	}
	return -1
}

func modelPlace(lines []string, hunks []engine.CheckHunk) codexModel {
	type repl struct {
		start, old int
		appended   bool
	}
	var rs []repl
	idx := 0
	for k, h := range hunks {
		for _, a := range h.Anchors {
			at := modelSeek(lines, []string{a}, idx, false)
			if at < 0 {
				return codexModel{notFound: k}
			}
			idx = at + 1
		}
		if len(h.Old) == 0 {
			// Appended at the end (0.169 on); before a last empty line
			// before it.
			rs = append(rs, repl{len(lines), 0, true})
			continue
		}
		pat := h.Old
		at := modelSeek(lines, pat, idx, h.EOF)
		if at < 0 && pat[len(pat)-1] == "" {
			pat = pat[:len(pat)-1]
			at = modelSeek(lines, pat, idx, h.EOF)
		}
		if at < 0 {
			return codexModel{notFound: k}
		}
		rs = append(rs, repl{at, len(pat), false})
		idx = at + len(pat)
	}
	slices.SortStableFunc(rs, func(a, b repl) int { return a.start - b.start })
	m := codexModel{notFound: -1}
	n := len(lines)
	blankEnd := n > 0 && lines[n-1] == ""
	for i, r := range rs {
		if i > 0 && (rs[i-1].start+rs[i-1].old > r.start || rs[i-1].start == r.start) {
			return codexModel{notFound: -1, overlap: true}
		}
		for l := r.start + 1; l <= r.start+r.old; l++ {
			m.changed = append(m.changed, l)
		}
		if r.old == 0 && r.start >= 1 {
			m.changed = append(m.changed, r.start)
		}
		if r.appended && blankEnd {
			if n >= 2 {
				m.changed = append(m.changed, n-1)
			}
			for _, o := range rs {
				if !o.appended && (o.start+o.old > n-1 || o.start == n-1) {
					return codexModel{notFound: -1, overlap: true}
				}
			}
		}
	}
	slices.Sort(m.changed)
	m.changed = slices.Compact(m.changed)
	return m
}

// The words of generated files, and the ways a file or a model spells them.
var (
	codexWords = []string{"foo", "bar", "x = 1", "a - b", "say 'hi'", `say "hi"`, "end", "", "}"}
	codexLead  = []string{"", "", "  ", "\t", "\u3000"}
	codexTrail = []string{"", "", " ", "  ", "\t"}
)

func spell(t *rapid.T, word, label string) string {
	if rapid.IntRange(0, 2).Draw(t, label+"typo") == 0 {
		word = strings.NewReplacer("-", rapid.SampledFrom([]string{"-", "\u2013", "\u2014", "\u2212"}).Draw(t, label+"dash"),
			"'", rapid.SampledFrom([]string{"'", "\u2019"}).Draw(t, label+"quote"),
			`"`, rapid.SampledFrom([]string{`"`, "\u201C"}).Draw(t, label+"dquote"),
			" ", rapid.SampledFrom([]string{" ", "\u00A0"}).Draw(t, label+"space")).Replace(word)
	}
	return rapid.SampledFrom(codexLead).Draw(t, label+"lead") + word + rapid.SampledFrom(codexTrail).Draw(t, label+"trail")
}

// TestCheckSeeksAsCodex: whatever the file and the hunks (trailing and
// leading whitespace, typographic punctuation, several hunks and the
// cursor between them, @@ lines, End of File, a last empty context line,
// added lines alone), the lines the check judges for Codex's hunks are
// exactly those the reference model of Codex's apply_patch replaces; a hunk
// it finds no place for is unmatched, and colliding ones are refused.
func TestCheckSeeksAsCodex(t *testing.T) {
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		n++
		words := rapid.SliceOfN(rapid.IntRange(0, len(codexWords)-1), 1, 10).Draw(t, "words")
		file := make([]string, len(words))
		for i, w := range words {
			file[i] = spell(t, codexWords[w], fmt.Sprint("f", i))
		}
		term := rapid.SampledFrom([]string{"\n", "\n", "\r\n"}).Draw(t, "term")
		text := strings.Join(file, term)
		if rapid.Bool().Draw(t, "final break") {
			text += term
		}
		var hunks []engine.CheckHunk
		for k := range rapid.IntRange(1, 3).Draw(t, "hunks") {
			label := fmt.Sprint("h", k)
			var h engine.CheckHunk
			if rapid.IntRange(0, 3).Draw(t, label+"anchor") == 0 {
				h.Anchors = []string{spell(t, codexWords[rapid.SampledFrom(words).Draw(t, label+"aw")], label+"a")}
			}
			if rapid.IntRange(0, 6).Draw(t, label+"addOnly") > 0 {
				at := rapid.IntRange(0, len(words)-1).Draw(t, label+"at")
				size := rapid.IntRange(1, min(3, len(words)-at)).Draw(t, label+"size")
				for j := at; j < at+size; j++ {
					w := codexWords[words[j]]
					if rapid.IntRange(0, 9).Draw(t, fmt.Sprint(label, "other", j)) == 0 {
						w = rapid.SampledFrom(codexWords).Draw(t, fmt.Sprint(label, "ow", j))
					}
					h.Old = append(h.Old, spell(t, w, fmt.Sprint(label, "o", j)))
				}
				if rapid.IntRange(0, 3).Draw(t, label+"blank") == 0 {
					h.Old = append(h.Old, "")
				}
				h.EOF = rapid.IntRange(0, 3).Draw(t, label+"eof") == 0
			}
			h.New = append(slices.Clone(h.Old), "new")
			hunks = append(hunks, h)
		}

		u := string(workspace.FromPath(filepath.Join(root, fmt.Sprintf("f%d.txt", n))))
		env.WS.Open(u, "plaintext", 1, text)
		defer env.WS.CloseBuffer(u)
		res, err := env.Check(context.Background(), engine.CheckParams{Caller: engine.Caller{Session: "s"},
			TextDocument: engine.TextDocument{URI: u}, Hunks: hunks, Dialect: engine.DialectCodex, NoExpand: true})
		if err != nil {
			t.Fatal(err)
		}
		want := modelPlace(modelLines(text, false), hunks)
		if term == "\r\n" && res.Error == result.Unjudged && !reflectEqual(modelPlace(modelLines(text, true), hunks), want) {
			return // the releases' readings of CRLF lines differ
		}
		switch {
		case want.overlap:
			if res.Error != result.Unjudged {
				t.Fatalf("colliding hunks not refused: %+v", res)
			}
		case want.notFound >= 0:
			if !slices.Equal(res.Unmatched, []int{want.notFound}) {
				t.Fatalf("hunk %d has no place for Codex; the check: unmatched %v, %s %s", want.notFound, res.Unmatched, res.Error, res.Message)
			}
		default:
			if res.Error == result.Unjudged || len(res.Unmatched) > 0 {
				t.Fatalf("the check did not place what Codex places: %s %s, unmatched %v", res.Error, res.Message, res.Unmatched)
			}
			var got []int
			for _, r := range res.Targets {
				for l := r.Start; l <= r.End; l++ {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, want.changed) && !(len(got) == 0 && len(want.changed) == 0) {
				t.Fatalf("judged lines %v, Codex replaces %v\nfile %q\nhunks %+v", got, want.changed, text, hunks)
			}
		}
	})
}

func reflectEqual(a, b codexModel) bool {
	return a.overlap == b.overlap && a.notFound == b.notFound && slices.Equal(a.changed, b.changed)
}

// TestCheckSeekUnknown: a placement the check does not know is an error,
// never sightline's own placement in its stead.
func TestCheckSeekUnknown(t *testing.T) {
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(root, "f.txt")))
	env.WS.Open(u, "plaintext", 1, "a\n")
	_, err := env.Check(context.Background(), engine.CheckParams{Caller: engine.Caller{Session: "s"}, TextDocument: engine.TextDocument{URI: u},
		Hunks: []engine.CheckHunk{{Old: []string{"a"}, New: []string{"b"}}}, Dialect: "Codex"})
	if result.KindOf(err) != result.InvalidParams {
		t.Fatalf("seek Codex: %v", err)
	}
}
