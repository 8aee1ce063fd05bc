package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// Ledger is sightline/ledger: what a session read, wrote and what went
// stale, per document.
var Ledger = define(spec[engine.LedgerParams, engine.LedgerResult]{
	method: "sightline/ledger",
	docs: func(p engine.LedgerParams, _ func(string) (workspace.Key, error)) []string {
		if p.TextDocument == nil {
			return nil
		}
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.LedgerParams) (engine.LedgerResult, error) {
		if c.Disk && p.TextDocument == nil {
			// Every document the database holds for the session, not only
			// those this process has seen.
			c.Env.LoadSession(ctx, p.SessionOr())
		}
		return c.Env.LedgerReport(ctx, p)
	},
	text: func(r *engine.LedgerResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		if len(r.Documents) == 0 {
			printf(&b, "Session %s has read nothing yet.\n", r.Session)
		}
		for _, d := range r.Documents {
			printf(&b, "%s  %s  %d lines", d.Path, d.State, d.TotalLines)
			for _, part := range []struct {
				name string
				rs   []ledger.Range
			}{{"read", d.Read}, {"authored", d.Authored}, {"stale", d.Stale}, {"unread", d.Unread}} {
				if len(part.rs) > 0 {
					printf(&b, "  %s %s", part.name, ledger.List(part.rs))
				}
			}
			b.WriteByte('\n')
		}
		return b.String()
	},
	tool: tool("sightline_ledger", "What you have read",
		`Show what your session has read, written and what went stale (changed by someone else since you read it), per file, as line ranges; "unread" lists what you have not seen. With path, one file; without, every file the session touched. Use it to plan which ranges to read before editing.`,
		true, func(in ledgerIn, caller engine.Caller, key func(string) workspace.Key) (engine.LedgerParams, error) {
			p := engine.LedgerParams{Caller: as(caller, in.Session)}
			if in.Path != "" {
				doc, err := toolDoc(in.Path, key)
				p.TextDocument = &doc
				return p, err
			}
			return p, nil
		}, nil),
})

type ledgerIn struct {
	Path    string `json:"path,omitempty" jsonschema:"File path relative to the workspace root (an absolute path inside the workspace also works)."`
	Session string `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
