package ops

import (
	"context"

	"github.com/sightline-lsp/sightline/handlers"
)

// Reset is sightline/session/reset: a session forgets what it read, wrote
// and was allowed.
var Reset = define(spec[handlers.ResetParams, handlers.Outcome]{
	method: "sightline/session/reset",
	writes: func(handlers.ResetParams) bool { return true },
	audit:  func(p handlers.ResetParams) (handlers.Caller, bool) { return p.Caller, true },
	run: func(ctx context.Context, c *Call, p handlers.ResetParams) (handlers.Outcome, error) {
		if c.Disk {
			// The documents the database holds, so that the reset reaches
			// them all.
			c.Env.LoadSession(ctx, p.SessionOr())
		}
		o, touched := c.Env.Reset(ctx, p)
		if c.Touched != nil {
			c.Touched(touched)
		}
		return o, nil
	},
	text: func(o *handlers.Outcome) string {
		if !o.OK {
			return ""
		}
		return o.Message + "\n"
	},
})
