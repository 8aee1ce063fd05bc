package ops

import (
	"context"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/engine"
)

// Approvals is sightline/approvals: the sensitive paths sessions were
// allowed to use; a revocation forgets those of a path.
var Approvals = define(spec[engine.ApprovalsParams, engine.ApprovalsResult]{
	method: "sightline/approvals",
	writes: func(p engine.ApprovalsParams) bool { return p.Revoke != "" },
	run: func(ctx context.Context, c *Call, p engine.ApprovalsParams) (engine.ApprovalsResult, error) {
		return c.Env.Approvals(ctx, p)
	},
	text: func(r *engine.ApprovalsResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		if r.Message != "" {
			line(&b, r.Message)
		}
		if len(r.Approvals) == 0 {
			b.WriteString("No approvals remembered.\n")
		}
		for _, a := range r.Approvals {
			printf(&b, "%s  %s  %s  %s\n", a.Session, a.Path, a.Granted.UTC().Format(time.DateTime), a.Rule)
		}
		return b.String()
	},
})
