package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/server"
)

// shape flattens a JSON value into "path: type" lines (null, bool, number,
// string, array, object), so two encodings of the same result compare by
// the fields they carry and their JSON types, not by values such as paths.
func shape(t *testing.T, raw []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case nil:
			out = append(out, path+": null")
		case bool:
			out = append(out, path+": bool")
		case float64:
			out = append(out, path+": number")
		case string:
			out = append(out, path+": string")
		case []any:
			out = append(out, path+": array")
			for _, e := range x {
				walk(path+"[]", e)
			}
		case map[string]any:
			out = append(out, path+": object")
			for k, e := range x {
				walk(path+"."+k, e)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	return slices.Compact(out)
}

// TestCLIAndLSPEncodeResultsAlike: the same handler results, answered over
// LSP (an in-process pipe) and printed by the CLI with --json, carry the
// same fields with the same JSON types.
func TestCLIAndLSPEncodeResultsAlike(t *testing.T) {
	files := map[string]string{"a.go": "package a\n\nfunc A() {}\n", "notes.txt": "one\ntwo\n"}
	mk := func() string {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, ".git"), 0o755)
		for name, text := range files {
			os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
		return dir
	}
	lspRoot, cliRoot := mk(), mk()
	ed := lsptest.Start(t, lsptest.Options{Root: lspRoot, Server: server.Options{StateDir: t.TempDir()}})
	lsp := func(method string, params map[string]any) []byte {
		t.Helper()
		var raw json.RawMessage
		if err := ed.Call(method, params, &raw); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return raw
	}
	doc := func(name string) map[string]string {
		return map[string]string{"uri": string(uri.File(filepath.Join(lspRoot, name)))}
	}

	t.Chdir(cliRoot)
	t.Setenv("SIGHTLINE_STATE_DIR", t.TempDir())
	cli := func(stdin string, args ...string) []byte {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args, "--json"), strings.NewReader(stdin), &out, &errb); code > 1 {
			t.Fatalf("sightline %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.Bytes()
	}
	edit := `[{"type":"replace_line","ref":"3:` + hashline.Hash("func A() {}") + `","new_content":"func B() {}"}]`

	cases := []struct {
		name string
		lsp  func() []byte
		cli  func() []byte
	}{
		{"read", func() []byte {
			return lsp("sightline/read", map[string]any{"textDocument": doc("a.go")})
		}, func() []byte { return cli("", "read", "a.go") }},
		{"edit (dryRun false)", func() []byte {
			return lsp("sightline/edit", map[string]any{"textDocument": doc("a.go"), "edits": json.RawMessage(edit)})
		}, func() []byte { return cli(edit, "edit", "a.go", "--edits", "-") }},
		{"edit refused (stale_ref)", func() []byte {
			return lsp("sightline/edit", map[string]any{"textDocument": doc("a.go"), "edits": json.RawMessage(edit)})
		}, func() []byte { return cli(edit, "edit", "a.go", "--edits", "-") }},
		{"read notes.txt", func() []byte {
			return lsp("sightline/read", map[string]any{"textDocument": doc("notes.txt")})
		}, func() []byte { return cli("", "read", "notes.txt") }},
		{"write", func() []byte {
			return lsp("sightline/write", map[string]any{"textDocument": doc("notes.txt"), "mode": "append", "content": "three\n"})
		}, func() []byte { return cli("three\n", "write", "notes.txt", "--mode", "append") }},
		{"write refused (no_match)", func() []byte {
			return lsp("sightline/write", map[string]any{"textDocument": doc("a.go"), "mode": "edit", "old_text": "package zz", "content": "x"})
		}, func() []byte { return cli("x", "write", "a.go", "--mode", "edit", "--old-text", "package zz") }},
		{"summary", func() []byte {
			return lsp("sightline/summary", map[string]any{"textDocument": doc("a.go")})
		}, func() []byte { return cli("", "summary", "a.go") }},
		{"ledger", func() []byte {
			return lsp("sightline/ledger", map[string]any{"textDocument": doc("a.go")})
		}, func() []byte { return cli("", "ledger", "a.go") }},
		{"applyBlocks", func() []byte {
			return lsp("sightline/applyBlocks", map[string]any{"text": "notes.txt\n<<<< EDIT\nnope\n==== REPLACE\nyes\n>>>> EDIT END\n"})
		}, func() []byte { return cli("notes.txt\n<<<< EDIT\nnope\n==== REPLACE\nyes\n>>>> EDIT END\n", "apply") }},
	}
	for _, c := range cases {
		viaLSP, viaCLI := c.lsp(), c.cli()
		if a, b := shape(t, viaLSP), shape(t, viaCLI); !slices.Equal(a, b) {
			t.Errorf("%s: the LSP answer and the CLI's --json differ\nLSP: %s\nCLI: %s\nLSP fields: %v\nCLI fields: %v", c.name, viaLSP, viaCLI, a, b)
		}
	}
}
