package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

const declSrc = `package p

import "fmt"

// Cache holds things.
type Cache struct {
	n int
}

// Get returns n.
func (c *Cache) Get() int {
	return c.n
}

func helper() {
	fmt.Println("x")
}

func (o *Other) Get() int {
	return 0
}
`

func declEnv(t *testing.T) (*engine.Env, string, string) {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, "p.go")
	if err := os.WriteFile(path, []byte(declSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	return env, string(workspace.FromPath(path)), path
}

// TestReadSymbol: a declaration is read with its doc comment, and exactly
// its lines are recorded; several matches or none read nothing and say
// which declarations there are.
func TestReadSymbol(t *testing.T) {
	env, u, _ := declEnv(t)
	ctx := context.Background()
	res, err := env.Read(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: u}, Symbol: "Cache.Get"})
	if err != nil || !res.OK {
		t.Fatal(err, res.Message)
	}
	if *res.Range != (ledger.Range{Start: 10, End: 13}) || !strings.Contains(res.Content, "|// Get returns n.") || !strings.Contains(res.Content, "|}") {
		t.Fatalf("read Cache.Get: lines %v\n%s", res.Range, res.Content)
	}
	if got := res.Ledger.Read; len(got) != 1 || got[0] != (ledger.Range{Start: 10, End: 13}) {
		t.Errorf("recorded %v, want exactly 10-13", got)
	}

	res, err = env.Read(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: u}, Symbol: "Get"})
	if err != nil || res.OK || res.Error != result.AmbiguousMatch || res.Range != nil || res.Content != "" ||
		!strings.Contains(res.Message, "Cache.Get (lines 10-13)") || !strings.Contains(res.Message, "Other.Get (lines 19-21)") {
		t.Fatalf("ambiguous: %v %+v", err, res.Outcome)
	}
	res, err = env.Read(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: u}, Symbol: "helpr"})
	if err != nil || res.OK || res.Error != result.NoMatch || !strings.Contains(res.Message, "func helper (lines 15-17)") {
		t.Fatalf("nearest: %v %+v", err, res.Outcome)
	}
	if got := res.Ledger.Read; len(got) != 1 {
		t.Errorf("a refused symbol read recorded something: %v", got)
	}
	if _, err := env.Read(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: u}, Symbol: "helper", Range: &ledger.Range{Start: 1, End: 2}}); result.KindOf(err) != result.InvalidParams {
		t.Errorf("range and symbol together: %v, want invalid_params", err)
	}
	// The CLI's read path (a process with no documents) answers the same.
	res, err = env.ReadDisk(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: u}, Symbol: "helper"})
	if err != nil || !res.OK || *res.Range != (ledger.Range{Start: 15, End: 17}) {
		t.Fatalf("ReadDisk by symbol: %v %+v %v", err, res.Outcome, res.Range)
	}
}

