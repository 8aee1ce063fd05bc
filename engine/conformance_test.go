package engine_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/internal/testarchive"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// The conformance suites: the peers' own published cases (Codex's
// apply-patch scenarios, aider's edit-block and udiff tests) and real
// history (every commit of a Go repository as `git format-patch` applied to
// its parent), under testdata/conformance with their licenses. Each case is
// applied through the Env (every file read first, as the guard wants) and
// the workspace compared with what the peer makes of it.

// confCase is one case of a suite.
type confCase struct {
	name  string
	kind  string // "patch" or "blocks"
	text  string
	input map[string]string
	// want is the workspace the peer leaves (nil when wantBlob says it).
	want map[string]string
	// wantBlob: git blob ids of the files the commit leaves ("" deleted).
	wantBlob map[string]string
	// peerRefuses says the peer applies nothing.
	peerRefuses bool
	// design says why sightline does not do what the peer does, by design;
	// designWant, when set, is the workspace sightline leaves instead.
	design     string
	designWant map[string]string
}

// confTally is a suite's row of the table.
type confTally struct {
	cases, peerApplies, exact, design, bothRefuse, otherRefused, wrong int
	// designApplied counts the by-design cases the peer applies.
	designApplied int
	reasons       []string
}

func TestConformance(t *testing.T) {
	suites := []struct {
		name  string
		cases func(t *testing.T) []confCase
	}{
		{"codex scenarios", codexCases},
		{"codex unit cases", codexUnitCases},
		{"aider", aiderCases},
	}
	// The history suites run first: google/uuid's format-patch row is also
	// a row of the peers' table.
	history := runHistory(t)
	var table strings.Builder
	fmt.Fprintf(&table, "%-20s %6s %6s %6s %7s %7s %7s %6s\n", "suite", "cases", "peer", "exact", "design", "both", "other", "wrong")
	var all confTally
	for _, s := range suites {
		var tl confTally
		for _, c := range s.cases(t) {
			runConfCase(t, c, &tl)
		}
		tl.row(t, &table, s.name)
		all.add(tl)
	}
	uuid := history[0].tally["patch"]
	tl := confTally{cases: uuid.cases, peerApplies: uuid.cases, exact: uuid.exact, otherRefused: uuid.refused, wrong: uuid.wrong, reasons: uuid.reasons}
	tl.row(t, &table, "google/uuid history")
	all.add(tl)
	fmt.Fprintf(&table, "%-20s %6d %6d %6d %7d %7d %7d %6d  (%.1f%% of what the peers apply is exact)\n", "all", all.cases, all.peerApplies, all.exact, all.design, all.bothRefuse, all.otherRefused, all.wrong,
		100*float64(all.exact)/float64(all.peerApplies))
	// Over everything the peers apply, by-design refusals included.
	if all.exact*100 < 95*all.peerApplies {
		t.Errorf("%d of the %d cases the peers apply are exact, under 95%%", all.exact, all.peerApplies)
	}
	t.Logf("peer: cases the peer applies; design: refused (or made otherwise) by design, with the reason; both: the peer refuses too; other: refusals not by design\n%s", table.String())
}

// row prints a suite's row of the table, with its reasons, and fails the
// test on a wrong case or too few exact ones.
func (tl confTally) row(t *testing.T, table *strings.Builder, name string) {
	t.Helper()
	fmt.Fprintf(table, "%-20s %6d %6d %6d %7d %7d %7d %6d\n", name, tl.cases, tl.peerApplies, tl.exact, tl.design, tl.bothRefuse, tl.otherRefused, tl.wrong)
	for _, r := range tl.reasons {
		fmt.Fprintf(table, "    %s\n", r)
	}
	if tl.wrong > 0 {
		t.Errorf("%s: %d wrong", name, tl.wrong)
	}
	// Fuzzy matches, first-of-several matches and partial writes stay
	// refused by design (each with its reason above): the rest of what the
	// peer applies must be exact.
	if n := tl.peerApplies - tl.designApplied; n > 0 && tl.exact*100 < 95*n {
		t.Errorf("%s: %d of the %d cases the peer applies (not by design) are exact, under 95%%", name, tl.exact, n)
	}
}

// add counts a suite's row into the total.
func (tl *confTally) add(o confTally) {
	tl.cases += o.cases
	tl.peerApplies += o.peerApplies
	tl.exact += o.exact
	tl.design += o.design
	tl.bothRefuse += o.bothRefuse
	tl.otherRefused += o.otherRefused
	tl.wrong += o.wrong
}

