package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Rollback is sightline/rollback: a document's text made a recorded
// version again, through the guard like any write.
var Rollback = define(spec[engine.RollbackParams, engine.RollbackResult]{
	method:   "sightline/rollback",
	required: true,
	// A dry run too goes to the server holding the document open: only it
	// knows the buffer the diff is of.
	writes: func(engine.RollbackParams) bool { return true },
	docs: func(p engine.RollbackParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.RollbackParams) (engine.RollbackResult, error) {
		return c.Env.Rollback(ctx, p)
	},
	text: func(r *engine.RollbackResult) string {
		var b strings.Builder
		if !r.OK {
			expanded(&b, r.GuardRefusal)
			return b.String()
		}
		line(&b, r.Message)
		b.WriteString(r.Diff)
		return b.String()
	},
})