// TestEditSymbol: the symbol edits go through the guard (the whole
// declaration must have been read), which hands the lines over, and then
// apply as the line edits they mean.
func TestEditSymbol(t *testing.T) {
	env, u, path := declEnv(t)
	ctx := context.Background()
	edit := func(edits string) engine.EditResult {
		t.Helper()
		res, err := env.Edit(ctx, engine.EditParams{TextDocument: engine.TextDocument{URI: u}, Edits: json.RawMessage(edits)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	replace := `[{"type":"replace_symbol","symbol":"helper","new_content":"func helper() {\n\tfmt.Println(\"y\")\n}"}]`
	res := edit(replace)
	if res.OK || res.Error != result.UnreadRange || !strings.Contains(res.Expanded, "|func helper() {") {
		t.Fatalf("unread declaration: %+v expanded %q", res.Outcome, res.Expanded)
	}
	// The refusal handed the lines over: the same edit lands.
	if res = edit(replace); !res.OK || !res.Applied {
		t.Fatalf("after the refusal: %+v", res.Outcome)
	}
	// Reading one line of a declaration is not reading it.
	if r, _ := env.Read(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: u}, Range: &ledger.Range{Start: 6, End: 6}}); !r.OK {
		t.Fatal(r.Message)
	}
	if res = edit(`[{"type":"insert_after_symbol","symbol":"Cache","new_content":"\n// Size is.\nconst Size = 1"}]`); res.OK {
		t.Fatalf("insert after a declaration read in part: %+v", res.Outcome)
	}
	if res = edit(`[{"type":"insert_after_symbol","symbol":"Cache","new_content":"\n// Size is.\nconst Size = 1"}]`); !res.OK {
		t.Fatal(res.Message)
	}
	if r, _ := env.Read(ctx, engine.ReadParams{TextDocument: engine.TextDocument{URI: u}, Symbol: "Other.Get"}); !r.OK {
		t.Fatal(r.Message)
	}
	if res = edit(`[{"type":"insert_before_symbol","symbol":"Other.Get","new_content":"// Get is zero."}]`); !res.OK {
		t.Fatal(res.Message)
	}
	b, _ := os.ReadFile(path)
	want := strings.NewReplacer("fmt.Println(\"x\")", "fmt.Println(\"y\")", "\tn int\n}\n", "\tn int\n}\n\n// Size is.\nconst Size = 1\n",
		"func (o *Other) Get", "// Get is zero.\nfunc (o *Other) Get").Replace(declSrc)
	if string(b) != want {
		t.Errorf("file now:\n%s\nwant:\n%s", b, want)
	}
	if res = edit(`[{"type":"replace_symbol","symbol":"Nope","new_content":"x"}]`); res.OK || res.Error != result.NoMatch || !strings.HasPrefix(res.Message, "edits[0] (replace_symbol): ") {
		t.Errorf("unknown symbol: %+v", res.Outcome)
	}
	if res = edit(`[{"type":"replace_symbol","symbol":"Get","new_content":"x"}]`); res.OK || res.Error != result.AmbiguousMatch {
		t.Errorf("ambiguous symbol: %+v", res.Outcome)
	}
}

// TestOutline: declarations nested with their lines (doc comment
// included), kinds and signature lines; exactly the signature lines shown
// whole are recorded as read.
func TestOutline(t *testing.T) {
	root := t.TempDir()
	long := "    def long(self, " + strings.Repeat("a, ", 100) + "b):"
	src := "class Outer:\n    # Inner is.\n    class Inner:\n        def m(self):\n            pass\n\n" + long + "\n        pass\n\ndef top():\n    pass\n"
	path := filepath.Join(root, "o.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(path))
	res, err := env.Outline(context.Background(), engine.OutlineParams{TextDocument: engine.TextDocument{URI: u}})
	if err != nil || !res.OK {
		t.Fatal(err, res.Message)
	}
	type flat struct {
		name, kind string
		lines      ledger.Range
		depth      int
		ref        bool
	}
	var got []flat
	var walk func([]engine.OutlineEntry, int)
	walk = func(es []engine.OutlineEntry, depth int) {
		for _, o := range es {
			got = append(got, flat{o.Name, o.Kind, o.Lines, depth, o.Ref != ""})
			walk(o.Children, depth+1)
		}
	}
	walk(res.Symbols, 0)
	want := []flat{
		{"Outer", "class", ledger.Range{Start: 1, End: 8}, 0, true},
		{"Outer.Inner", "class", ledger.Range{Start: 2, End: 5}, 1, true},
		{"Outer.Inner.m", "method", ledger.Range{Start: 4, End: 5}, 2, true},
		{"Outer.long", "method", ledger.Range{Start: 7, End: 8}, 1, false}, // too long to show whole
		{"top", "func", ledger.Range{Start: 10, End: 11}, 0, true},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("outline:\n%v\nwant\n%v", got, want)
	}
	led, _ := env.LedgerReport(context.Background(), engine.LedgerParams{TextDocument: &engine.TextDocument{URI: u}})
	var read []ledger.Range
	for _, d := range led.Documents {
		read = append(read, d.Read...)
	}
	if wantRead := []ledger.Range{{Start: 1, End: 1}, {Start: 3, End: 4}, {Start: 10, End: 10}}; !slices.Equal(read, wantRead) {
		t.Errorf("recorded %v, want the signature lines shown whole %v", read, wantRead)
	}
}
