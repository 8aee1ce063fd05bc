package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/workspace"
)

// The symbol discipline benchmark: over commits of real repositories, the
// characters an agent is shown to make exactly each commit's change under
// three disciplines, and whether the change then passes the edit guard:
//
//   - whole: every changed file read whole;
//   - ranges: each hunk's lines read, with the diff's context;
//   - symbol: each hunk's innermost enclosing declaration read by symbol
//     (doc comment included), a hunk outside any declaration read as a
//     range; "symbol+outline" adds an outline of each changed file, for an
//     agent that does not know the declaration's name yet.
//
// The change is then made as hashline edits of the hunks' changed lines,
// through the guard. Run it with
//
//	go test -run '^$' -bench SymbolDiscipline -benchtime 1x ./engine/
var symbolBenchRepos = []struct{ lang, dir string }{
	{"go", "../testdata/conformance/history/google-uuid"},
	{"python", "../testdata/conformance/history/flake8-2016"},
	{"typescript", "../testdata/symbolbench/p-queue"},
	{"rust", "../testdata/symbolbench/walkdir"},
}

type benchFile struct {
	path, before string
	hunks        []patch.Hunk
}

// benchCommits reads the commits of a history directory: each changed file
// of the language, with its text before and its hunks.
func benchCommits(t testing.TB, dir, lang string) [][]benchFile {
	names, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no commits in %s: %v", dir, err)
	}
	var out [][]benchFile
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sections := map[string]string{}
		var cur string
		var buf strings.Builder
		flush := func() {
			if cur != "" {
				sections[cur] = buf.String()
			}
			buf.Reset()
		}
		for l := range strings.Lines(string(b)) {
			if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --\n") {
				flush()
				cur = strings.TrimSuffix(strings.TrimPrefix(l, "-- "), " --\n")
				continue
			}
			buf.WriteString(l)
		}
		flush()
		files, err := patch.Parse(sections["patch"])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var commit []benchFile
		for _, f := range files {
			if f.Kind != patch.Modify || f.NewPath != "" || extract.Language(f.Path, "") != lang {
				continue
			}
			before, ok := sections["before/"+f.Path]
			if !ok {
				before, ok = sections["before/"+f.Path+" noeol"]
				before = strings.TrimSuffix(before, "\n")
			}
			if !ok || before == "" || !utf8.ValidString(before) || strings.Contains(before, "\r") {
				continue
			}
			commit = append(commit, benchFile{f.Path, before, f.Hunks})
		}
		if len(commit) > 0 {
			out = append(out, commit)
		}
	}
	return out
}

// change is a hunk's changed lines of the old text (Start > End: an
// insertion before Start) and their new lines.
type change struct {
	span ledger.Range
	new  []string
}

func changesOf(h patch.Hunk) change {
	pre := 0
	for pre < len(h.Old) && pre < len(h.New) && h.Old[pre] == h.New[pre] {
		pre++
	}
	suf := 0
	for suf < len(h.Old)-pre && suf < len(h.New)-pre && h.Old[len(h.Old)-1-suf] == h.New[len(h.New)-1-suf] {
		suf++
	}
	return change{ledger.Range{Start: h.OldStart + pre, End: h.OldStart + len(h.Old) - suf - 1}, h.New[pre : len(h.New)-suf]}
}

type disciplineCount struct {
	chars, refused, edits int
}

func BenchmarkSymbolDiscipline(b *testing.B) {
	for _, repo := range symbolBenchRepos {
		b.Run(repo.lang, func(b *testing.B) {
			commits := benchCommits(b, repo.dir, repo.lang)
			var counts map[string]*disciplineCount
			for range b.N {
				counts = runSymbolBench(b, commits, repo.lang)
			}
			whole := float64(counts["whole"].chars)
			for _, d := range []string{"whole", "ranges", "symbol", "symbol+outline"} {
				c := counts[d]
				b.ReportMetric(float64(c.chars)/whole, d+"/whole")
				b.ReportMetric(float64(c.refused), d+"-refused")
			}
			b.ReportMetric(float64(counts["whole"].edits), "changes")
			b.ReportMetric(float64(len(commits)), "commits")
		})
	}
}

