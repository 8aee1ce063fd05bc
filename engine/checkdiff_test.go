package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestCheckTargetsTheLinesADiffChanges: a whole new text (Content), or an
// old text with its replacement (Old[].New), targets only the lines the
// change touches, so an agent that read those lines may write the whole
// file; NoExpand refuses without handing lines over (none counts as read).
func TestCheckTargetsTheLinesADiffChanges(t *testing.T) {
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(root, "f.txt")))
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	text := b.String()
	env.WS.Open(u, "plaintext", 1, text)
	doc := engine.TextDocument{URI: u}
	str := func(s string) *string { return &s }
	check := func(session string, p engine.CheckParams) engine.CheckResult {
		t.Helper()
		p.Session, p.TextDocument = session, doc
		res, err := env.Check(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	read := func(session string, first, last int) {
		t.Helper()
		var ls []engine.ShownLine
		for i := first; i <= last; i++ {
			ls = append(ls, engine.ShownLine{Line: i, Text: fmt.Sprintf("line %d", i)})
		}
		if res, err := env.Shown(context.Background(), engine.ShownParams{Caller: engine.Caller{Session: session}, TextDocument: doc, Lines: ls}); err != nil || !res.OK {
			t.Fatal(err, res.Message)
		}
	}
	whole := strings.Replace(text, "line 7\n", "seven\n", 1)
	for _, tc := range []struct {
		name    string
		p       engine.CheckParams
		targets []ledger.Range
	}{
		{"whole text", engine.CheckParams{Content: &whole}, []ledger.Range{{Start: 7, End: 7}}},
		{"whole text, an insertion", engine.CheckParams{Content: str(strings.Replace(text, "line 7\n", "line 7\nnew\n", 1))}, []ledger.Range{{Start: 7, End: 7}}},
		{"whole text, a deletion", engine.CheckParams{Content: str(strings.Replace(text, "line 3\nline 4\n", "", 1))}, []ledger.Range{{Start: 3, End: 4}}},
		{"old text with context", engine.CheckParams{Old: []engine.OldText{{Text: "line 6\nline 7\nline 8", New: str("line 6\nseven\nline 8")}}}, []ledger.Range{{Start: 7, End: 7}}},
		{"old text, part of a line", engine.CheckParams{Old: []engine.OldText{{Text: "ne 9", New: str("ne nine")}}}, []ledger.Range{{Start: 9, End: 9}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := check("none-"+tc.name, tc.p); res.OK || fmt.Sprint(res.Targets) != fmt.Sprint(tc.targets) {
				t.Errorf("unread: ok=%v targets %v, want refused on %v (%s)", res.OK, res.Targets, tc.targets, res.Message)
			}
			s := "read-" + tc.name
			for _, r := range tc.targets {
				read(s, r.Start, r.End)
			}
			if res := check(s, tc.p); !res.OK {
				t.Errorf("the changed lines were read, yet refused: %s", res.Message)
			}
		})
	}

	// NoExpand: refused, nothing handed over, and the retry is refused too.
	for i := 0; i < 2; i++ {
		res := check("noexpand", engine.CheckParams{Content: &whole, NoExpand: true})
		if res.OK || res.Shown != "" || res.Expanded != "" {
			t.Fatalf("NoExpand try %d: ok=%v shown %q expanded %q", i, res.OK, res.Shown, res.Expanded)
		}
	}
}

// TestCheckRefusesWhatTheDoorCouldNotJudge: a door's own refusal (a message
// it could not read exactly as its executor will) is refused as unjudged
// and audited like every refusal, with or without a document.
func TestCheckRefusesWhatTheDoorCouldNotJudge(t *testing.T) {
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	ctx := context.Background()
	for _, uri := range []string{string(workspace.FromPath(filepath.Join(root, "f.txt"))), ""} {
		res, err := ops.Do(ctx, ops.Check, &ops.Call{Env: env}, engine.CheckParams{Caller: engine.Caller{Session: "door"}, TextDocument: engine.TextDocument{URI: uri},
			Tool: "fs/write_text_file", Unjudged: "a member named twice"})
		if err != nil || res.OK || res.Error != "unjudged" || res.Message != "a member named twice" {
			t.Fatalf("uri %q: %+v %v", uri, res.Outcome, err)
		}
	}
	a, err := env.Audit(ctx, engine.AuditParams{Session: "door"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Entries) != 2 || a.Entries[0].Outcome != "refused" || a.Entries[0].Error != "unjudged" || a.Entries[0].Path != "f.txt" {
		t.Fatalf("audit: %+v", a.Entries)
	}
}