func runConfCase(t *testing.T, c confCase, tl *confTally) {
	t.Helper()
	got, ok, why, crash := confApply(t, c.input, c.kind, c.text)
	if crash != "" {
		t.Fatalf("%s: %s", c.name, crash)
	}
	unchanged := sameTree(got, c.input)
	tl.cases++
	if !c.peerRefuses {
		tl.peerApplies++
	}
	matches := func() bool {
		if c.wantBlob != nil {
			return blobsMatch(got, c.input, c.wantBlob)
		}
		return sameTree(got, c.want)
	}
	switch {
	case c.peerRefuses && !ok && unchanged:
		tl.bothRefuse++
	case c.peerRefuses && ok && c.designWant != nil && sameTree(got, c.designWant):
		tl.design++
		tl.reasons = append(tl.reasons, fmt.Sprintf("by design, %s: %s", c.name, c.design))
	case c.peerRefuses:
		tl.wrong++
		t.Errorf("%s: the peer refuses it; sightline ok=%v, files changed=%v: %s", c.name, ok, !unchanged, why)
	case ok && matches():
		tl.exact++
	case ok && c.designWant != nil && sameTree(got, c.designWant):
		tl.design++
		tl.designApplied++
		tl.reasons = append(tl.reasons, fmt.Sprintf("by design, %s: %s", c.name, c.design))
	case ok:
		tl.wrong++
		t.Errorf("%s: ok, but the files differ from the peer's: %s", c.name, diffTrees(got, c.want))
	case !unchanged:
		tl.wrong++
		t.Errorf("%s: refused, but files changed: %s", c.name, why)
	case c.design != "":
		tl.design++
		tl.designApplied++
		tl.reasons = append(tl.reasons, fmt.Sprintf("by design, %s: %s (%s)", c.name, c.design, clipWhy(why)))
	default:
		tl.otherRefused++
		tl.reasons = append(tl.reasons, fmt.Sprintf("refused, %s: %s", c.name, clipWhy(why)))
	}
}

// confApply writes input to a new workspace, reads every file whole and
// applies text (kind "patch" or "blocks") through an Env, reading files
// that are not UTF-8 in the encodings given: the files after,
// whether it applied, why not, and the panic when it crashed.
func confApply(t *testing.T, input map[string]string, kind, text string, encodings ...string) (got map[string]string, ok bool, why, crash string) {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	for name, text := range input {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.Encodings = encodings
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: cfg, NoPersist: true})
	defer env.Close(ctx)
	caller := engine.Caller{Session: "conformance"}
	for name := range input {
		budget := &struct {
			Chars int `json:"chars"`
		}{Chars: 1 << 24}
		r, err := env.Read(ctx, engine.ReadParams{Caller: caller, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, filepath.FromSlash(name))))}, Budget: budget})
		if err != nil || !r.OK {
			t.Fatalf("read %s: %v %+v", name, err, r.Outcome)
		}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				crash = fmt.Sprintf("panic: %v", r)
			}
		}()
		switch kind {
		case "patch":
			r, err := env.ApplyPatch(ctx, engine.PatchParams{Caller: caller, Text: text})
			if err != nil {
				crash = err.Error()
				return
			}
			ok, why = r.OK, string(r.Error)+": "+r.Message
			// The file that failed says why in its own words.
			for _, f := range r.Files {
				if f.Status == "failed" {
					why = fmt.Sprintf("%s: %s: %s", f.Error, f.Path, f.Message)
					break
				}
			}
		case "blocks":
			r, err := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: caller, Text: text})
			if err != nil {
				crash = err.Error()
				return
			}
			ok, why = r.OK, string(r.Error)+": "+r.Message
			for _, b := range r.Blocks {
				if b.Status == "failed" {
					why = fmt.Sprintf("%s: block %d, %s: %s", b.Error, b.Index+1, b.Path, b.Message)
					break
				}
			}
		default:
			t.Fatalf("kind %q", kind)
		}
	}()
	return confTree(t, root), ok, why, crash
}

