package ops_test

import (
	"testing"

	"github.com/sightline-lsp/sightline/ops"
)

// TestToolSchemas infers every agent tool's input schema: they are inferred
// on first use, so a mistake in an input type shows here, not when an
// agent first lists the tools.
func TestToolSchemas(t *testing.T) {
	n := 0
	for _, op := range ops.Table() {
		if op.Tool == nil {
			continue
		}
		n++
		if s := op.Tool.Schema(); s == nil || s.Type != "object" || len(s.Properties) == 0 {
			t.Errorf("%s: schema %+v", op.Tool.Name, s)
		}
	}
	if n == 0 {
		t.Fatal("no agent tools in the table")
	}
}
