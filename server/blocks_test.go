package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/lsptest"
)

// TestApplyBlocks: model output with prose, a fence, an edit to an open
// buffer (through the editor), an edit to a closed file (atomically on
// disk), a create, a near miss and a truncated last block: nothing is
// written (all or none); without the last two, all of it is.
func TestApplyBlocks(t *testing.T) {
	files := map[string]string{
		"src/open.py":   "def a():\n    return 1\n",
		"src/closed.go": "package x\n\nfunc F() {\n\treturn\n}\n",
	}
	e, root := start(t, files, lsptest.Options{})
	uo, uc := fileURI(root, "src/open.py"), fileURI(root, "src/closed.go")
	e.Open(uo, "python", files["src/open.py"])
	read(t, e, uo, nil, nil)
	read(t, e, uc, nil, nil)
	good := "I'll fix both functions.\n\n" +
		"src/open.py\n<<<< EDIT\ndef a():\n    return 1\n==== REPLACE\ndef a():\n    return 2\n>>>> EDIT END\n\n" +
		"Now the Go file:\n\n```go\nsrc/closed.go\n<<<< EDIT\nfunc F() {\n\treturn\n==== REPLACE\nfunc F() {\n\treturn // done\n>>>> EDIT END\n```\n\n" +
		"src/new/util.py\n<<<< EDIT\n==== REPLACE\nX = 1\n>>>> EDIT END\n\n"
	out := good +
		"src/closed.go\n<<<< EDIT\nfunc G() {\n==== REPLACE\nfunc G() {}\n>>>> EDIT END\n\n" +
		"src/open.py\n<<<< EDIT\ndef a():\n"
	var res engine.BlocksResult
	if err := e.Call("sightline/applyBlocks", map[string]any{"text": out}, &res); err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, b := range res.Blocks {
		got = append(got, b.Status)
	}
	if strings.Join(got, " ") != "skipped skipped skipped failed skipped" || res.OK || !strings.Contains(res.Message, "Block 4 (src/closed.go)") {
		t.Fatalf("statuses %v ok=%v %q: %+v", got, res.OK, res.Message, res.Blocks)
	}
	if d := res.Blocks[3].Diagnostic; d == nil || d.Kind != "not_found" && d.Kind != "near_match" {
		t.Fatalf("failed block diagnostic: %+v", res.Blocks[3])
	}
	if e.Buffer(uo) != files["src/open.py"] {
		t.Fatalf("open buffer changed by a refused output: %q", e.Buffer(uo))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/closed.go")); string(b) != files["src/closed.go"] {
		t.Fatalf("closed file written by a refused output: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "src/new")); err == nil {
		t.Fatal("created folder left by a refused output")
	}
	if err := e.Call("sightline/applyBlocks", map[string]any{"text": good}, &res); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, b := range res.Blocks {
		got = append(got, b.Status)
	}
	if strings.Join(got, " ") != "applied applied applied" || !res.OK {
		t.Fatalf("statuses %v ok=%v: %+v", got, res.OK, res.Blocks)
	}
	if e.Buffer(uo) != "def a():\n    return 2\n" {
		t.Fatalf("open buffer: %q", e.Buffer(uo))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/open.py")); string(b) != files["src/open.py"] {
		t.Fatal("open buffer's file written on disk")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/closed.go")); string(b) != "package x\n\nfunc F() {\n\treturn // done\n}\n" {
		t.Fatalf("closed file: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/new/util.py")); string(b) != "X = 1\n" {
		t.Fatalf("created file: %q", b)
	}
	for _, b := range res.Blocks[:3] {
		if b.Diff == "" {
			t.Fatalf("no diff for %+v", b)
		}
	}

	// Dry run: validated, nothing written; blocks for one file chain.
	out2 := "src/closed.go\n<<<< EDIT\nfunc F() {\n==== REPLACE\nfunc F() { // 1\n>>>> EDIT END\n" +
		"src/closed.go\n<<<< EDIT\nfunc F() { // 1\n==== REPLACE\nfunc F() { // 2\n>>>> EDIT END\n"
	if err := e.Call("sightline/applyBlocks", map[string]any{"text": out2, "dry_run": true}, &res); err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Blocks[0].Status != "validated" || res.Blocks[1].Status != "validated" {
		t.Fatalf("dry run: %+v", res.Blocks)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src/closed.go")); !strings.Contains(string(b), "// done") || strings.Contains(string(b), "// 1") {
		t.Fatalf("dry run wrote: %q", b)
	}
}

// TestApplyBlocksGuard: a block touching lines the agent never read fails
// with the exact range, and returns them.
func TestApplyBlocksGuard(t *testing.T) {
	src := "a\nb\nc\nd\ne\nf\n"
	e, root := start(t, map[string]string{"g.txt": src}, lsptest.Options{})
	u := fileURI(root, "g.txt")
	read(t, e, u, nil, map[string]any{"range": map[string]int{"start": 1, "end": 2}})
	var res engine.BlocksResult
	e.Call("sightline/applyBlocks", map[string]any{"text": "g.txt\n<<<< EDIT\nd\ne\n==== REPLACE\nD\ne\n>>>> EDIT END\n"}, &res)
	b := res.Blocks[0]
	if b.Status != "failed" || b.Error != "unread_range" || !strings.HasPrefix(b.Message, "Lines 4-5 were not read.") || !strings.HasPrefix(b.Expanded, "4:") {
		t.Fatalf("guard on blocks: %+v", b)
	}
}