func clipWhy(s string) string {
	if len(s) <= 220 {
		return s
	}
	i := 220
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// confTree is every file under root, by slash path.
func confTree(t *testing.T, root string) map[string]string {
	got := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, _ := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return got
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func diffTrees(got, want map[string]string) string {
	var names []string
	for n := range got {
		names = append(names, n)
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		if got[n] != want[n] {
			fmt.Fprintf(&b, "%s: got %q, want %q; ", n, got[n], want[n])
		}
	}
	return b.String()
}

// blobsMatch: the files the commit names have its blobs (or are gone), and
// every other file is as it was.
func blobsMatch(got, before, want map[string]string) bool {
	for name, id := range want {
		text, ok := got[name]
		if id == "" {
			if ok {
				return false
			}
			continue
		}
		if !ok || gitBlob(text) != id {
			return false
		}
	}
	for name, text := range got {
		if _, named := want[name]; !named && before[name] != text {
			return false
		}
	}
	for name := range before {
		if _, ok := got[name]; !ok {
			if _, named := want[name]; !named {
				return false
			}
		}
	}
	return true
}

func gitBlob(text string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(text))
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// confArchive reads a corpus archive (testarchive.Read).
func confArchive(t *testing.T, path string) (map[string]string, map[string]string) {
	t.Helper()
	meta, files, err := testarchive.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return meta, files
}

func prefixed(files map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for n, text := range files {
		if rest, ok := strings.CutPrefix(n, prefix); ok {
			out[rest] = text
		}
	}
	return out
}

const confDir = "../testdata/conformance"

// codexCases are Codex's apply-patch scenarios: input/, patch.txt,
// expected/.
func codexCases(t *testing.T) []confCase {
	// What Codex refuses (it leaves the files as they were), and what
	// sightline does otherwise by design.
	refuses := map[string]bool{
		"005_rejects_empty_patch": true, "006_rejects_missing_context": true, "007_rejects_missing_file_delete": true,
		"008_rejects_empty_update_hunk": true, "009_requires_existing_file_for_update": true,
		"012_delete_directory_fails": true, "013_rejects_invalid_hunk_header": true,
	}
	design := map[string]struct {
		why  string
		want map[string]string
	}{
		"015_failure_after_partial_success_leaves_changes": {why: "a patch applies all or nothing; Codex keeps the files written before the failing one"},
		"014_update_file_appends_trailing_newline": {why: "a V4A update keeps the file's final-newline state (V4A cannot say \"no newline at end of file\")",
			want: map[string]string{"no_newline.txt": "first line\nsecond line"}},
	}
	dirs, err := filepath.Glob(filepath.Join(confDir, "codex", "scenarios", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no codex scenarios: %v", err)
	}
	var cs []confCase
	for _, d := range dirs {
		name := filepath.Base(d)
		patch, err := os.ReadFile(filepath.Join(d, "patch.txt"))
		if err != nil {
			t.Fatal(err)
		}
		c := confCase{name: "codex/" + name, kind: "patch", text: string(patch), input: readTree(t, filepath.Join(d, "input")), want: readTree(t, filepath.Join(d, "expected")), peerRefuses: refuses[name]}
		if x, ok := design[name]; ok {
			c.design, c.designWant = x.why, x.want
		}
		cs = append(cs, c)
	}
	return cs
}

func readTree(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	if _, err := os.Stat(dir); err != nil {
		return out
	}
	for n, text := range confTree(t, dir) {
		out[n] = text
	}
	return out
}

// codexUnitCases are the txtar cases made from Codex's unit tests.
func codexUnitCases(t *testing.T) []confCase {
	return txtarCases(t, filepath.Join(confDir, "codex", "unit"))
}

// aiderCases are the txtar cases made from aider's edit-block and udiff
// tests.
func aiderCases(t *testing.T) []confCase {
	return txtarCases(t, filepath.Join(confDir, "aider"))
}

func txtarCases(t *testing.T, dir string) []confCase {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if len(paths) == 0 {
		t.Fatalf("no cases in %s", dir)
	}
	var cs []confCase
	for _, p := range paths {
		meta, files := confArchive(t, p)
		c := confCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), kind: meta["kind"], text: files["output"],
			input: prefixed(files, "input/"), want: prefixed(files, "expected/"), peerRefuses: meta["peer"] == "refuses", design: meta["design"]}
		if dw := prefixed(files, "design/"); len(dw) > 0 {
			c.designWant = dw
		}
		cs = append(cs, c)
	}
	return cs
}

// The history suites: real commits of public repositories (google/uuid,
// PowerShell/PSReadLine, PyCQA/flake8), each as the dialects that can say
// it: `git format-patch` (patch), OpenAI's apply_patch (v4a), aider's
// SEARCH/REPLACE edit blocks (blocks) and aider's unified diff (udiff).
// Each is applied to the parent's files and must leave the commit's blobs,
// byte for byte, or be refused; a wrong case fails the test.
var historyRepos = []struct{ dir, name string }{
	{"google-uuid", "google/uuid"},
	{"psreadline", "PowerShell/PSReadLine"},
	{"flake8-2012", "PyCQA/flake8 2012"},
	{"flake8-2016", "PyCQA/flake8 2016"},
}

var historyDialects = []string{"patch", "v4a", "blocks", "udiff"}

// histTally is a row of the history table: one repository in one dialect.
type histTally struct {
	cases, exact, refused, inexpressible, wrong int
	reasons                                     []string
}

type histRepo struct {
	name  string
	tally map[string]*histTally
}

// runHistory applies every commit of every history suite in every dialect
// it has and prints their table.
func runHistory(t *testing.T) []histRepo {
	var repos []histRepo
	var table strings.Builder
	fmt.Fprintf(&table, "%-24s %-7s %6s %6s %8s %8s %6s\n", "history", "dialect", "cases", "exact", "refused", "not expr", "wrong")
	for _, r := range historyRepos {
		paths, _ := filepath.Glob(filepath.Join(confDir, "history", r.dir, "*.txtar"))
		if len(paths) < 40 {
			t.Fatalf("%s: %d commits", r.dir, len(paths))
		}
		repo := histRepo{name: r.name, tally: map[string]*histTally{}}
		for _, d := range historyDialects {
			repo.tally[d] = &histTally{}
		}
		for _, p := range paths {
			meta, files := confArchive(t, p)
			name := strings.TrimSuffix(filepath.Base(p), ".txtar")
			want := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(files["want"]), "\n") {
				file, id, _ := strings.Cut(l, " ")
				if id == "deleted" {
					id = ""
				}
				want[file] = id
			}
			before := prefixed(files, "before/")
			for _, d := range historyDialects {
				tl := repo.tally[d]
				text, has := files[d]
				if !has {
					if strings.HasPrefix(meta[d], "not expressible") {
						tl.inexpressible++
					}
					continue
				}
				kind := "patch"
				if d == "blocks" {
					kind = "blocks"
				}
				tl.cases++
				// A file in a legacy encoding is declared, as a user
				// would (history's ones are Windows-1252).
				got, ok, why, crash := confApply(t, before, kind, text, "windows-1252")
				switch {
				case crash != "":
					tl.wrong++
					t.Errorf("%s %s %s: crashed: %s", r.name, d, name, crash)
				case ok && blobsMatch(got, before, want):
					tl.exact++
				case ok:
					tl.wrong++
					t.Errorf("%s %s %s: applied, but the files are not the commit's: %s", r.name, d, name, diffBlobs(got, before, want))
				case !sameTree(got, before):
					tl.wrong++
					t.Errorf("%s %s %s: refused, but files changed: %s", r.name, d, name, why)
				default:
					tl.refused++
					tl.reasons = append(tl.reasons, fmt.Sprintf("refused, %s: %s", name, clipWhy(why)))
				}
			}
		}
		for _, d := range historyDialects {
			tl := repo.tally[d]
			if tl.cases+tl.inexpressible == 0 {
				continue
			}
			fmt.Fprintf(&table, "%-24s %-7s %6d %6d %8d %8d %6d\n", r.name, d, tl.cases, tl.exact, tl.refused, tl.inexpressible, tl.wrong)
			for _, why := range tl.reasons {
				fmt.Fprintf(&table, "    %s\n", why)
			}
		}
		repos = append(repos, repo)
	}
	t.Logf("history: each commit applied to its parent's files; exact: the commit's blobs, byte for byte; not expr: the dialect cannot say the change (a pure rename in V4A, a deletion or rename in edit blocks, a binary or mode-only change)\n%s", table.String())
	return repos
}

