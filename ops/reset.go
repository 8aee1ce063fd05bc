package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
)

// Reset is sightline/session/reset: a session forgets what it read, wrote
// and was allowed.
var Reset = define(spec[engine.ResetParams, engine.Outcome]{
	method: "sightline/session/reset",
	writes: func(engine.ResetParams) bool { return true },
	run: func(ctx context.Context, c *Call, p engine.ResetParams) (engine.Outcome, error) {
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
	text: func(o *engine.Outcome) string {
		if !o.OK {
			return ""
		}
		var b strings.Builder
		line(&b, o.Message)
		return b.String()
	},
})
