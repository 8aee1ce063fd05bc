package handlers

import (
	"fmt"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// Severity is how strongly the editor should show a Diagnostic.
type Severity int

const (
	// SeverityInformation marks unread ranges: worth knowing, not wrong.
	SeverityInformation Severity = iota + 1
	// SeverityWarning marks stale ranges: an edit there will be refused.
	SeverityWarning
)

// Diagnostic is one thing the editor shows of a session's ledger: a range of
// lines (1-based, inclusive), its code ("unread", "stale") and a message. The
// LSP layer turns it into an LSP diagnostic.
type Diagnostic struct {
	Lines    ledger.Range
	Severity Severity
	Code     string
	Message  string
}

// Diagnostics returns what the editor shows of a session's ledger for one
// document: unread ranges (Information) of a document the session has
// partially read or is editing, each naming what it contains, and stale ranges
// (Warning). A document the session never touched, or read whole, gets none.
// The slice is never nil: an empty one clears the editor's list.
func (e *Env) Diagnostics(session string, d workspace.Doc) []Diagnostic {
	out := []Diagnostic{}
	v := e.Ledger.Doc(session, ledger.DocKey(d.Key))
	cfg := e.Config()
	if v.State == ledger.NeverRead {
		return out
	}
	if cfg.Diagnostics.Unread {
		var syms []extract.Symbol
		if len(v.Unread) > 0 {
			syms = e.syms.hints(d)
		}
		for _, r := range v.Unread {
			msg := fmt.Sprintf("%s not read by the agent (session %s).", r.Word(), session)
			if hint := extract.Summary(symbolsWithin(syms, r), maxHints); hint != "" {
				msg = fmt.Sprintf("%s not read by the agent (session %s) — contains: %s", r.Word(), session, hint)
			}
			out = append(out, Diagnostic{Lines: r, Severity: SeverityInformation, Code: "unread", Message: msg})
		}
	}
	if cfg.Diagnostics.Stale {
		for _, r := range v.Stale {
			msg := fmt.Sprintf("%s changed since the agent (session %s) read them; it must read them again before editing.", r.Word(), session)
			out = append(out, Diagnostic{Lines: r, Severity: SeverityWarning, Code: "stale", Message: msg})
		}
	}
	return out
}

func symbolsWithin(syms []extract.Symbol, r ledger.Range) []extract.Symbol {
	var out []extract.Symbol
	for _, s := range syms {
		if s.Start >= r.Start && s.Start <= r.End {
			out = append(out, s)
		}
	}
	return out
}
