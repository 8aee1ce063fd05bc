//go:build treesitter

package extract

// The accuracy harness: the regex engine measured against tree-sitter on
// real code nobody here wrote, taken from what the machine has (Go's and
// Python's standard libraries, the JDK's src.zip, Rust's standard library
// sources, Ruby's standard library, C and C++ headers and examples, npm
// packages with TypeScript sources). The corpus is not committed; the test
// skips unless SIGHTLINE_ACCURACY=1. See docs/extract-accuracy.md.
//
//	SIGHTLINE_ACCURACY=1 CGO_ENABLED=1 go test -tags treesitter -run TestAccuracy -v -timeout 30m ./extract/
//
// Corpus roots are found automatically; SIGHTLINE_CORPUS_<LANG> (a
// colon-separated list of folders or .zip files) overrides them, e.g.
// SIGHTLINE_CORPUS_TYPESCRIPT=/tmp/npm. SIGHTLINE_ACCURACY_DUMP=file writes
// every disagreement there; SIGHTLINE_ACCURACY_REPORT=file writes the table.

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

type corpusFile struct {
	name string
	data []byte
}

type corpusSpec struct {
	lang  string
	roots []string
	match func(path string) bool
	note  string
}

func hasExt(exts ...string) func(string) bool {
	return func(p string) bool {
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				return true
			}
		}
		return false
	}
}

func cmdOut(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func globAll(patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		m, _ := filepath.Glob(p)
		out = append(out, m...)
	}
	return out
}

func defaultCorpora() []corpusSpec {
	goroot := cmdOut("go", "env", "GOROOT")
	gomod := cmdOut("go", "env", "GOMODCACHE")
	pystd := cmdOut("python3", "-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])")
	notTestdata := func(f func(string) bool) func(string) bool {
		return func(p string) bool { return f(p) && !strings.Contains(p, "/testdata/") }
	}
	cppHeader := func(p string) bool {
		// libstdc++ headers have no extension.
		base := filepath.Base(p)
		return hasExt(".h", ".hpp", ".cc", ".cpp", ".tcc")(p) || !strings.Contains(base, ".")
	}
	return []corpusSpec{
		{lang: "go", roots: []string{filepath.Join(goroot, "src")}, match: notTestdata(hasExt(".go")),
			note: "Go standard library (`$(go env GOROOT)/src`, testdata excluded)"},
		{lang: "python", roots: []string{pystd}, match: func(p string) bool {
			return hasExt(".py")(p) && !strings.Contains(p, "site-packages")
		}, note: "Python standard library (`sysconfig` stdlib path, site-packages excluded)"},
		{lang: "typescript", roots: []string{"/tmp/corpus/npm"}, match: func(p string) bool {
			return hasExt(".ts", ".tsx")(p) && !strings.HasSuffix(p, ".d.ts")
		}, note: "`.ts` sources (not `.d.ts`) of the npm packages rxjs@7, zod@3, @tanstack/query-core@5 (`npm pack`, unpacked under /tmp/corpus/npm)"},
		{lang: "javascript", roots: []string{"/usr/lib/node_modules/npm"}, match: hasExt(".js"),
			note: "npm's own sources and bundled dependencies (`/usr/lib/node_modules/npm`)"},
		{lang: "rust", roots: globAll("/usr/src/rustc-*/library"), match: notTestdata(hasExt(".rs")),
			note: "Rust standard library sources (Debian package rust-src, `/usr/src/rustc-*/library`)"},
		{lang: "java", roots: globAll("/usr/lib/jvm/*/lib/src.zip"), match: func(p string) bool {
			return hasExt(".java")(p) && strings.HasPrefix(p, "java.base/")
		}, note: "JDK `java.base` sources from the installed JDK's `src.zip` (Temurin 25 here; the OpenJDK 17 package's src.zip link is dangling)"},
		{lang: "c", roots: append([]string{filepath.Join(goroot, "src/runtime/cgo"), "/usr/share/doc",
			filepath.Join(gomod, "modernc.org")}, globAll("/usr/include/*.h")...),
			match: func(p string) bool {
				return hasExt(".c", ".h")(p) && !strings.Contains(p, "/c++/")
			}, note: "C files on the machine: `/usr/include/*.h`, examples under `/usr/share/doc`, Go's runtime/cgo, and the C test programs in the module cache (modernc.org libc-test and sqlite test sources)"},
		{lang: "cpp", roots: append(globAll("/usr/include/c++/*"), "/usr/src/googletest", "/usr/include/fmt"), match: cppHeader,
			note: "libstdc++ headers (`/usr/include/c++/12`), GoogleTest sources (Debian libgtest-dev, `/usr/src/googletest`), {fmt} headers (libfmt-dev)"},
		{lang: "ruby", roots: globAll("/usr/lib/ruby/[0-9]*"), match: hasExt(".rb"),
			note: "Ruby standard library (Debian libruby3.1, `/usr/lib/ruby/3.1.0`)"},
	}
}

