package ops_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// TestToolSchemas infers every agent tool's input schema: they are inferred
// on first use, so a mistake in an input type shows here, not when an
// agent first lists the tools.
func TestToolSchemas(t *testing.T) {
	n := 0
	for _, op := range ops.Table() {
		if op.Tool() == nil {
			continue
		}
		n++
		if s := op.Tool().Schema(); s == nil || s.Type != "object" || len(s.Properties) == 0 {
			t.Errorf("%s: schema %+v", op.Tool().Name, s)
		}
	}
	if n == 0 {
		t.Fatal("no agent tools in the table")
	}
}

// TestToolArguments: a tool's arguments as models write them (numbers and
// booleans in strings, arrays as JSON strings, one object for an array of
// them, the whole object as a JSON string) are read as the schema says;
// the door's caller is the call's unless the arguments name a session.
func TestToolArguments(t *testing.T) {
	key := func(p string) workspace.Key { return workspace.Key("file:///ws/" + p) }
	door := engine.Caller{Session: "door", Agent: "vscode-agent", Rendering: engine.Rendering{Render: true}}
	p, err := ops.Read.Tool().Params(json.RawMessage(`{"path":"a.go","start":"4","end":" 9 "}`), door, key)
	if r := p.(engine.ReadParams); err != nil || r.Range == nil || r.Range.Start != 4 || r.Range.End != 9 || r.Caller != door || r.TextDocument.URI != "file:///ws/a.go" {
		t.Fatalf("read: %+v %v", p, err)
	}
	p, err = ops.Read.Tool().Params(json.RawMessage(`"{\"path\":\"a.go\",\"session\":\"own\"}"`), door, key)
	if r := p.(engine.ReadParams); err != nil || r.Session != "own" || r.Agent != "vscode-agent" || !r.Render {
		t.Fatalf("read as a JSON string: %+v %v", p, err)
	}
	op := `{"type":"replace_line","ref":"1:abcd","new_content":"x"}`
	for _, edits := range []string{`[` + op + `]`, op, strconvQuote(`[` + op + `]`), strconvQuote(op)} {
		p, err = ops.Edit.Tool().Params(json.RawMessage(`{"path":"a.go","dry_run":"true","edits":`+edits+`}`), door, key)
		if r, _ := p.(engine.EditParams); err != nil || !r.DryRun || !strings.HasPrefix(strings.TrimSpace(string(r.Edits)), "[{") {
			t.Fatalf("edits %s: %+v %v", edits, p, err)
		}
	}
	if _, err := ops.Read.Tool().Params(json.RawMessage(`{"path":"a.go","start":"four"}`), door, key); result.KindOf(err) != result.InvalidParams {
		t.Fatalf("a word for a line: %v", err)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
