package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Open is sightline/open: the editor shows a document at a line.
var Open = define(spec[engine.OpenParams, engine.OpenResult]{
	method:   "sightline/open",
	required: true,
	docs: func(p engine.OpenParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.OpenParams) (engine.OpenResult, error) {
		return c.Env.Open(ctx, p, c.Shower)
	},
	text: func(r *engine.OpenResult) string {
		if !r.OK {
			return ""
		}
		var b strings.Builder
		line(&b, r.Message)
		return b.String()
	},
})
