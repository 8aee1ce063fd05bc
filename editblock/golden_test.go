package editblock

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/textdoc"
)

// The golden corpus: each testdata/*.txtar holds a model output ("output"),
// the files it edits ("in/PATH"), the expected per-block results ("results")
// and the expected files afterwards ("want/PATH"; a file without one must be
// unchanged). A section name may carry flags: "crlf" turns its "\n" into
// "\r\n", "nonl" drops its final newline.
//
// A results line is "INDEX PATH STATUS [DETAIL]" as written by describe,
// optionally followed by " ~ TEXT" parts the message must contain.
//
// The corpus runs the way the lead's streaming apply does (apply each block
// as soon as it completes, against the file as the earlier blocks left it),
// once per chunking: whole, byte by byte, and random cuts. Results and files
// must be the same every time.

type section struct{ name, data string }

// parseTxtar reads the txtar format ("-- name --" lines start sections).
func parseTxtar(t *testing.T, text string) []section {
	t.Helper()
	var out []section
	for _, l := range lines.Split(text) {
		c := l.Content
		if strings.HasPrefix(c, "-- ") && strings.HasSuffix(c, " --") && len(c) >= 6 {
			out = append(out, section{name: strings.TrimSpace(c[3 : len(c)-3])})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].data += c + "\n"
		}
	}
	for i, s := range out {
		f := strings.Fields(s.name)
		out[i].name = f[0]
		for _, flag := range f[1:] {
			switch flag {
			case "crlf":
				out[i].data = strings.ReplaceAll(out[i].data, "\n", "\r\n")
			case "nonl":
				out[i].data = strings.TrimSuffix(strings.TrimSuffix(out[i].data, "\n"), "\r")
			default:
				t.Fatalf("section %q: unknown flag %q", s.name, flag)
			}
		}
	}
	return out
}

// applyStream plays the lead's part: feed chunks, apply each block against
// the in-memory files when it completes, report every block, orphan and
// unfinished block in output order.
func applyStream(chunks [][]byte, files map[string]string) (results []string, messages []string, out map[string]string) {
	out = maps(files)
	var p Parser
	emit := func(bs []Block, orph []Orphan) {
		// Blocks and orphans share Index: merge them into output order.
		type item struct {
			b *Block
			o *Orphan
		}
		var items []item
		for i := range bs {
			items = append(items, item{b: &bs[i]})
		}
		for i := range orph {
			items = append(items, item{o: &orph[i]})
		}
		slices.SortFunc(items, func(x, y item) int {
			xi, yi := 0, 0
			if x.b != nil {
				xi = x.b.Index
			} else {
				xi = x.o.Index
			}
			if y.b != nil {
				yi = y.b.Index
			} else {
				yi = y.o.Index
			}
			return xi - yi
		})
		for _, it := range items {
			if it.o != nil {
				path := it.o.Path
				if path == "" {
					path = "-"
				}
				results = append(results, fmt.Sprintf("%d %s orphan %s %d", it.o.Index, path, it.o.Reason, it.o.Line))
				messages = append(messages, it.o.Message)
				continue
			}
			r, msg := applyOne(*it.b, out)
			results = append(results, r)
			messages = append(messages, msg)
		}
	}
	for _, c := range chunks {
		bs := p.Write(c)
		emit(bs, p.Orphans())
	}
	part := p.Close()
	emit(nil, p.Orphans())
	if part != nil {
		path := part.Path
		if path == "" {
			path = "-"
		}
		results = append(results, fmt.Sprintf("%d %s unfinished %d", part.Index, path, part.Line))
		messages = append(messages, part.Message)
	}
	return results, messages, out
}

