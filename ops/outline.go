package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Outline is sightline/outline: a document's declarations, nested, each
// with its lines and its signature line (read when shown whole).
var Outline = define(spec[engine.OutlineParams, engine.OutlineResult]{
	method:   "sightline/outline",
	required: true,
	docs: func(p engine.OutlineParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.OutlineParams) (engine.OutlineResult, error) {
		return c.Env.Outline(ctx, p)
	},
	text: func(r *engine.OutlineResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		printf(&b, "%s  %s  %d lines (file_hash %s)\n", r.Path, r.Language, r.TotalLines, r.FileHash)
		if r.Message != "" {
			line(&b, r.Message)
		}
		var walk func(es []engine.OutlineEntry, depth int)
		walk = func(es []engine.OutlineEntry, depth int) {
			for _, o := range es {
				printf(&b, "%s%s %s  lines %d-%d  ", strings.Repeat("  ", depth), o.Kind, o.Name, o.Lines.Start, o.Lines.End)
				if o.Ref != "" {
					// The file's line as it is, as a read shows it.
					printf(&b, "%s|", o.Ref)
					b.WriteString(o.Content + "\n")
				} else {
					printf(&b, "%d (not shown whole) %s\n", o.Line, o.Signature)
				}
				walk(o.Children, depth+1)
			}
		}
		walk(r.Symbols, 0)
		return b.String()
	},
	tool: tool("sightline_outline", "Declarations of a file, nested",
		`List a file's declarations (types, classes, functions, methods), nested, each with its kind, qualified name, line range (doc comment included) and its signature line as "LINE:HASH|content" (those lines count as read; nothing else does).
Use it before reading a large file: then read just the declaration you need with sightline_read's symbol ("Class.method"), and change it with sightline_edit's replace_symbol, insert_before_symbol or insert_after_symbol.`,
		true, func(in pathIn, caller engine.Caller, key func(string) workspace.Key) (engine.OutlineParams, error) {
			doc, err := toolDoc(in.Path, key)
			return engine.OutlineParams{Caller: as(caller, in.Session), TextDocument: doc}, err
		}, nil).example(map[string]any{"path": "f.txt"}),
})
