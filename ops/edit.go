package ops

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

const refsHelp = `A ref is "LINE:HASH" exactly as a read showed it (e.g. "51:524g"); copying the whole "51:524g|content" line also works.`

const refusalsHelp = `Refusals come back as tool errors that start with their kind:
- unread_range: you have not read the target lines. Their current text usually follows under "expanded" and now counts as read: check it and retry the same edit.
- stale_range: the target lines changed since you read them (the user typed, another tool wrote). Read them again (or use the expanded lines) and retry.
- stale_ref: a ref names a line that changed or moved; nothing was applied. The fresh refs shown (lines around it, now counted as read) give the current LINE:HASH.
- ambiguous_ref: the ref could mean several identical lines; pick one from the fresh refs.
- file_changed: file_hash no longer matches; read again. not_found / denied: wrong path (or outside the workspace).
- invalid_ref / invalid_edit / overlap: the edits array is malformed; fix it as the message says.
- unrepresentable: the file's encoding (Latin-1, Shift_JIS, ...) has no bytes for a character you wrote; nothing was written. Use characters it has.`

// Edit is sightline/edit: hashline edits by ref, all or none.
var Edit = define(spec[engine.EditParams, engine.EditResult]{
	method:   "sightline/edit",
	required: true,
	writes:   func(p engine.EditParams) bool { return !p.DryRun },
	docs: func(p engine.EditParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.EditParams) (engine.EditResult, error) {
		return c.Env.Edit(ctx, p)
	},
	text: func(r *engine.EditResult) string {
		var b strings.Builder
		if !r.OK {
			freshRefs(&b, r.FreshRefs)
			expanded(&b, r.GuardRefusal)
			return b.String()
		}
		line(&b, r.Message)
		for _, m := range r.Remapped {
			printf(&b, "note: ref %s resolved to line %d\n", m.Ref, m.Line)
		}
		b.WriteString(r.Diff)
		if r.WindowRange != nil {
			if r.DryRun {
				printf(&b, "%s would read (not applied):\n", r.WindowRange.Word())
			} else {
				printf(&b, "%s now (fresh refs for your next edit):\n", r.WindowRange.Word())
			}
			b.WriteString(r.Window)
		}
		return b.String()
	},
	tool: tool("sightline_edit", "Edit lines by ref",
		`Change a file by refs from your last read: all edits of one call apply together or none do. `+refsHelp+`
To rewrite a whole function, method or type, replace_symbol names it instead of its lines (read it by symbol first); insert_before_symbol and insert_after_symbol add code next to it.
All refs of one call name lines of the file as you read it (the edits apply bottom to top, so earlier edits do not shift later refs).
The answer shows the diff and the edited region with fresh refs: use those for the next edit, no re-read needed.
`+refusalsHelp,
		false, func(in editIn, caller engine.Caller, key func(string) workspace.Key) (engine.EditParams, error) {
			doc, err := toolDoc(in.Path, key)
			return engine.EditParams{Caller: as(caller, in.Session), TextDocument: doc,
				Edits: in.Edits, FileHash: in.FileHash, DryRun: in.DryRun}, err
		}, func(s *jsonschema.Schema) {
			// The edits pass through to the engine as they were written (it
			// names a wrong or extra field); their shape is told here.
			str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
			minItems := 1
			s.Properties["edits"] = &jsonschema.Schema{
				Type: "array", MinItems: &minItems,
				Description: `Edit operations. new_content is raw lines joined by \n, without LINE:HASH| prefixes (to delete lines use a delete op).`,
				Items: &jsonschema.Schema{Type: "object", Required: []string{"type"}, Properties: map[string]*jsonschema.Schema{
					"type": {Type: "string", Enum: []any{"replace_line", "replace_range", "insert_after", "insert_before", "delete_line", "delete_range", "replace_symbol", "insert_before_symbol", "insert_after_symbol"},
						Description: "replace_line/insert_after/insert_before/delete_line take ref; replace_range/delete_range take start_ref and end_ref (inclusive); replace_symbol/insert_before_symbol/insert_after_symbol take symbol (the whole declaration with its doc comment, which you must have read); replace_* and insert_* take new_content."},
					"symbol":      str(`A declaration's name ("Name", "Class.method") for the *_symbol types.`),
					"ref":         str("LINE:HASH of the line (replace_line, insert_after, insert_before, delete_line)."),
					"start_ref":   str("LINE:HASH of the first line of the range."),
					"end_ref":     str("LINE:HASH of the last line of the range (inclusive)."),
					"new_content": str(`The new lines, joined by \n; "" is one empty line.`),
				}},
			}
		}),
})

type editIn struct {
	Path     string          `json:"path" jsonschema:"File path relative to the workspace root (an absolute path inside the workspace also works)."`
	Edits    json.RawMessage `json:"edits"`
	FileHash string          `json:"file_hash,omitempty" jsonschema:"Optional: refuse (file_changed) unless the file still has this hash (sha256:… from a read)."`
	DryRun   bool            `json:"dry_run,omitempty" jsonschema:"Validate and show the diff; change nothing and record nothing."`
	Session  string          `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
