package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestPatchV4AOrdered: a V4A chunk whose lines occur at lines 10 and 80
// goes to the first place after the chunk before it, as the format
// defines; the answer says where it went and the guard judges the lines it
// went to: placed after a chunk at line 50, it lands at line 80, which must
// have been read.
func TestPatchV4AOrdered(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	ls := make([]string, 100)
	for i := range ls {
		ls[i] = fmt.Sprintf("line %d", i+1)
	}
	for _, at := range []int{10, 80} {
		copy(ls[at-1:], []string{"\tif err != nil {", "\t\treturn err", "\t}"})
	}
	text := strings.Join(ls, "\n") + "\n"
	path := filepath.Join(root, "f.go")
	os.WriteFile(path, []byte(text), 0o644)
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	defer env.Close(ctx)
	c := engine.Caller{Session: "s"}
	uri := string(workspace.FromPath(path))
	read := func(a, b int) {
		t.Helper()
		if _, err := env.Read(ctx, engine.ReadParams{Caller: c, TextDocument: engine.TextDocument{URI: uri}, Range: &ledger.Range{Start: a, End: b}}); err != nil {
			t.Fatal(err)
		}
	}
	read(1, 60)

	p := "*** Begin Patch\n*** Update File: f.go\n@@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn fmt.Errorf(\"f: %w\", err)\n \t}\n@@\n line 49\n-line 50\n+LINE 50\n*** End Patch\n"
	res, _ := env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: p, DryRun: true})
	if !res.OK || !strings.Contains(res.Files[0].Message, "hunk 1 went to lines 10-12 (its lines occur again at line 80)") || !strings.Contains(res.Files[0].Diff, "@@ -8,7 +8,7 @@") {
		t.Fatalf("dry run: %+v", res)
	}
	res, _ = env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: p})
	if !res.OK || res.Files[0].Status != "applied" || !strings.HasPrefix(res.Files[0].Message, "Patched f.go. ") || !strings.Contains(res.Files[0].Message, "line 80") {
		t.Fatalf("applied: %+v", res)
	}
	want := strings.Replace(strings.Replace(text, "\t\treturn err\n", "\t\treturn fmt.Errorf(\"f: %w\", err)\n", 1), "line 50\n", "LINE 50\n", 1)
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("f.go: %q", b)
	}

	// After the chunk at line 50 the same lines are the ones at line 80,
	// which were not read: refused, nothing written; read, it applies
	// there.
	p = "*** Begin Patch\n*** Update File: f.go\n@@\n-LINE 50\n+line 50\n@@\n \tif err != nil {\n-\t\treturn err\n+\t\treturn nil\n \t}\n*** End Patch\n"
	res, _ = env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: p})
	if res.OK || res.Error != "unread_range" {
		t.Fatalf("unread lines 80-82: %+v", res)
	}
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("written although refused: %q", b)
	}
	read(78, 84)
	res, _ = env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: p})
	if !res.OK {
		t.Fatalf("after the read: %+v", res)
	}
	if res.Files[0].Message != "Patched f.go." {
		t.Fatalf("a chunk at its only place needs no word: %q", res.Files[0].Message)
	}
	want = strings.Replace(strings.Replace(want, "LINE 50\n", "line 50\n", 1), "line 79\n\tif err != nil {\n\t\treturn err\n", "line 79\n\tif err != nil {\n\t\treturn nil\n", 1)
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("f.go: %q", b)
	}

	// A chunk whose lines are only before the chunk before it: refused,
	// naming the hunk and where its lines are.
	p = "*** Begin Patch\n*** Update File: f.go\n@@\n-line 50\n+LINE 50\n@@\n \tif err != nil {\n-\t\treturn fmt.Errorf(\"f: %w\", err)\n+\t\treturn err\n \t}\n*** End Patch\n"
	res, _ = env.ApplyPatch(ctx, engine.PatchParams{Caller: c, Text: p})
	if res.OK || res.Files[0].Hunk != 2 || res.Files[0].Line != 10 || !strings.Contains(res.Files[0].Message, "lines 10-12") {
		t.Fatalf("out of order: %+v", res)
	}
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("written although refused: %q", b)
	}
}
