package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// Read is sightline/read: lines of a document, hashline-annotated; every
// line shown counts as read.
var Read = define(spec[engine.ReadParams, engine.ReadResult]{
	method:   "sightline/read",
	required: true,
	docs: func(p engine.ReadParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.ReadParams) (engine.ReadResult, error) {
		if c.Disk {
			// A range of a large file is read without building all of it
			// (a process that holds the document answers from it).
			return c.Env.ReadDisk(ctx, p)
		}
		return c.Env.Read(ctx, p)
	},
	text: func(r *engine.ReadResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		if r.Range == nil {
			line(&b, r.Message)
			return b.String()
		}
		where := "on disk"
		if r.Version != nil {
			where = fmt.Sprintf("editor buffer v%d", *r.Version)
		}
		printf(&b, "%s lines %d-%d of %d (%s, file_hash %s)\n", r.Path, r.Range.Start, r.Range.End, r.TotalLines, where, r.FileHash)
		b.WriteString(r.Content)
		if r.Notice != "" {
			line(&b, r.Notice)
		}
		return b.String()
	},
	tool: tool("sightline_read", "Read lines (hashline-annotated)",
		`Read a file, or lines start..end of it, as "LINE:HASH|content" lines: the LINE:HASH prefix is the ref you pass to sightline_edit, the text after "|" is the line itself.
Read only what you need: a range of a large file is cheaper than all of it. To work on one function, method or type, read it by symbol (symbol "Name", "Class.method", "Outer.Inner"): you get its lines with its doc comment and nothing else, ready for replace_symbol and the other edits; sightline_outline lists a file's declarations. Long reads are cut at a character budget; a notice then says which lines were cut, what they contain, and the range to read next.
Every line shown counts as read in your session's ledger; edits may only change lines you have read in their current form.`,
		true, func(in readIn, caller engine.Caller, key func(string) workspace.Key) (engine.ReadParams, error) {
			doc, err := toolDoc(in.Path, key)
			p := engine.ReadParams{Caller: as(caller, in.Session), TextDocument: doc, Symbol: in.Symbol}
			if in.Start > 0 || in.End > 0 {
				r := ledger.Range{Start: max(in.Start, 1), End: in.End}
				if r.End == 0 {
					r.End = 1 << 30
				}
				p.Range = &r
			}
			return p, err
		}, nil),
})

type readIn struct {
	Path    string `json:"path" jsonschema:"File path relative to the workspace root (an absolute path inside the workspace also works)."`
	Start   int    `json:"start,omitempty" jsonschema:"First line to read (1-based). Default 1."`
	End     int    `json:"end,omitempty" jsonschema:"Last line to read (1-based, inclusive; past the end is fine). Default: the last line."`
	Symbol  string `json:"symbol,omitempty" jsonschema:"Read one declaration instead of lines: its name, qualified by its containers where needed (\"Name\", \"Class.method\", \"Outer.Inner\"). A name that matches several declarations lists them and reads none; one that matches none suggests the nearest."`
	Session string `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