// loadCorpus reads the files of roots that match, sampling evenly so the
// total stays under maxBytes.
func loadCorpus(roots []string, match func(string) bool, maxBytes int) []corpusFile {
	type ref struct {
		path string
		size int64
		zipf *zip.File
	}
	var refs []ref
	for _, root := range roots {
		if root == "" {
			continue
		}
		if strings.HasSuffix(root, ".zip") {
			zr, err := zip.OpenReader(root)
			if err != nil {
				continue
			}
			// The reader stays open for the test's life.
			for _, f := range zr.File {
				if match(f.Name) {
					refs = append(refs, ref{path: root + "!" + f.Name, size: int64(f.UncompressedSize64), zipf: f})
				}
			}
			continue
		}
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !match(p) {
				return nil
			}
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() && info.Size() < 2<<20 {
				refs = append(refs, ref{path: p, size: info.Size()})
			}
			return nil
		})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].path < refs[j].path })
	var total int64
	for _, r := range refs {
		total += r.size
	}
	stride := 1
	if total > int64(maxBytes) {
		stride = int(total/int64(maxBytes)) + 1
	}
	var out []corpusFile
	for i := 0; i < len(refs); i += stride {
		r := refs[i]
		var data []byte
		if r.zipf != nil {
			rc, err := r.zipf.Open()
			if err != nil {
				continue
			}
			data, _ = io.ReadAll(rc)
			rc.Close()
		} else {
			data, _ = os.ReadFile(r.path)
		}
		if minified(data) {
			continue
		}
		out = append(out, corpusFile{name: r.path, data: data})
	}
	return out
}

// minified reports generated one-line code, which nobody reads as text.
func minified(b []byte) bool {
	lines := 1 + strings.Count(string(b), "\n")
	return len(b)/lines > 300
}

func splitLines(b []byte) []Line {
	s := strings.Split(string(b), "\n")
	if len(s) > 0 && s[len(s)-1] == "" {
		s = s[:len(s)-1]
	}
	out := make([]Line, len(s))
	for i, c := range s {
		out[i] = Line{N: i + 1, Content: c}
	}
	return out
}

type tally struct{ truth, got, hit int }

func (t tally) p() float64 {
	if t.got == 0 {
		return 1
	}
	return float64(t.hit) / float64(t.got)
}

func (t tally) r() float64 {
	if t.truth == 0 {
		return 1
	}
	return float64(t.hit) / float64(t.truth)
}

// pairTally counts agreement on declarations (non-methods) and methods.
type pairTally struct{ top, methods tally }

func (p *pairTally) add(truth, got []Symbol) {
	type key struct {
		name string
		line int
	}
	want := map[key]int{}
	for _, s := range truth {
		want[key{s.Name, s.Start}] = category(s.Kind)
		if category(s.Kind) == 1 {
			p.methods.truth++
		} else {
			p.top.truth++
		}
	}
	for _, s := range got {
		t := &p.top
		if category(s.Kind) == 1 {
			t = &p.methods
		}
		t.got++
		if c, ok := want[key{s.Name, s.Start}]; ok && c == category(s.Kind) {
			t.hit++
		}
	}
}

type langResult struct {
	all                    pairTally // every sampled file, parse errors or not
	spec                   corpusSpec
	files, clean, lines    int
	bytes                  int64
	top, methods           tally
	regexTime              time.Duration
	mismatchFP, mismatchFN int
}

func category(kind string) int {
	if kind == "method" {
		return 1
	}
	return 0
}