func maps(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// applyOne applies one block to files, as the lead's apply path would
// (minus guard and disk), and describes the result.
func applyOne(b Block, files map[string]string) (string, string) {
	key := strings.ReplaceAll(b.Path, `\`, "/") // the lead resolves paths; here just the separator
	head := fmt.Sprintf("%d %s", b.Index, b.Path)
	if b.Inherited {
		head += " (inherited)"
	}
	text, exists := files[key]
	if !exists && b.IsCreate() {
		m, d := MatchBlock(hashline.TextSource(""), b, "\n")
		if d != nil {
			return fmt.Sprintf("%s failed %s %d", head, d.Kind, d.Line), d.Message
		}
		files[key] = render(hashline.TextSource(""), m.Plan.Splices)
		return head + " created", ""
	}
	if !exists {
		return head + " failed missing", "no such file"
	}
	if strings.Contains(text[:min(len(text), 8000)], "\x00") {
		return head + " skipped binary", ""
	}
	src := hashline.TextSource(text)
	m, d := MatchBlock(src, b, textdoc.New(text).Dominant())
	switch {
	case d != nil:
		return fmt.Sprintf("%s failed %s %d", head, d.Kind, d.Line), d.Message
	case m.NoOp:
		return head + " noop", ""
	}
	files[key] = render(src, []hashline.Splice{m.Splice})
	return fmt.Sprintf("%s applied %d-%d", head, m.Start, m.End), ""
}

// chunkings returns the output cut in several ways.
func chunkings(text string, seed uint64) map[string][][]byte {
	b := []byte(text)
	cs := map[string][][]byte{"whole": {b}}
	var bytes [][]byte
	for i := range b {
		bytes = append(bytes, b[i:i+1])
	}
	cs["bytes"] = bytes
	r := rand.New(rand.NewPCG(seed, 1))
	for k := range 3 {
		var parts [][]byte
		for rest := b; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(24))
			parts = append(parts, rest[:n])
			rest = rest[n:]
		}
		cs[fmt.Sprintf("random%d", k)] = parts
	}
	return cs
}

func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var output string
			var want []string
			in, wantFiles := map[string]string{}, map[string]string{}
			hasOutput := false
			for _, s := range parseTxtar(t, string(raw)) {
				switch {
				case s.name == "output":
					output, hasOutput = s.data, true
				case s.name == "results":
					for _, l := range strings.Split(strings.TrimSpace(s.data), "\n") {
						if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
							want = append(want, l)
						}
					}
				case strings.HasPrefix(s.name, "in/"):
					in[s.name[3:]] = s.data
				case strings.HasPrefix(s.name, "want/"):
					wantFiles[s.name[5:]] = s.data
				default:
					t.Fatalf("unknown section %q", s.name)
				}
			}
			if !hasOutput || len(want) == 0 {
				t.Fatal("a golden needs output and results")
			}
			for name, chunks := range chunkings(output, uint64(len(output))) {
				results, messages, files := applyStream(chunks, in)
				if len(results) != len(want) {
					t.Fatalf("%s: got %d results, want %d:\n%s", name, len(results), len(want), strings.Join(results, "\n"))
				}
				for i, w := range want {
					parts := strings.Split(w, " ~ ")
					if results[i] != strings.TrimSpace(parts[0]) {
						t.Errorf("%s: result %d:\n got %s\nwant %s\n(message: %s)", name, i, results[i], parts[0], messages[i])
					}
					for _, sub := range parts[1:] {
						if !strings.Contains(messages[i], sub) {
							t.Errorf("%s: result %d message lacks %q:\n%s", name, i, sub, messages[i])
						}
					}
				}
				for f, text := range files {
					exp, ok := wantFiles[f]
					if !ok {
						exp, ok = in[f]
						if !ok {
							t.Errorf("%s: unexpected file %s:\n%s", name, f, text)
							continue
						}
					}
					if text != exp {
						t.Errorf("%s: %s:\n got %q\nwant %q", name, f, text, exp)
					}
				}
				for f := range wantFiles {
					if _, ok := files[f]; !ok {
						t.Errorf("%s: %s was not created", name, f)
					}
				}
				if testing.Verbose() && name == "whole" {
					for i := range results {
						t.Logf("%s\n    %s", results[i], messages[i])
					}
				}
			}
		})
	}
}