// firstDiff says where got first differs from the file before (the commit
// changed it too, but an unchanged start narrows the search), as a line
// number and that line's bytes.
func firstDiff(got, before string) string {
	n := 0
	for n < len(got) && n < len(before) && got[n] == before[n] {
		n++
	}
	line := strings.Count(got[:n], "\n") + 1
	start := strings.LastIndexByte(got[:n], '\n') + 1
	end := strings.IndexByte(got[n:], '\n')
	if end < 0 {
		end = len(got) - n
	}
	return fmt.Sprintf(" (the first line it differs from the file before: %d, %s)", line, clipWhy(fmt.Sprintf("%q", got[start:n+min(end+1, len(got)-n)])))
}

// diffBlobs says which files differ from the commit's blobs.
func diffBlobs(got, before, want map[string]string) string {
	var b strings.Builder
	for name, id := range want {
		text, ok := got[name]
		switch {
		case id == "" && ok:
			fmt.Fprintf(&b, "%s: still there; ", name)
		case id != "" && !ok:
			fmt.Fprintf(&b, "%s: missing; ", name)
		case id != "" && gitBlob(text) != id:
			fmt.Fprintf(&b, "%s: blob %s, not %s%s; ", name, gitBlob(text)[:12], id[:12], firstDiff(text, before[name]))
		}
	}
	for name, text := range got {
		if _, named := want[name]; !named && before[name] != text {
			fmt.Fprintf(&b, "%s: changed or made; ", name)
		}
	}
	return b.String()
}

