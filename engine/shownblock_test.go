package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestShownBlockCountsAsItsLines: lines shown as one block count exactly as
// the same lines shown one by one: numbered from start, a final line break
// or none, a CR before the line break the break's, a line that differs
// from the file skipped.
func TestShownBlockCountsAsItsLines(t *testing.T) {
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(root, "f.txt")))
	env.WS.Open(u, "plaintext", 1, "one\ntwo\nthree\nfour\nfive\n")
	for _, tc := range []struct {
		block          engine.ShownBlock
		recorded, skip string
	}{
		{engine.ShownBlock{Start: 2, Text: "two\nthree\n"}, "[2-3]", "[]"},
		{engine.ShownBlock{Start: 2, Text: "two\r\nthree"}, "[2-3]", "[]"},
		{engine.ShownBlock{Start: 3, Text: "three\nFOUR\nfive\n"}, "[3 5]", "[4]"},
		{engine.ShownBlock{Start: 1, Text: ""}, "[]", "[]"},
	} {
		res, err := env.Shown(context.Background(), engine.ShownParams{Caller: engine.Caller{Session: fmt.Sprintf("s%q", tc.block.Text)},
			TextDocument: engine.TextDocument{URI: u}, Block: &tc.block})
		if err != nil || !res.OK {
			t.Fatal(err, res.Message)
		}
		if fmt.Sprint(res.Recorded) != tc.recorded || fmt.Sprint(res.Skipped) != tc.skip {
			t.Errorf("block %+v: recorded %v skipped %v, want %s and %s", tc.block, res.Recorded, res.Skipped, tc.recorded, tc.skip)
		}
	}
}
