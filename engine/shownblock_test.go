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

// TestShownAnchoredCountsOnlyFromItsFirstLine: lines placed by their first
// (a command's output, numbered by its place) count only when that first
// line is where the command put it; then each counts as it matches.
func TestShownAnchoredCountsOnlyFromItsFirstLine(t *testing.T) {
	root := t.TempDir()
	env := engine.SetupTest(t, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	u := string(workspace.FromPath(filepath.Join(root, "f.txt")))
	env.WS.Open(u, "plaintext", 1, "one\ntwo\nthree\nfour\n")
	for _, tc := range []struct {
		name           string
		block          engine.ShownBlock
		recorded, skip string
	}{
		{"first in place", engine.ShownBlock{Start: 2, Text: "two\nTHREE\nfour\n"}, "[2 4]", "[3]"},
		{"first elsewhere", engine.ShownBlock{Start: 2, Text: "one\nthree\nfour\n"}, "[]", "[2-4]"},
	} {
		res, err := env.Shown(context.Background(), engine.ShownParams{Caller: engine.Caller{Session: tc.name},
			TextDocument: engine.TextDocument{URI: u}, Block: &tc.block, Anchored: true})
		if err != nil || !res.OK {
			t.Fatal(err, res.Message)
		}
		if fmt.Sprint(res.Recorded) != tc.recorded || fmt.Sprint(res.Skipped) != tc.skip {
			t.Errorf("%s: recorded %v skipped %v, want %s and %s", tc.name, res.Recorded, res.Skipped, tc.recorded, tc.skip)
		}
	}
}
