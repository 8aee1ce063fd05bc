package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Symbols is sightline/symbols: the workspace's declarations matching a
// query (records nothing as read).
var Symbols = define(spec[engine.SymbolsParams, engine.SymbolsResult]{
	method: "sightline/symbols",
	run: func(ctx context.Context, c *Call, p engine.SymbolsParams) (engine.SymbolsResult, error) {
		return c.Env.Symbols(ctx, p)
	},
	text: func(r *engine.SymbolsResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		if len(r.Symbols) == 0 {
			printf(&b, "No declaration matches (%d files searched).\n", r.Files)
		}
		for _, s := range r.Symbols {
			printf(&b, "%s#%s  %s  lines %d-%d  %s\n", s.Path, s.Name, s.Kind, s.Lines.Start, s.Lines.End, s.Signature)
		}
		if r.More > 0 {
			printf(&b, "%d more match: narrow the query.\n", r.More)
		}
		return b.String()
	},
	tool: tool("sightline_symbols", "Find declarations across the workspace",
		`Find functions, methods, classes and types by name across the workspace's files: each as PATH#Name with its kind, lines and signature. Matches the name exactly, then by prefix, then anywhere in the qualified name ("Class.method"), then its letters in order; case is ignored. Nothing counts as read: read the one you need with sightline_read's symbol (path and Name as listed).`,
		true, func(in symbolsIn, caller engine.Caller, _ func(string) workspace.Key) (engine.SymbolsParams, error) {
			return engine.SymbolsParams{Caller: as(caller, in.Session), Query: in.Query, Limit: in.Limit}, nil
		}, nil).example(map[string]any{"query": "a", "limit": 5}),
})

type symbolsIn struct {
	Query   string `json:"query" jsonschema:"The name, or part of it (\"refresh\", \"TokenCache.get\")."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Most declarations to list (default 100, at most 1000)."`
	Session string `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