// TestPatchDiagnostic: a hunk that does not apply comes back with a
// machine-readable diagnosis, as an edit block does.
func TestPatchDiagnostic(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "w.py"), []byte("a\nb\nc\n"), 0o644)
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	c := engine.Caller{Session: "s"}
	env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, "w.py")))}})
	r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: "--- a/w.py\n+++ b/w.py\n@@ -1,2 +1,2 @@\n a\n-b \n+x\n"})
	if r.OK || len(r.Files) != 1 || r.Files[0].Diagnostic == nil || r.Files[0].Diagnostic.Kind != "whitespace_mismatch" || r.Files[0].Diagnostic.Line != 1 || strings.Contains(r.Message, "block") {
		t.Fatalf("%+v", r)
	}
	if strings.Count(r.Message, "w.py") > 1 || strings.Contains(r.Message, "EDIT") {
		t.Fatalf("message: %s", r.Message)
	}
}

// TestAddOverExisting: *** Add File over an existing file and *** Move to:
// onto one replace it only when the whole file was read and is unchanged
// (as write's overwrite mode), else the answer names what to read.
func TestAddOverExisting(t *testing.T) {
	ctx := context.Background()
	for _, move := range []bool{false, true} {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, "d.txt"), []byte("old 1\nold 2\n"), 0o644)
		os.WriteFile(filepath.Join(root, "src.txt"), []byte("from\n"), 0o644)
		env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
		c := engine.Caller{Session: "s"}
		read := func(name string, r *ledger.Range) {
			env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, name)))}, Range: r})
		}
		read("src.txt", nil)
		text := "*** Begin Patch\n*** Add File: d.txt\n+new\n*** End Patch\n"
		if move {
			text = "*** Begin Patch\n*** Update File: src.txt\n*** Move to: d.txt\n@@\n-from\n+new\n*** End Patch\n"
		}
		// Partly read: refused, naming the file to read.
		read("d.txt", &ledger.Range{Start: 1, End: 1})
		r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: text})
		if r.OK || !strings.Contains(r.Message, "read all of d.txt") {
			t.Fatalf("move=%v half read: %+v", move, r)
		}
		t.Logf("move=%v: %s", move, r.Message)
		if b, _ := os.ReadFile(filepath.Join(root, "d.txt")); string(b) != "old 1\nold 2\n" {
			t.Fatalf("written although refused: %q", b)
		}
		read("d.txt", nil)
		if r, _ = env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: text}); !r.OK {
			t.Fatalf("move=%v read: %+v", move, r)
		}
		if b, _ := os.ReadFile(filepath.Join(root, "d.txt")); string(b) != "new\n" {
			t.Fatalf("move=%v d.txt: %q", move, b)
		}
		if _, err := os.Stat(filepath.Join(root, "src.txt")); move == (err == nil) {
			t.Fatalf("move=%v src.txt: %v", move, err)
		}
		env.Close(ctx)
	}
}

// TestMoveOntoDeleted: a patch that deletes a file and then moves another
// onto it is refused whole (one place per file), as before.
func TestMoveOntoDeleted(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("b\n"), 0o644)
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	c := engine.Caller{Session: "s"}
	for _, n := range []string{"a.txt", "b.txt"} {
		env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, n)))}})
	}
	r, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: "*** Begin Patch\n*** Delete File: b.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** End Patch\n"})
	if r.OK {
		t.Fatalf("%+v", r)
	}
	for n, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n"} {
		if b, _ := os.ReadFile(filepath.Join(root, n)); string(b) != want {
			t.Fatalf("%s: %q", n, b)
		}
	}
}

// TestPatchOfMissingFile: a patch that updates a file that does not exist
// is refused whole, not_found, saying how to add it instead.
func TestPatchOfMissingFile(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	r, err := env.ApplyPatch(ctx, engine.PatchParams{Caller: engine.Caller{Session: "s"}, Text: "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: gone.txt\n@@\n-x\n+y\n*** End Patch\n"})
	if err != nil || r.OK || r.Error != result.NotFound || !strings.Contains(r.Message, "*** Add File: gone.txt") {
		t.Fatalf("%v %+v", err, r)
	}
	if _, err := os.Stat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a.txt written: %v", err)
	}
}
