package extract

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden files in testdata/*.txtar: a comment, then sections "-- lang --",
// "-- src --", "-- want --" (one JSON symbol per line) and optionally
// "-- want.treesitter --" where the engines legitimately differ. Every
// golden runs twice: as written and with CRLF line ends.
//
//	go test ./extract/ -run TestGolden -update   # rewrite want from the regex engine

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txtar from the regex engine")

type golden struct {
	path     string
	comment  string
	sections map[string]string
	order    []string
}

func readGolden(t *testing.T, path string) *golden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := &golden{path: path, sections: map[string]string{}}
	name := ""
	var cur strings.Builder
	flush := func() {
		if name == "" {
			g.comment = cur.String()
		} else {
			g.sections[name] = cur.String()
			g.order = append(g.order, name)
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(strings.TrimRight(line, "\n"), " --") {
			flush()
			name = strings.TrimSuffix(strings.TrimPrefix(strings.TrimRight(line, "\n"), "-- "), " --")
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return g
}

func (g *golden) write() error {
	var b strings.Builder
	b.WriteString(g.comment)
	for _, name := range g.order {
		b.WriteString("-- " + name + " --\n")
		b.WriteString(g.sections[name])
	}
	return os.WriteFile(g.path, []byte(b.String()), 0o644)
}

func srcLines(src string, crlf bool) []Line {
	src = strings.TrimSuffix(src, "\n")
	var out []Line
	for i, s := range strings.Split(src, "\n") {
		if crlf {
			s += "\r"
		}
		out = append(out, Line{N: i + 1, Content: s})
	}
	return out
}

func encodeSyms(syms []Symbol) string {
	var b bytes.Buffer
	for _, s := range syms {
		s.Signature = ""
		j, _ := json.Marshal(s)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// runGoldens checks one engine against every golden file.
func runGoldens(t *testing.T, x Extractor, engine string) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			g := readGolden(t, path)
			lang := strings.TrimSpace(g.sections["lang"])
			src := g.sections["src"]
			got := x.Extract(lang, srcLines(src, false))
			for _, s := range got {
				if s.Signature == "" || strings.HasSuffix(s.Signature, "\r") {
					t.Errorf("%s: bad signature %q", s.Name, s.Signature)
				}
			}
			gotText := encodeSyms(got)
			if *update && engine == "regex" {
				if _, ok := g.sections["want"]; !ok {
					g.order = append(g.order, "want")
				}
				g.sections["want"] = gotText
				if err := g.write(); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, ok := g.sections["want."+engine]
			if !ok {
				want = g.sections["want"]
			}
			if gotText != want {
				t.Errorf("%s engine, got:\n%swant:\n%s", engine, gotText, want)
			}
			if crlf := encodeSyms(x.Extract(lang, srcLines(src, true))); crlf != gotText {
				t.Errorf("%s engine, CRLF input gives:\n%swhile LF gives:\n%s", engine, crlf, gotText)
			}
		})
	}
}

func TestGoldenRegex(t *testing.T) {
	runGoldens(t, NewRegex(), "regex")
}

// TestSubRange: a part of a file that starts inside a body is read as if
// it started at the top level, and still finds the declarations after it.
func TestSubRange(t *testing.T) {
	src := "func a() {\n\tx := 1\n\tif x > 0 {\n\t\treturn\n\t}\n}\n\nfunc b() {}\n"
	lines := srcLines(src, false)[2:] // from "if x > 0 {"
	got := NewRegex().Extract("go", lines)
	if len(got) != 1 || got[0].Name != "b" || got[0].Start != 8 || got[0].End != 8 {
		t.Fatalf("got %+v", got)
	}
}

// TestExtractFirst: stopping early gives the first symbols of a full
// extraction, and one more than asked for when there are more.
func TestExtractFirst(t *testing.T) {
	x := NewRegex()
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range files {
		g := readGolden(t, path)
		lang := strings.TrimSpace(g.sections["lang"])
		lines := srcLines(g.sections["src"], false)
		all := x.Extract(lang, lines)
		for max := 1; max <= 3; max++ {
			first := x.ExtractFirst(lang, lines, max)
			if len(first) != min(max+1, len(all)) {
				t.Fatalf("%s: ExtractFirst(%d) gave %d symbols of %d", path, max, len(first), len(all))
			}
			for i, s := range first {
				if s.Name != all[i].Name || s.Start != all[i].Start {
					t.Errorf("%s: ExtractFirst(%d)[%d] = %s@%d, want %s@%d", path, max, i, s.Name, s.Start, all[i].Name, all[i].Start)
				}
			}
		}
	}
}

func TestNew(t *testing.T) {
	if x, err := New("regex"); err != nil || x == nil {
		t.Fatalf("regex: %v", err)
	}
	if x, err := New(""); err != nil || x == nil {
		t.Fatalf("default: %v", err)
	}
	if x, _ := New("regex"); x != nil {
		if _, ok := x.(FirstExtractor); !ok {
			t.Fatal("regex engine is not a FirstExtractor")
		}
	}
	if _, err := New("magic"); err == nil {
		t.Fatal("unknown engine accepted")
	}
}

func TestHintSummary(t *testing.T) {
	syms := []Symbol{
		{Name: "handleAuth", Kind: "func"},
		{Name: "refresh", Kind: "method", Container: "TokenCache"},
		{Name: "TokenCache", Kind: "class"},
	}
	if got, want := Summary(syms, 8), "func handleAuth(), func TokenCache.refresh(), class TokenCache"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, want := Summary(syms, 1), "func handleAuth(), …"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestLanguage(t *testing.T) {
	for _, c := range []struct{ file, id, want string }{
		{"a.go", "", "go"}, {"a.tsx", "", "typescript"}, {"x", "typescriptreact", "typescript"},
		{"a.mjs", "", "javascript"}, {"a.pyi", "", "python"}, {"a.rs", "", "rust"},
		{"A.java", "", "java"}, {"a.h", "", "c"}, {"a.hpp", "", "cpp"}, {"Rakefile", "", "ruby"},
		{"a.txt", "", ""}, {"a.h", "cpp", "cpp"},
	} {
		if got := Language(c.file, c.id); got != c.want {
			t.Errorf("Language(%q, %q) = %q, want %q", c.file, c.id, got, c.want)
		}
	}
}
