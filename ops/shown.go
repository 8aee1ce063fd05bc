package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/workspace"
)

// Shown is sightline/shown: lines an agent's own tool showed it (a Read, a
// shell command's output) or wrote, recorded in its session's ledger when
// they are the document's current lines, whole. The hook doors call it
// after the agent's tool ran.
var Shown = define(spec[handlers.ShownParams, handlers.ShownResult]{
	method:   "sightline/shown",
	required: true,
	// It changes the session's ledger: never on the disk behind a server's
	// back.
	writes: func(handlers.ShownParams) bool { return true },
	docs: func(p handlers.ShownParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p handlers.ShownParams) (handlers.ShownResult, error) {
		return c.Env.Shown(ctx, p)
	},
	text: func(r *handlers.ShownResult) string {
		if !r.OK {
			return ""
		}
		return r.Message + "\n"
	},
})

// Check is sightline/check: the edit guard asked about a change an agent's
// own tool is about to make (the texts it replaces, or the whole file). A
// refusal hands over the missing lines, which now count as read, so the
// agent's retry succeeds. The hook doors call it before the agent's tool
// runs.
var Check = define(spec[handlers.CheckParams, handlers.CheckResult]{
	method:   "sightline/check",
	required: true,
	// A refusal records the lines it hands over.
	writes: func(handlers.CheckParams) bool { return true },
	docs: func(p handlers.CheckParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p handlers.CheckParams) (handlers.CheckResult, error) {
		return c.Env.Check(ctx, p)
	},
	text: func(r *handlers.CheckResult) string {
		var b strings.Builder
		if r.OK {
			b.WriteString(r.Message + "\n")
			return b.String()
		}
		if r.Shown != "" {
			b.WriteString(r.Path + " as it is now:\n" + r.Shown)
		}
		return b.String()
	},
})
