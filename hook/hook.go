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
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/ops"
)

// MaxEvent bounds the event read from standard input: a Write of the
// largest content sightline writes (16 MiB) fits, JSON-escaped.
const MaxEvent = 64 << 20

// Options are the hook's settings.
type Options struct {
	// KeepReads keeps what was shown across a context compaction or clear;
	// by default they start a new epoch in which nothing counts as read.
	KeepReads bool
	// Root is the workspace root the router serves, fixed by the trusted
	// side (Claude Code's CLAUDE_PROJECT_DIR, the installed project), never
	// by the event. Claude's hook refuses every change while it is empty.
	Root string
	// Elsewhere is the router for a file outside Root that lies in another
	// repository (the nearest folder above it holding .git): such a file
	// is judged there. nil, or a nil answer: the file is outside any
	// workspace, and the agent's own rules decide.
	Elsewhere func(path string) judge.Router
	// Epochs remembers the compactions that started an epoch, for an
	// agent that shows one in every later event (Gemini CLI); nil: each
	// is started whenever it is seen.
	Epochs Epochs
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

// shownRun records consecutive lines from start, the lines of text, that an
// agent's tool showed (or wrote) in a document: sent as one text, which the
// server decodes as one string rather than an object a line.
func shownRun(ctx context.Context, r judge.Router, c engine.Caller, path string, start int, text string, authored, created bool, tool string) error {
	if n := strings.Count(text, "\n"); n > maxShownLines {
		cut := 0
		for range maxShownLines {
			cut += strings.IndexByte(text[cut:], '\n') + 1
		}
		text = text[:cut]
	}
	p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(r.Key(path))},
		Block: &engine.ShownBlock{Start: start, Text: text}, Authored: authored, Created: created, Tool: tool}
	return recordShown(ctx, r, p, path, tool)
}

// shown records lines an agent's tool showed (or wrote) in a document.
func shown(ctx context.Context, r judge.Router, c engine.Caller, path string, lines []engine.ShownLine, authored, created bool, tool string) error {
	if len(lines) > maxShownLines {
		lines = lines[:maxShownLines]
	}
	p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(r.Key(path))},
		Lines: lines, Authored: authored, Created: created, Tool: tool}
	return recordShown(ctx, r, p, path, tool)
}

// recordShown makes the sightline/shown call of shown and shownRun.
func recordShown(ctx context.Context, r judge.Router, p engine.ShownParams, path, tool string) error {
	res, err := r.Call(ctx, ops.Shown, p)
	if err != nil {
		return fmt.Errorf("recording what %s showed of %s: %w", tool, path, err)
	}
	if o := ops.Shown.Outcome(res); !o.OK {
		return fmt.Errorf("recording what %s showed of %s: %s: %s", tool, path, o.Error, o.Message)
	}
	return nil
}

// check is judge.Ask for a hook, which needs only the verdict.
func check(ctx context.Context, r judge.Router, p engine.CheckParams, path string) (refused string, err error) {
	_, refused, err = judge.Ask(ctx, r, p, path)
	return refused, err
}
