// Package hook is the hook door: sightline's ledger and edit guard applied
// to the tools coding agents bring themselves (Claude Code's Read, Edit and
// Write, Codex's apply_patch and shell), through the agents' hooks. A hook
// event comes in as JSON; what the agent's tool showed is recorded with
// sightline/shown, what it is about to change is asked of the guard with
// sightline/check, and a refusal is answered as the agent's hook contract
// says, with the missing lines in its reason so that the retry succeeds.
// The package knows the agents' event shapes and nothing of where the
// operations run (a running server through the bridge, else the disk).
package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// MaxEvent bounds the event read from standard input: a Write of the
// largest content sightline writes (16 MiB) fits, JSON-escaped.
const MaxEvent = 64 << 20

// Runner runs an operation of the table where it belongs (route.Router).
type Runner interface {
	Call(ctx context.Context, op *ops.Op, p any) (any, error)
	// Key turns an absolute path into a document key.
	Key(path string) workspace.Key
}

// Options are the hook's settings.
type Options struct {
	// KeepReads keeps what was shown across a context compaction or clear;
	// by default they start a new epoch in which nothing counts as read.
	KeepReads bool
	// Root is the workspace root the Runner serves, fixed by the trusted
	// side (Claude Code's CLAUDE_PROJECT_DIR, the installed project), never
	// by the event. Claude's hook refuses every change while it is empty.
	Root string
	// Elsewhere is the Runner for a file outside Root that lies in another
	// repository (the nearest folder above it holding .git): such a file
	// is judged there. nil, or a nil answer: the file is outside any
	// workspace, and the agent's own rules decide.
	Elsewhere func(path string) Runner
}

// Answer is what the hook prints: Stdout for the agent (nil: nothing, the
// tool call proceeds), Stderr for the user's log.
type Answer struct {
	Stdout []byte
	Stderr string
}

// maxShownLines bounds the lines one event records (a Read shows 2000 by
// default; a search's output is cut by the agent long before this).
const maxShownLines = 100_000

// shown records lines an agent's tool showed (or wrote) in a document.
func shown(ctx context.Context, r Runner, c engine.Caller, path string, lines []engine.ShownLine, authored, created bool, tool string) error {
	if len(lines) > maxShownLines {
		lines = lines[:maxShownLines]
	}
	p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(r.Key(path))},
		Lines: lines, Authored: authored, Created: created, Tool: tool}
	res, err := r.Call(ctx, ops.Shown.Op, p)
	if err != nil {
		return fmt.Errorf("recording what %s showed of %s: %w", tool, path, err)
	}
	if o := ops.Shown.Outcome(res); !o.OK {
		return fmt.Errorf("recording what %s showed of %s: %s: %s", tool, path, o.Error, o.Message)
	}
	return nil
}

// check is Ask for a hook, which needs only the verdict.
func check(ctx context.Context, r Runner, p engine.CheckParams, path string) (refused string, err error) {
	_, refused, err = Ask(ctx, r, p, path)
	return refused, err
}

// Ask asks sightline/check about what an agent's tool, carried out by
// another program, is about to do to path (a change; with p.Read, a read)
// and reads the answer as every door in front of such a program does (the
// hooks, the ACP proxy): refused is the reason to give the agent, "" when
// it may proceed; err says what failed, for the user's log. What sightline
// could not judge is refused, never let through.
func Ask(ctx context.Context, r Runner, p engine.CheckParams, path string) (cr engine.CheckResult, refused string, err error) {
	what := "change"
	if p.Read {
		what = "read"
	}
	p.TextDocument = engine.TextDocument{URI: string(r.Key(path))}
	res, err := r.Call(ctx, ops.Check.Op, p)
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
		return cr, CannotJudge(path, err.Error()), err
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
	return CannotJudge(path, why)
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
		return Reason(cr, path)
	case cr.Error == result.Denied || cr.Error == result.ApprovalRefused || cr.Error == result.Unjudged:
		// The admission a write of sightline's own passes (a path the
		// policy denies, a version control folder, a sensitive file the
		// user did not approve writing), or the door's own refusal.
		return "sightline refused this change of " + path + ": " + cr.Message
	}
	return CannotJudge(path, fmt.Sprintf("%s: %s", cr.Error, cr.Message))
}

// CannotJudge is the refusal of a change sightline could not judge: why,
// and what to do next.
func CannotJudge(path, why string) string {
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

// Reason is a refusal as the agent reads it: which lines, why, and the
// lines themselves as the agent's own read tool shows them.
func Reason(cr engine.CheckResult, path string) string {
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

// decode decodes a JSON object leniently: a missing or malformed part is
// the zero value, for the caller to skip.
func decode(raw json.RawMessage, v any) bool {
	return len(raw) > 0 && json.Unmarshal(raw, v) == nil
}
