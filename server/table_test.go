package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/lsptest"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/server"
)

// TestTableThroughEveryDoor walks the operation table: every operation
// runs through the editor's connection (LSP, asking for the rendered text)
// and through the bridge as the CLI and sightline mcp reach it (package
// backend, rendering the text itself), and both answer the same verdict in
// the same words. An operation added to the table without a call here
// fails the test.
func TestTableThroughEveryDoor(t *testing.T) {
	src := "a\nb\nc\n"
	state := filepath.Join(t.TempDir(), "state")
	e, root := start(t, map[string]string{"f.txt": src}, lsptest.Options{Server: server.Options{Bridge: true, StateDir: state}})
	u := fileURI(root, "f.txt")
	b := route.New(route.Options{Root: root, StateDir: state, OpenLocal: func(context.Context) (*engine.Env, error) {
		return nil, errors.New("the test's calls must reach the server")
	}})
	t.Cleanup(func() { b.Close(context.Background()) })
	doc := map[string]any{"uri": u}
	ref2 := "2:" + hashline.Hash("b")
	calls := map[string]map[string]any{
		"sightline/read":          {"textDocument": doc},
		"sightline/edit":          {"textDocument": doc, "dryRun": true, "edits": []map[string]any{{"type": "replace_line", "ref": ref2, "new_content": "B"}}},
		"sightline/write":         {"textDocument": doc, "dryRun": true, "mode": "append", "content": "d"},
		"sightline/applyBlocks":   {"dryRun": true, "text": "f.txt\n<<<< EDIT\nb\n==== REPLACE\nB\n>>>> EDIT END\n"},
		"sightline/applyPatch":    {"dryRun": true, "text": "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		"sightline/ledger":        {"textDocument": doc},
		"sightline/summary":       {"textDocument": doc},
		"sightline/files":         {},
		"sightline/history":       {"textDocument": doc},
		"sightline/diff":          {"textDocument": doc},
		"sightline/rollback":      {"textDocument": doc, "version": 1, "dryRun": true},
		"sightline/open":          {"textDocument": doc, "line": 2},
		"sightline/stats":         nil, // counts differ between two calls: the verdict is compared
		"sightline/approvals":     {},
		"sightline/session/reset": {"session": "other"},
		"sightline/audit":         nil,
		"sightline/sessions":      nil,
		"sightline/shown":         {"textDocument": doc, "lines": []map[string]any{{"line": 1, "text": "a"}}},
		"sightline/check":         {"textDocument": doc, "old": []map[string]any{{"text": "b"}}},
	}
	// Reads first, so that the dry runs are judged on read lines.
	for _, op := range append([]ops.Op{ops.Read}, ops.Table()...) {
		t.Run(strings.TrimPrefix(op.Method(), "sightline/"), func(t *testing.T) {
			params, ok := calls[op.Method()]
			if !ok {
				// Its tool's example.
				_, ex, _, err := lsptest.Example(op, root)
				if err != nil {
					t.Fatal(err)
				}
				params = ex
			}
			compareText := params != nil
			if params == nil {
				params = map[string]any{}
			}
			raw, _ := json.Marshal(params)

			// The editor's door, asking for the text.
			withText := map[string]any{"render": true}
			for k, v := range params {
				withText[k] = v
			}
			var lsp struct {
				engine.Outcome
			}
			if err := e.Call(op.Method(), withText, &lsp); err != nil {
				t.Fatalf("LSP: %v", err)
			}

			// The bridge's door, as the CLI and MCP call it.
			p, err := op.Params(raw)
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.Call(context.Background(), op, p)
			if err != nil {
				t.Fatalf("bridge: %v", err)
			}
			out := op.Outcome(res)
			if out.OK != lsp.OK || out.Error != lsp.Error {
				t.Fatalf("verdicts differ: LSP %v %s, bridge %v %s (%s)", lsp.OK, lsp.Error, out.OK, out.Error, out.Message)
			}
			if lsp.Text == "" && op.Method() != "sightline/audit" {
				t.Fatalf("LSP: no text rendered: %+v", lsp.Outcome)
			}
			if got := op.Text(res); compareText && got != lsp.Text {
				t.Fatalf("texts differ:\nLSP:\n%s\nbridge:\n%s", lsp.Text, got)
			}
		})
	}

	// Every audit row names the operation it audits: the envelope hands
	// the method down (the streamed edit-block run names it too), and
	// every operation that shows or writes text audited its call.
	var audit engine.AuditResult
	if err := e.Call("sightline/audit", map[string]any{}, &audit); err != nil {
		t.Fatal(err)
	}
	audited := map[string]bool{}
	for _, row := range audit.Entries {
		if ops.Lookup(row.Method) == nil {
			t.Errorf("audit row names %q, no operation of the table: %+v", row.Method, row)
		}
		audited[row.Method] = true
	}
	for _, op := range []ops.Op{ops.Read, ops.Edit, ops.Write, ops.ApplyBlocks, ops.ApplyPatch, ops.Summary,
		ops.Files, ops.History, ops.Diff, ops.Rollback, ops.Open, ops.Reset, ops.Shown, ops.Check} {
		if !audited[op.Method()] {
			t.Errorf("%s: no audit row names it (rows: %v)", op.Method(), audited)
		}
	}

	// State afterwards: the reset through the bridge reached the server.
	var led engine.LedgerResult
	if err := e.Call("sightline/ledger", map[string]any{"session": "other"}, &led); err != nil || len(led.Documents) != 0 {
		t.Fatalf("session other after its reset: %v %+v", err, led.Documents)
	}
}

// TestTableWarnsOfAnUnusableDatabase: every operation's answer carries the
// warnings every answer carries (here: a state database that cannot be
// opened), whether it reads, writes or reports.
func TestTableWarnsOfAnUnusableDatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, root := start(t, map[string]string{"f.txt": "a\nb\nc\n"}, lsptest.Options{Server: server.Options{StateDir: filepath.Join(file, "state")}})
	doc := map[string]any{"uri": fileURI(root, "f.txt")}
	calls := map[string]map[string]any{
		"sightline/read":          {"textDocument": doc},
		"sightline/edit":          {"textDocument": doc, "dryRun": true, "edits": []map[string]any{{"type": "replace_line", "ref": "2:" + hashline.Hash("b"), "new_content": "B"}}},
		"sightline/write":         {"textDocument": doc, "dryRun": true, "mode": "append", "content": "d"},
		"sightline/applyBlocks":   {"dryRun": true, "text": "f.txt\n<<<< EDIT\nb\n==== REPLACE\nB\n>>>> EDIT END\n"},
		"sightline/applyPatch":    {"dryRun": true, "text": "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		"sightline/ledger":        {"textDocument": doc},
		"sightline/summary":       {"textDocument": doc},
		"sightline/files":         {},
		"sightline/history":       {"textDocument": doc},
		"sightline/diff":          {"textDocument": doc},
		"sightline/rollback":      {"textDocument": doc, "version": 1, "dryRun": true},
		"sightline/open":          {"textDocument": doc},
		"sightline/stats":         {},
		"sightline/approvals":     {},
		"sightline/session/reset": {"session": "other"},
		"sightline/audit":         {},
		"sightline/sessions":      {},
		"sightline/shown":         {"textDocument": doc, "lines": []map[string]any{{"line": 1, "text": "a"}}},
		"sightline/check":         {"textDocument": doc, "old": []map[string]any{{"text": "b"}}},
	}
	for _, op := range append([]ops.Op{ops.Read}, ops.Table()...) {
		params, ok := calls[op.Method()]
		if !ok {
			_, ex, _, err := lsptest.Example(op, root)
			if err != nil {
				t.Fatal(err)
			}
			params = ex
		}
		var res engine.Outcome
		if err := e.Call(op.Method(), params, &res); err != nil {
			t.Fatalf("%s: %v", op.Method(), err)
		}
		if !strings.Contains(strings.Join(res.Warnings, " "), file) {
			t.Errorf("%s: no warning of the unusable database: %+v", op.Method(), res)
		}
	}
}
