package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Shown is sightline/shown: lines an agent's own tool showed it (a Read, a
// shell command's output) or wrote, recorded in its session's ledger when
// they are the document's current lines, whole. The hook doors call it
// after the agent's tool ran.
var Shown = define(spec[engine.ShownParams, engine.ShownResult]{
	method:   "sightline/shown",
	required: true,
	// It changes the session's ledger: never on the disk behind a server's
	// back.
	writes: func(engine.ShownParams) bool { return true },
	docs: func(p engine.ShownParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.ShownParams) (engine.ShownResult, error) {
		return c.Env.Shown(ctx, p)
	},
	text: func(r *engine.ShownResult) string {
		if !r.OK {
			return ""
		}
		var b strings.Builder
		line(&b, r.Message)
		return b.String()
	},
})

// Check is sightline/check: the edit guard asked about a change an agent's
// own tool is about to make (the texts it replaces, or the whole file). A
// refusal hands over the missing lines, which now count as read, so the
// agent's retry succeeds. The hook doors call it before the agent's tool
// runs.
var Check = define(spec[engine.CheckParams, engine.CheckResult]{
	method:   "sightline/check",
	required: true,
	// A refusal records the lines it hands over.
	writes: func(engine.CheckParams) bool { return true },
	docs: func(p engine.CheckParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.CheckParams) (engine.CheckResult, error) {
		return c.Env.Check(ctx, p)
	},
	text: func(r *engine.CheckResult) string {
		var b strings.Builder
		if r.OK {
			line(&b, r.Message)
			return b.String()
		}
		if r.Shown != "" {
			printf(&b, "%s as it is now:\n", r.Path)
			b.WriteString(r.Shown)
		}
		return b.String()
	},
})
