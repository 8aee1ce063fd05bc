package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// FuzzParams decodes arbitrary params of each sightline/* method, as the
// server does, and handles them against an in-process workspace: no panic,
// an error is only ever invalid params, a refusal always names its kind, and
// an answer never says ok with an error kind.
func FuzzParams(f *testing.F) {
	seeds := map[uint8]string{
		0: `{"textDocument":{"uri":"URI"},"range":{"start":1,"end":2}}`,
		1: `{"textDocument":{"uri":"URI"},"edits":[{"type":"replace_line","ref":"1:0000","new_content":"x"}]}`,
		2: `{"textDocument":{"uri":"URI"},"mode":"edit","old_text":"two","content":"deux"}`,
		3: `{"text":"a.txt\n<<<< EDIT\ntwo\n==== REPLACE\n2\n>>>> EDIT END\n"}`,
		4: `{"textDocument":{"uri":"URI"},"maxChars":10}`,
		5: `{"textDocument":{"uri":"URI"}}`,
		6: `{"session":"s"}`,
		7: `{"limit":3}`,
	}
	for m, s := range seeds {
		f.Add(m, s)
	}
	f.Add(uint8(1), `{"textDocument":{"uri":"URI"},"edits":"[{\"type\":\"delete_range\",\"start_ref\":\"2:0000\",\"end_ref\":\"1:0000\"}]"}`)
	f.Add(uint8(0), `{"textDocument":{"uri":"file:///etc/passwd"}}`)
	root := f.TempDir()
	env := engine.SetupTest(f, engine.Options{Roots: []string{root}, Config: config.Default(), NoPersist: true})
	path := filepath.Join(root, "a.txt")
	uri := string(workspace.FromPath(path))
	f.Fuzz(func(t *testing.T, method uint8, raw string) {
		if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		raw = strings.ReplaceAll(raw, "URI", uri)
		ctx := context.Background()
		var out any
		var err error
		decode := func(v any) bool { return json.Unmarshal([]byte(raw), v) == nil }
		switch method % 8 {
		case 0:
			var p engine.ReadParams
			if decode(&p) {
				out, err = env.Read(ctx, p)
			}
		case 1:
			var p engine.EditParams
			if decode(&p) {
				p.DryRun = p.DryRun || len(raw)%2 == 0
				out, err = env.Edit(ctx, p)
			}
		case 2:
			var p engine.WriteParams
			if decode(&p) {
				out, err = env.Write(ctx, p)
			}
		case 3:
			var p engine.BlocksParams
			if decode(&p) {
				out, err = env.ApplyBlocks(ctx, p)
			}
		case 4:
			var p engine.SummaryParams
			if decode(&p) {
				out, err = env.Summary(ctx, p)
			}
		case 5:
			var p engine.LedgerParams
			if decode(&p) {
				out, err = env.LedgerReport(ctx, p)
			}
		case 6:
			var p engine.ResetParams
			if decode(&p) {
				out, _ = env.Reset(ctx, p)
			}
		case 7:
			var p engine.StatsParams
			if decode(&p) {
				out, err = env.Stats(ctx, p)
			}
		}
		if err != nil {
			if k := result.KindOf(err); k != result.InvalidParams {
				t.Fatalf("method %d: error of kind %q: %v", method%8, k, err)
			}
			return
		}
		if out == nil {
			return
		}
		b, _ := json.Marshal(out)
		var o struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		json.Unmarshal(b, &o)
		if o.OK == (o.Error != "") && method%8 != 3 {
			t.Fatalf("method %d: ok %v with error %q: %s", method%8, o.OK, o.Error, b)
		}
	})
}