// runSymbolBench makes every commit's change under each discipline, in a
// workspace of its own, and counts the characters read and the refusals.
func runSymbolBench(b *testing.B, commits [][]benchFile, lang string) map[string]*disciplineCount {
	ctx := context.Background()
	counts := map[string]*disciplineCount{}
	for _, d := range []string{"whole", "ranges", "symbol", "symbol+outline"} {
		counts[d] = &disciplineCount{}
		root := b.TempDir()
		cfg := config.Default()
		cfg.ReadBudget = 1 << 30 // every read whole: the disciplines differ in what they ask for
		env := engine.SetupTest(b, engine.Options{Roots: []string{root}, Config: cfg, NoPersist: true})
		for ci, commit := range commits {
			for _, f := range commit {
				path := filepath.Join(root, fmt.Sprintf("c%03d", ci), filepath.FromSlash(f.path))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(f.before), 0o644); err != nil {
					b.Fatal(err)
				}
				u := string(workspace.FromPath(path))
				read := func(p engine.ReadParams) bool {
					p.TextDocument = engine.TextDocument{URI: u}
					res, err := env.Read(ctx, p)
					if err != nil {
						b.Fatal(err)
					}
					counts[d].chars += utf8.RuneCountInString(res.Content)
					return res.OK
				}
				lines := strings.Split(f.before, "\n")
				total := len(lines)
				if strings.HasSuffix(f.before, "\n") {
					total--
				}
				var chs []change
				for _, h := range f.hunks {
					// A hunk that changes only the final line break
					// changes no line here.
					if c := changesOf(h); c.span.Start <= c.span.End || len(c.new) > 0 {
						chs = append(chs, c)
					}
				}
				if len(chs) == 0 {
					continue
				}
				switch d {
				case "whole":
					read(engine.ReadParams{})
				case "ranges":
					for _, h := range f.hunks {
						r := ledger.Range{Start: max(h.OldStart, 1), End: max(h.OldStart+len(h.Old)-1, h.OldStart)}
						read(engine.ReadParams{Range: &r})
					}
				default:
					if d == "symbol+outline" {
						res, err := env.Outline(ctx, engine.OutlineParams{TextDocument: engine.TextDocument{URI: u}})
						if err != nil || !res.OK {
							b.Fatal(err, res.Message)
						}
						counts[d].chars += utf8.RuneCountInString(ops.Outline.Text(res))
					}
					readSymbols(b, f, lang, chs, lines, read)
				}
				// The change, as hashline edits of the changed lines.
				var edits []map[string]any
				hash := func(n int) string { return fmt.Sprintf("%d:%s", n, hashline.Hash(lines[n-1])) }
				for _, c := range chs {
					content := strings.Join(c.new, "\n")
					switch {
					case c.span.Start <= c.span.End && len(c.new) == 0:
						edits = append(edits, map[string]any{"type": "delete_range", "start_ref": hash(c.span.Start), "end_ref": hash(c.span.End)})
					case c.span.Start <= c.span.End:
						edits = append(edits, map[string]any{"type": "replace_range", "start_ref": hash(c.span.Start), "end_ref": hash(c.span.End), "new_content": content})
					case c.span.Start > 1:
						edits = append(edits, map[string]any{"type": "insert_after", "ref": hash(c.span.Start - 1), "new_content": content})
					default:
						edits = append(edits, map[string]any{"type": "insert_before", "ref": hash(c.span.Start), "new_content": content})
					}
				}
				raw, _ := json.Marshal(edits)
				res, err := env.Edit(ctx, engine.EditParams{TextDocument: engine.TextDocument{URI: u}, Edits: raw})
				if err != nil {
					b.Fatal(err)
				}
				counts[d].edits++
				if !res.OK {
					counts[d].refused++
					if testing.Verbose() {
						b.Logf("%s c%03d %s: %s %s", d, ci, f.path, res.Error, res.Message)
					}
				}
			}
		}
	}
	return counts
}

// readSymbols reads each change's innermost enclosing declaration by
// symbol (once per declaration), or the change's hunk lines when no
// declaration encloses it or its name means several.
func readSymbols(b *testing.B, f benchFile, lang string, chs []change, lines []string, read func(engine.ReadParams) bool) {
	ls := make([]extract.Line, len(lines))
	for i, l := range lines {
		ls[i] = extract.Line{N: i + 1, Content: l}
	}
	syms := extract.NewRegex().Extract(lang, ls)
	q := extract.Qualify(syms)
	line := func(n int) string { return lines[n-1] }
	done := map[int]bool{}
	var ranges ledger.RangeSet
	for _, c := range chs {
		// The lines the edit names: the changed ones, or the insertion's
		// neighbours.
		want := c.span
		if want.Start > want.End {
			want = ledger.Range{Start: max(c.span.Start-1, 1), End: max(c.span.Start-1, 1)}
		}
		best, bestLen := -1, 0
		for i, s := range syms {
			st, en := extract.Span(lang, s, line)
			if st <= want.Start && want.End <= en && (best < 0 || en-st < bestLen) {
				best, bestLen = i, en-st
			}
		}
		if best >= 0 && holds(syms, best) {
			// A class or impl around the change, which no member of it
			// encloses (a field, an import): its lines, not all its
			// members.
			best = -1
		}
		if best >= 0 {
			if done[best] {
				continue
			}
			done[best] = true
			if m, _ := extract.Find(syms, q, q[best]); len(m) == 1 {
				if !read(engine.ReadParams{Symbol: q[best]}) {
					b.Fatalf("%s: read %s refused", f.path, q[best])
				}
				continue
			}
			// Overloads, or a name twice: the declaration's lines.
			st, en := extract.Span(lang, syms[best], line)
			r := ledger.Range{Start: st, End: en}
			read(engine.ReadParams{Range: &r})
			continue
		}
		ranges.Add(want)
	}
	for _, r := range ranges.Ranges() {
		// Outside any declaration: the lines with the diff's context.
		r := ledger.Range{Start: max(r.Start-3, 1), End: min(r.End+3, len(lines))}
		read(engine.ReadParams{Range: &r})
	}
}

// holds reports whether declaration i contains others (its members).
func holds(syms []extract.Symbol, i int) bool {
	for j, s := range syms {
		if j != i && s.Start > syms[i].Start && s.Start <= syms[i].End {
			return true
		}
	}
	return false
}
