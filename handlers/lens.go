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
	v := e.Ledger.Doc(session, ledger.DocKey(d.Key))
	if v.State == ledger.NeverRead || (len(v.Unread) == 0 && len(v.Stale) == 0) {
		return []protocol.CodeLens{}
	}
	seen := count(v.Read) + count(v.Authored)
	title := fmt.Sprintf("Agent read %d/%d lines", seen, v.TotalLines)
	if n := len(v.Stale); n > 0 {
		title += fmt.Sprintf(" · %d stale %s", n, plural(n, "range", "ranges"))
	}
	return []protocol.CodeLens{{
		Range: protocol.Range{},
		// An empty command id makes the lens a label; editors show it without
		// offering to run anything.
		Command: protocol.Command{Title: title, Command: ""},
	}}
}

func count(rs []ledger.Range) int {
	n := 0
	for _, r := range rs {
		n += r.End - r.Start + 1
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
