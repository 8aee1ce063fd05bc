package ops

import (
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// The pieces of text several operations share, worded once.

// freshRefs are the current lines a stale_ref or ambiguous_ref refusal
// returned (they count as read).
func freshRefs(b *strings.Builder, refs []string) {
	if len(refs) == 0 {
		return
	}
	b.WriteString("Fresh refs (now counted as read; use them to retry):\n")
	for _, l := range refs {
		b.WriteString(l + "\n")
	}
}

// expanded are the lines a guard refusal returned (they count as read).
func expanded(b *strings.Builder, g engine.GuardRefusal) {
	if g.Expanded != "" {
		fmt.Fprintf(b, "expanded (%s, now counted as read):\n%s", ledger.List(g.ExpandedRanges), g.Expanded)
	}
}

// sessionOr is the session of a tool call: its own, else the door's.
func sessionOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// toolDoc turns a tool path into a document; a missing path is invalid.
func toolDoc(path string, key func(string) workspace.Key) (engine.TextDocument, error) {
	if strings.TrimSpace(path) == "" {
		return engine.TextDocument{}, invalid("path is required: a file path relative to the workspace root.")
	}
	return engine.TextDocument{URI: string(key(path))}, nil
}

func one(uri string) []string { return []string{uri} }

const (
	pathHelp    = "File path relative to the workspace root (an absolute path inside the workspace also works)."
	sessionHelp = `Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else "default") is right unless you were told otherwise.`
	dryRunHelp  = "Validate and show the diff; change nothing and record nothing."
)
