package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// Summary is sightline/summary: a document's declarations and its first
// lines.
var Summary = define(spec[engine.SummaryParams, engine.SummaryResult]{
	method:   "sightline/summary",
	required: true,
	docs: func(p engine.SummaryParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.SummaryParams) (engine.SummaryResult, error) {
		return c.Env.Summary(ctx, p)
	},
	text: func(r *engine.SummaryResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		printf(&b, "%s  %s  %d lines\n", r.Path, r.Language, r.TotalLines)
		for _, s := range r.Symbols {
			where := fmt.Sprint(s.Start)
			if s.End > s.Start {
				where = fmt.Sprintf("%d-%d", s.Start, s.End)
			}
			printf(&b, "  %-9s %-10s %s\n", where, s.Kind, s.Signature)
		}
		if x := r.ExcerptRange; x != nil {
			printf(&b, "%s (counted as read):\n", x.Word())
			n := x.Start
			// The file's lines, as they are: what the agent works on.
			for l := range strings.Lines(r.Excerpt) {
				if masked(r.Redacted, n) {
					// Not the line's real content: no ref to copy.
					fmt.Fprintf(&b, "%d:????|%s\n", n, strings.TrimSuffix(l, "\n"))
				} else {
					fmt.Fprintf(&b, "%s\n", hashline.AppendLine(nil, n, strings.TrimSuffix(l, "\n")))
				}
				n++
			}
		}
		return b.String()
	},
	tool: tool("sightline_summary", "Outline of a file",
		`Outline a file cheaply: its declarations (functions, types, classes) with their line ranges and signatures, plus its first lines annotated (those count as read). Use it on a large file to find the range to sightline_read.`,
		true, func(in pathIn, caller engine.Caller, key func(string) workspace.Key) (engine.SummaryParams, error) {
			doc, err := toolDoc(in.Path, key)
			return engine.SummaryParams{Caller: as(caller, in.Session), TextDocument: doc}, err
		}, nil),
})

// masked reports whether line n is in one of the redacted ranges.
func masked(rs []ledger.Range, n int) bool {
	for _, r := range rs {
		if r.Start <= n && n <= r.End {
			return true
		}
	}
	return false
}

// pathIn is the input of a tool about one file.
type pathIn struct {
	Path    string `json:"path" jsonschema:"File path relative to the workspace root (an absolute path inside the workspace also works)."`
	Session string `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
