package handlers

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// CodeLenses returns the lens on line 1 of a document the session has read in
// part or has stale lines in: "Agent read 120/680 lines · 1 stale range".
func (e *Env) CodeLenses(session string, d workspace.Doc) []protocol.CodeLens {
	v := e.Ledger.Summarize(session, ledger.DocKey(d.Key))
	if v.State == ledger.NeverRead || (v.UnreadLines == 0 && v.StaleLines == 0) {
		return []protocol.CodeLens{}
	}
	title := fmt.Sprintf("Agent read %d/%d lines", v.ReadLines+v.AuthoredLines, v.TotalLines)
	if n := v.StaleRanges; n > 0 {
		title += fmt.Sprintf(" · %d stale %s", n, plural(n, "range", "ranges"))
	}
	return []protocol.CodeLens{{
		Range: protocol.Range{},
		// An empty command id makes the lens a label; editors show it without
		// offering to run anything.
		Command: protocol.Command{Title: title, Command: ""},
	}}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
