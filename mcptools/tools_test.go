package mcptools_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sightline-lsp/sightline/mcptools"
	"github.com/sightline-lsp/sightline/ops"
)

// TestToolsAreToolsJSON: the MCP server lists the tools tools.json says
// this door offers, with the same descriptions, schemas and annotations
// the editors read there.
func TestToolsAreToolsJSON(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcptools.New(mcptools.Options{Version: "test"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ops.ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Tools []struct {
			Name, Title, Description string
			Annotations              map[string]bool
			InputSchema              json.RawMessage
			Doors                    []string
		}
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tl := range file.Tools {
		if !slices.Contains(tl.Doors, "mcp") {
			continue
		}
		want = append(want, tl.Name)
		i := slices.IndexFunc(listed.Tools, func(m *mcp.Tool) bool { return m.Name == tl.Name })
		if i < 0 {
			t.Errorf("%s: not listed", tl.Name)
			continue
		}
		m := listed.Tools[i]
		schema, _ := json.Marshal(m.InputSchema)
		var a, b any
		json.Unmarshal(schema, &a)
		json.Unmarshal(tl.InputSchema, &b)
		ann := m.Annotations
		if m.Description != tl.Description || m.Title != tl.Title || !jsonEqual(a, b) ||
			ann == nil || ann.ReadOnlyHint != tl.Annotations["readOnlyHint"] || *ann.DestructiveHint != tl.Annotations["destructiveHint"] ||
			ann.IdempotentHint != tl.Annotations["idempotentHint"] || *ann.OpenWorldHint != tl.Annotations["openWorldHint"] {
			t.Errorf("%s differs from tools.json:\n%+v\n%s", tl.Name, m, schema)
		}
	}
	if len(listed.Tools) != len(want) || len(want) == 0 {
		t.Errorf("listed %d tools, tools.json offers %d here", len(listed.Tools), len(want))
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
