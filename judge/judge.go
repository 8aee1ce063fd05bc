// Package judge is how a door in front of an agent's own tools (the hooks,
// the ACP proxy) reads the guard's answers: it asks sightline/check about
// what another program is about to read or change and turns the verdict
// into the reason to refuse it with, and turns what an agent's tool showed
// into the lines sightline/shown records. Its invariant: only the guard's
// yes lets a change pass; what sightline could not judge is refused, since
// these doors do not carry the change out themselves.
package judge

import (
	"context"
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// Router runs an operation of the table where it belongs (route.Router,
// or a door's own that picks one per workspace).
type Router interface {
	Call(ctx context.Context, op ops.Op, p any) (any, error)
	// Key turns an absolute path into a document key.
	Key(path string) workspace.Key
	// Root is the workspace's root folder, "" while none is fixed.
	Root() string
}

// Ask asks sightline/check about what an agent's tool, carried out by
// another program, is about to do to path (a change; with p.Read, a read)
// and reads the answer as every door in front of such a program does (the
// hooks, the ACP proxy): refused is the reason to give the agent, "" when
// it may proceed; err says what failed, for the user's log. What sightline
// could not judge is refused, never let through.
func Ask(ctx context.Context, r Router, p engine.CheckParams, path string) (cr engine.CheckResult, refused string, err error) {
	what := "change"
	if p.Read {
		what = "read"
	}
	p.TextDocument = engine.TextDocument{URI: string(r.Key(path))}
	res, err := r.Call(ctx, ops.Check, p)
	if err != nil {
		err = fmt.Errorf("checking %s's %s of %s: %w", p.Tool, what, path, err)
		return cr, cannotJudge(p.Read, path, err.Error()), err
	}
	cr, ok := res.(engine.CheckResult)
	if !ok {
		err = fmt.Errorf("checking %s's %s of %s: an answer of type %T", p.Tool, what, path, res)
		return cr, cannotJudge(p.Read, path, err.Error()), err
	}
	if p.Read {
		return cr, judgeRead(cr, path), nil
	}
	if cr.Exists && cr.Error == "" && cr.Dialect != p.Dialect {
		// A server of an earlier build ignores a dialect it does not know:
		// it placed the change otherwise than the agent's tool will.
		err = fmt.Errorf("checking %s's change of %s: the server placed it otherwise than the agent's tool does (a server of an earlier build? restart the editor)", p.Tool, path)
		return cr, cannotChange(path, err.Error()), err
	}
	return cr, Judge(cr, path), nil
}

// judgeRead is Judge for a read another program carries out: only the
// admission's yes lets it pass.
func judgeRead(cr engine.CheckResult, path string) string {
	switch {
	case cr.OK:
		return ""
	case cr.Error == result.Denied || cr.Error == result.ApprovalRefused || cr.Error == result.Unjudged:
		return "sightline refused this read of " + path + ": " + cr.Message
	}
	return cannotJudge(true, path, fmt.Sprintf("%s: %s", cr.Error, cr.Message))
}

// cannotJudge is CannotJudge, or its words for a read.
func cannotJudge(read bool, path, why string) string {
	if read {
		return "sightline refused this read of " + path + " because it could not judge it (" + why + "). Nothing was read. Retry; if it keeps failing, tell the user."
	}
	return cannotChange(path, why)
}

// Judge is what every door in front of an agent's own tools (the hooks,
// the ACP proxy) makes of the guard's answer about a change: the reason to
// refuse it with, "" when it may proceed. Only the guard's "it may" lets a
// change pass: these doors do not carry the change out themselves, so what
// sightline could not judge (a file it cannot read, a text it cannot place
// as the agent's tool will, a server gone) is refused, never let through.
func Judge(cr engine.CheckResult, path string) string {
	switch {
	case cr.OK && len(cr.Unmatched) > 0:
		return fmt.Sprintf("sightline refused this change of %s: it found no single place in the file as it is now for change %s, as the tool would look for it. Read the lines you mean to change, then retry.",
			path, unmatchedList(cr.Unmatched))
	case cr.OK:
		return ""
	case cr.Error == result.UnreadRange || cr.Error == result.StaleRange:
		return reason(cr, path)
	case cr.Error == result.Denied || cr.Error == result.ApprovalRefused || cr.Error == result.Unjudged:
		// The admission a write of sightline's own passes (a path the
		// policy denies, a version control folder, a sensitive file the
		// user did not approve writing), or the door's own refusal.
		return "sightline refused this change of " + path + ": " + cr.Message
	}
	return cannotChange(path, fmt.Sprintf("%s: %s", cr.Error, cr.Message))
}

// cannotChange is the refusal of a change sightline could not judge: why,
// and what to do next.
func cannotChange(path, why string) string {
	return "sightline refused this change of " + path + " because it could not judge it (" + why +
		"). Nothing was changed. Retry; if it keeps failing, tell the user, whose `sightline audit` lists the refusals."
}

func unmatchedList(idx []int) string {
	s := make([]string, len(idx))
	for i, n := range idx {
		s[i] = fmt.Sprint(n + 1)
	}
	return strings.Join(s, ", ")
}

// reason is a refusal as the agent reads it: which lines, why, and the
// lines themselves as the agent's own read tool shows them.
func reason(cr engine.CheckResult, path string) string {
	var b strings.Builder
	b.WriteString("sightline refused this change of " + path + ":")
	for _, r := range cr.Unread {
		fmt.Fprintf(&b, " %s %s never shown to you.", r.Word(), r.Was())
	}
	for _, r := range cr.Stale {
		fmt.Fprintf(&b, " %s changed since you read %s.", r.Word(), r.It())
	}
	if cr.Shown == "" {
		b.WriteString(" Read them, then retry.")
		return b.String()
	}
	var missing, rest ledger.RangeSet
	missing.AddAll(cr.Unread)
	missing.AddAll(cr.Stale)
	rest = missing.Clone()
	rest.RemoveAll(cr.ExpandedRanges)
	fmt.Fprintf(&b, " Here they are as they are now (line number, tab, line); they now count as read: check them and retry the change.")
	if !rest.IsEmpty() {
		fmt.Fprintf(&b, " Lines %s did not fit here: read them before retrying.", ledger.List(rest.Ranges()))
	}
	b.WriteString("\n" + cr.Shown)
	return b.String()
}

// TextLines splits text into lines as the agents' tools show them.
func TextLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// Numbered turns consecutive lines from start into shown lines.
func Numbered(start int, ls []string) []engine.ShownLine {
	out := make([]engine.ShownLine, 0, len(ls))
	for i, l := range ls {
		out = append(out, engine.ShownLine{Line: start + i, Text: strings.TrimSuffix(l, "\r")})
	}
	return out
}
