package engine

import (
	"fmt"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// Lens is a label the editor shows above a line (1-based).
type Lens struct {
	Line  int
	Title string
}

// CodeLenses returns the lens on line 1 of a document the session has read in
// part or has stale lines in: "Agent read 120/680 lines · 1 stale range".
func (e *Env) CodeLenses(session string, d workspace.Doc) []Lens {
	v := e.Ledger.Summarize(session, ledger.DocKey(d.Key))
	if v.State == ledger.NeverRead || (v.UnreadLines == 0 && v.StaleLines == 0) {
		return []Lens{}
	}
	title := fmt.Sprintf("Agent read %d/%d lines", v.ReadLines+v.AuthoredLines, v.TotalLines)
	if n := v.StaleRanges; n > 0 {
		title += fmt.Sprintf(" · %d stale %s", n, plural(n, "range", "ranges"))
	}
	return []Lens{{Line: 1, Title: title}}
}
