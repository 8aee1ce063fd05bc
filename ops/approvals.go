package ops

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/handlers"
)

// Approvals is sightline/approvals: the sensitive paths sessions were
// allowed to use; a revocation forgets those of a path.
var Approvals = define(spec[handlers.ApprovalsParams, handlers.ApprovalsResult]{
	method: "sightline/approvals",
	writes: func(p handlers.ApprovalsParams) bool { return p.Revoke != "" },
	audit: func(p handlers.ApprovalsParams) (handlers.Caller, bool) {
		return handlers.Caller{Session: p.Session}, p.Revoke != ""
	},
	run: func(ctx context.Context, c *Call, p handlers.ApprovalsParams) (handlers.ApprovalsResult, error) {
		return c.Env.Approvals(ctx, p)
	},
	text: func(r *handlers.ApprovalsResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		if r.Message != "" {
			b.WriteString(r.Message + "\n")
		}
		if len(r.Approvals) == 0 {
			b.WriteString("No approvals remembered.\n")
		}
		for _, a := range r.Approvals {
			fmt.Fprintf(&b, "%s  %s  %s  %s\n", a.Session, a.Path, a.Granted.UTC().Format(time.DateTime), a.Rule)
		}
		return b.String()
	},
})
