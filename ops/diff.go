package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Diff is sightline/diff: the unified diff between two recorded versions
// of a document (or a version and its current text).
var Diff = define(spec[engine.DiffParams, engine.DiffResult]{
	method:   "sightline/diff",
	required: true,
	docs: func(p engine.DiffParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.DiffParams) (engine.DiffResult, error) {
		return c.Env.Diff(ctx, p)
	},
	text: func(r *engine.DiffResult) string {
		if !r.OK {
			return ""
		}
		if r.Diff == "" {
			var b strings.Builder
			line(&b, r.Message)
			return b.String()
		}
		return r.Diff
	},
})
