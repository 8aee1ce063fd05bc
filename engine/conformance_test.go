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
		{"google/uuid history", historyCases},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-20s %6s %6s %6s %7s %7s %7s %6s\n", "suite", "cases", "peer", "exact", "design", "both", "other", "wrong")
	var all confTally
	for _, s := range suites {
		var tl confTally
		for _, c := range s.cases(t) {
			runConfCase(t, c, &tl)
		}
		all.add(tl)
		fmt.Fprintf(&table, "%-20s %6d %6d %6d %7d %7d %7d %6d\n", s.name, tl.cases, tl.peerApplies, tl.exact, tl.design, tl.bothRefuse, tl.otherRefused, tl.wrong)
		for _, r := range tl.reasons {
			fmt.Fprintf(&table, "    %s\n", r)
		}
		if tl.wrong > 0 {
			t.Errorf("%s: %d wrong", s.name, tl.wrong)
		}
		// Fuzzy matches, first-of-several matches and partial writes stay
		// refused by design (each with its reason above): the rest of what
		// the peer applies must be exact.
		if n := tl.peerApplies - tl.designApplied; n > 0 && tl.exact*100 < 95*n {
			t.Errorf("%s: %d of the %d cases the peer applies (not by design) are exact, under 95%%", s.name, tl.exact, n)
		}
	}
	fmt.Fprintf(&table, "%-20s %6d %6d %6d %7d %7d %7d %6d  (%.1f%% of what the peers apply is exact)\n", "all", all.cases, all.peerApplies, all.exact, all.design, all.bothRefuse, all.otherRefused, all.wrong,
		100*float64(all.exact)/float64(all.peerApplies))
	// Over everything the peers apply, by-design refusals included.
	if all.exact*100 < 95*all.peerApplies {
		t.Errorf("%d of the %d cases the peers apply are exact, under 95%%", all.exact, all.peerApplies)
	}
	t.Logf("peer: cases the peer applies; design: refused (or made otherwise) by design, with the reason; both: the peer refuses too; other: refusals not by design\n%s", table.String())
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
	ctx := context.Background()
	root := t.TempDir()
	for name, text := range c.input {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	caller := engine.Caller{Session: "conformance"}
	for name := range c.input {
		budget := &struct {
			Chars int `json:"chars"`
		}{Chars: 1 << 24}
		r, err := env.Read(ctx, engine.ReadParams{Caller: caller, TextDocument: engine.TextDocument{URI: string(workspace.FromPath(filepath.Join(root, filepath.FromSlash(name))))}, Budget: budget})
		if err != nil || !r.OK {
			t.Fatalf("%s: read %s: %v %+v", c.name, name, err, r.Outcome)
		}
	}
	var ok bool
	var why string
	switch c.kind {
	case "patch":
		r, err := env.ApplyPatch(ctx, engine.PatchParams{Caller: caller, Text: c.text})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ok, why = r.OK, string(r.Error)+": "+r.Message
	case "blocks":
		r, err := env.ApplyBlocks(ctx, engine.BlocksParams{Caller: caller, Text: c.text})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ok, why = r.OK, string(r.Error)+": "+r.Message
	default:
		t.Fatalf("%s: kind %q", c.name, c.kind)
	}
	got := confTree(t, root)
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

func clipWhy(s string) string {
	if len(s) > 220 {
		return s[:220] + "…"
	}
	return s
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

// historyCases are the commits of google/uuid: each commit's format-patch
// applied to its parent's files.
func historyCases(t *testing.T) []confCase {
	paths, _ := filepath.Glob(filepath.Join(confDir, "history", "google-uuid", "*.txtar"))
	if len(paths) < 50 {
		t.Fatalf("%d commits", len(paths))
	}
	var cs []confCase
	for _, p := range paths {
		_, files := confArchive(t, p)
		want := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(files["want"]), "\n") {
			name, id, _ := strings.Cut(l, " ")
			if id == "deleted" {
				id = ""
			}
			want[name] = id
		}
		cs = append(cs, confCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), kind: "patch", text: files["patch"], input: prefixed(files, "before/"), wantBlob: want})
	}
	return cs
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
