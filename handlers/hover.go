package handlers

import (
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// Hover tells, for one line (0-based), what the session knows of it: who read
// or wrote it, when, and at which version; or that it is unread or stale.
func (e *Env) Hover(session string, d workspace.Doc, line int, enc textdoc.Encoding) *protocol.Hover {
	if line < 0 || line >= d.Snap.LineCount() {
		return nil
	}
	v := e.Ledger.Doc(session, ledger.DocKey(d.Key))
	if v.State == ledger.NeverRead {
		return nil
	}
	n := line + 1
	var b strings.Builder
	fmt.Fprintf(&b, "**sightline** · line %d · session `%s`\n\n", n, session)
	switch {
	case in(v.Stale, n):
		b.WriteString("Changed since the agent read it: stale, must be read again before an edit.\n\n")
	case in(v.Authored, n):
		b.WriteString("Written by the agent.\n\n")
	case in(v.Read, n):
		b.WriteString("Read by the agent.\n\n")
	default:
		b.WriteString("Not read by the agent.\n\n")
	}
	shown := 0
	for i := len(v.Records) - 1; i >= 0 && shown < 5; i-- {
		r := v.Records[i]
		if !in(r.Lines, n) {
			continue
		}
		who := r.Agent
		if who == "" {
			who = "agent"
		}
		verb := "read"
		if r.Kind == "authored" {
			verb = "wrote"
		}
		at := "from disk"
		if v, ok := e.WS.VersionAt(d.Key, r.Rev); ok {
			at = fmt.Sprintf("at version %d", v)
		}
		fmt.Fprintf(&b, "- %s %s lines %d-%d %s, %s\n", who, verb, r.Range.Start, r.Range.End, at, r.Time.Local().Format(time.TimeOnly))
		shown++
	}
	lr := LSPRange(d.Snap, ledger.Range{Start: n, End: n}, enc)
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: b.String()},
		Range:    &lr,
	}
}

func in(rs []ledger.Range, n int) bool {
	for _, r := range rs {
		if n >= r.Start && n <= r.End {
			return true
		}
	}
	return false
}
