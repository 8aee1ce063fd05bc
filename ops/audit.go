package ops

import (
	"context"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/engine"
)

// Audit is sightline/audit: the audit log, the rows not yet written
// included.
var Audit = define(spec[engine.AuditParams, engine.AuditResult]{
	method: "sightline/audit",
	run: func(ctx context.Context, c *Call, p engine.AuditParams) (engine.AuditResult, error) {
		return c.Env.Audit(ctx, p)
	},
	text: func(r *engine.AuditResult) string {
		var b strings.Builder
		for _, a := range r.Entries {
			outcome := a.Outcome
			if a.Error != "" {
				outcome += " " + a.Error
			}
			who := a.Session
			if a.Agent != "" {
				who += "/" + a.Agent
			}
			printf(&b, "%s  %-10s %-22s %-26s %s  %s → %s  %.1fms\n", a.Time.UTC().Format("2006-01-02 15:04:05.000"), who, a.Method, outcome, a.Path,
				short(a.Before), short(a.After), a.DurationMs)
		}
		return b.String()
	},
})

// short abbreviates a file hash for people: sha256:1a2b3c4d.
func short(h string) string {
	if len(h) > 15 {
		return h[:15]
	}
	if h == "" {
		return "-"
	}
	return h
}

// Sessions is sightline/sessions: the sessions of the ledger, the
// approvals and the audit log.
var Sessions = define(spec[engine.SessionsParams, engine.SessionsResult]{
	method: "sightline/sessions",
	run: func(ctx context.Context, c *Call, _ engine.SessionsParams) (engine.SessionsResult, error) {
		return c.Env.Sessions(ctx)
	},
	text: func(r *engine.SessionsResult) string {
		var b strings.Builder
		if len(r.Sessions) == 0 {
			b.WriteString("No sessions.\n")
		}
		for _, s := range r.Sessions {
			printf(&b, "%s  %d documents  %d approvals  last seen %s\n", s.Session, s.Documents, s.Approvals, s.LastSeen.UTC().Format(time.DateTime))
		}
		return b.String()
	},
})