func TestAccuracy(t *testing.T) {
	if os.Getenv("SIGHTLINE_ACCURACY") != "1" {
		t.Skip("set SIGHTLINE_ACCURACY=1 to run the accuracy harness on the machine's corpus")
	}
	rx, ts := NewRegex(), NewTreeSitter()
	var dump *os.File
	if p := os.Getenv("SIGHTLINE_ACCURACY_DUMP"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		dump = f
	}
	var results []langResult
	for _, spec := range defaultCorpora() {
		if env := os.Getenv("SIGHTLINE_CORPUS_" + strings.ToUpper(spec.lang)); env != "" {
			spec.roots = filepath.SplitList(env)
			spec.note = "SIGHTLINE_CORPUS_" + strings.ToUpper(spec.lang) + "=" + env
		}
		if only := os.Getenv("SIGHTLINE_ACCURACY_LANG"); only != "" && only != spec.lang {
			continue
		}
		files := loadCorpus(spec.roots, spec.match, 40<<20)
		res := langResult{spec: spec, files: len(files)}
		for _, f := range files {
			lines := splitLines(f.data)
			truth, bad := ts.extract(spec.lang, lines)
			t1 := time.Now()
			got := rx.Extract(spec.lang, lines)
			elapsed := time.Since(t1)
			if bad {
				// Tree-sitter could not parse all of it: its symbols are
				// no ground truth. Counted apart, for information.
				res.all.add(truth, got)
				continue
			}
			res.all.add(truth, got)
			res.regexTime += elapsed
			res.clean++
			res.lines += len(lines)
			res.bytes += int64(len(f.data))
			type key struct {
				name string
				line int
				cat  int
			}
			want := map[key]Symbol{}
			for _, s := range truth {
				want[key{s.Name, s.Start, category(s.Kind)}] = s
			}
			have := map[key]Symbol{}
			for _, s := range got {
				have[key{s.Name, s.Start, category(s.Kind)}] = s
			}
			for k, s := range want {
				tl := &res.top
				if k.cat == 1 {
					tl = &res.methods
				}
				tl.truth++
				if _, ok := have[k]; ok {
					tl.hit++
				} else if dump != nil {
					res.mismatchFN++
					fmt.Fprintf(dump, "%s FN %s:%d %s %s [%s] | %s\n", spec.lang, f.name, s.Start, s.Kind, s.Name, s.Container, s.Signature)
				}
			}
			for k, s := range have {
				tl := &res.top
				if k.cat == 1 {
					tl = &res.methods
				}
				tl.got++
				if _, ok := want[k]; !ok && dump != nil {
					res.mismatchFP++
					fmt.Fprintf(dump, "%s FP %s:%d %s %s [%s] | %s\n", spec.lang, f.name, s.Start, s.Kind, s.Name, s.Container, s.Signature)
				}
			}
		}
		results = append(results, res)
		t.Logf("%-10s files %d (clean %d) P %.3f R %.3f | methods P %.3f R %.3f", spec.lang, res.files, res.clean,
			res.top.p(), res.top.r(), res.methods.p(), res.methods.r())
	}
	report := accuracyReport(results)
	t.Log("\n" + report)
	if p := os.Getenv("SIGHTLINE_ACCURACY_REPORT"); p != "" {
		if err := os.WriteFile(p, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func accuracyReport(rs []langResult) string {
	var b strings.Builder
	b.WriteString("| language | files (parsed cleanly / sampled) | lines | MB | declarations: truth / regex / both | precision | recall | methods: truth / regex / both | precision | recall | regex MB/s |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		mbs := 0.0
		if r.regexTime > 0 {
			mbs = float64(r.bytes) / 1e6 / r.regexTime.Seconds()
		}
		fmt.Fprintf(&b, "| %s | %d / %d | %d | %.1f | %d / %d / %d | %.3f | %.3f | %d / %d / %d | %.3f | %.3f | %.0f |\n",
			r.spec.lang, r.clean, r.files, r.lines, float64(r.bytes)/1e6,
			r.top.truth, r.top.got, r.top.hit, r.top.p(), r.top.r(),
			r.methods.truth, r.methods.got, r.methods.hit, r.methods.p(), r.methods.r(), mbs)
	}
	b.WriteString("\nThe same counts over every sampled file, including those tree-sitter parsed with errors (whose \"truth\" misses or misplaces declarations, so these numbers are a floor, for information):\n\n")
	b.WriteString("| language | files | declarations: precision | recall | methods: precision | recall |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", r.spec.lang, r.files,
			r.all.top.p(), r.all.top.r(), r.all.methods.p(), r.all.methods.r())
	}
	b.WriteString("\nCorpus:\n\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- %s: %s\n", r.spec.lang, r.spec.note)
	}
	return b.String()
}
