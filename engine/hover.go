package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// Hover tells, for one line (1-based), what the session knows of it, as
// Markdown: who read or wrote it, when, and at which version; or that it is
// unread or stale. ok is false when there is nothing to tell.
func (e *Env) Hover(session string, d workspace.Doc, n int) (markdown string, ok bool) {
	if n < 1 || n > d.Snap.LineCount() {
		return "", false
	}
	v := e.Ledger.Doc(session, ledger.DocKey(d.Key))
	if v.State == ledger.NeverRead {
		return "", false
	}
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
	return b.String(), true
}

func in(rs []ledger.Range, n int) bool {
	for _, r := range rs {
		if n >= r.Start && n <= r.End {
			return true
		}
	}
	return false
}
