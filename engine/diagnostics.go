package engine

import (
	"cmp"
	"fmt"
	"slices"

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

// MaxDiagnostics bounds the diagnostics of one kind (unread, stale) that one
// document gets. An agent reading every other line makes one range per read;
// one diagnostic per range would make what the editor is sent after each read
// grow with the session. Past the bound, consecutive ranges share one
// diagnostic spanning them, which counts them.
const MaxDiagnostics = 50

// Diagnostics returns what the editor shows of a session's ledger for one
// document: unread ranges (Information) of a document the session has
// partially read or is editing, each naming what it contains, and stale ranges
// (Warning); at most MaxDiagnostics of each, consecutive ranges coalesced past
// that. A document the session never touched, or read whole, gets none.
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
		for _, g := range coalesce(v.Unread) {
			msg := fmt.Sprintf("%s not read by the agent (session %s).", g.word(), session)
			if hint := extract.Summary(symbolsWithin(syms, g.ranges), maxHints); hint != "" {
				msg = fmt.Sprintf("%s not read by the agent (session %s) — contains: %s", g.word(), session, hint)
			}
			out = append(out, Diagnostic{Lines: g.span(), Severity: SeverityInformation, Code: "unread", Message: msg})
		}
	}
	if cfg.Diagnostics.Stale {
		for _, g := range coalesce(v.Stale) {
			msg := fmt.Sprintf("%s changed since the agent (session %s) read them; it must read them again before editing.", g.word(), session)
			out = append(out, Diagnostic{Lines: g.span(), Severity: SeverityWarning, Code: "stale", Message: msg})
		}
	}
	return out
}

// rangeGroup is consecutive ranges that one diagnostic shows.
type rangeGroup struct{ ranges []ledger.Range }

// coalesce cuts sorted ranges into at most MaxDiagnostics groups of
// consecutive ranges, as even in count as they divide.
func coalesce(rs []ledger.Range) []rangeGroup {
	n := len(rs)
	groups := min(n, MaxDiagnostics)
	out := make([]rangeGroup, 0, groups)
	for i := range groups {
		out = append(out, rangeGroup{rs[i*n/groups : (i+1)*n/groups]})
	}
	return out
}

func (g rangeGroup) span() ledger.Range {
	return ledger.Range{Start: g.ranges[0].Start, End: g.ranges[len(g.ranges)-1].End}
}

// word names the group's lines: "Lines 3-6" for one range, "Lines 3-41 (12
// lines in 6 ranges)" for several.
func (g rangeGroup) word() string {
	if len(g.ranges) == 1 {
		return g.ranges[0].Word()
	}
	lines := 0
	for _, r := range g.ranges {
		lines += r.Len()
	}
	return fmt.Sprintf("%s (%d lines in %d ranges)", g.span().Word(), lines, len(g.ranges))
}

// symbolsWithin returns the symbols that start in one of the sorted ranges.
func symbolsWithin(syms []extract.Symbol, rs []ledger.Range) []extract.Symbol {
	var out []extract.Symbol
	for _, s := range syms {
		i, _ := slices.BinarySearchFunc(rs, s.Start, func(r ledger.Range, line int) int { return cmp.Compare(r.End, line) })
		if i < len(rs) && rs[i].Contains(s.Start) {
			out = append(out, s)
		}
	}
	return out
}
