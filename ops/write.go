package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Write is sightline/write: create, replace text, append, overwrite.
var Write = define(spec[engine.WriteParams, engine.WriteResult]{
	method:   "sightline/write",
	required: true,
	writes:   func(p engine.WriteParams) bool { return !p.DryRun },
	docs: func(p engine.WriteParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.WriteParams) (engine.WriteResult, error) {
		return c.Env.Write(ctx, p)
	},
	text: func(r *engine.WriteResult) string {
		var b strings.Builder
		if !r.OK {
			if len(r.Nearest) > 0 {
				b.WriteString("nearest lines (now counted as read):\n")
				for _, l := range r.Nearest {
					b.WriteString(l + "\n")
				}
			}
			if len(r.Matches) > 0 {
				printf(&b, "old_text occurs at lines %s\n", strings.Trim(fmt.Sprint(r.Matches), "[]"))
			}
			expanded(&b, r.GuardRefusal)
			return b.String()
		}
		line(&b, r.Message)
		b.WriteString(r.Diff)
		return b.String()
	},
	tool: tool("sightline_write", "Create, replace text, append, overwrite",
		`Write a file by mode:
- create: a new file with content (refused with exists if it exists).
- edit: replace old_text, which must occur exactly once (no_match shows the nearest lines; ambiguous_match lists where it occurs: add context), with content.
- append: add content after the last line.
- overwrite: replace the whole file; you must have read all of it (or created it).
Guarded like sightline_edit: the lines you replace must have been read. expected_version (a file hash from a read) makes the write refuse with file_changed if the file changed.`,
		false, func(in writeIn, caller engine.Caller, key func(string) workspace.Key) (engine.WriteParams, error) {
			doc, err := toolDoc(in.Path, key)
			return engine.WriteParams{Caller: as(caller, in.Session), TextDocument: doc,
				Mode: in.Mode, Content: in.Content, OldText: in.OldText, ExpectedVersion: in.ExpectedVersion, DryRun: in.DryRun}, err
		}, func(s *jsonschema.Schema) {
			s.Properties["mode"].Enum = nil
			for _, m := range WriteModes {
				s.Properties["mode"].Enum = append(s.Properties["mode"].Enum, m)
			}
		}),
})

// WriteModes are sightline/write's modes, for the doors (the CLI's
// completions).
var WriteModes = engine.WriteModes

type writeIn struct {
	Path            string  `json:"path" jsonschema:"File path relative to the workspace root (an absolute path inside the workspace also works)."`
	Mode            string  `json:"mode" jsonschema:"create, edit, append or overwrite."`
	Content         *string `json:"content" jsonschema:"The new text (the whole file for create/overwrite; the replacement for edit; the added lines for append)."`
	OldText         *string `json:"old_text,omitempty" jsonschema:"edit mode: the exact text to replace; it must occur once in the file."`
	ExpectedVersion string  `json:"expected_version,omitempty" jsonschema:"Optional file hash (sha256:…): refuse unless the file still has it."`
	DryRun          bool    `json:"dry_run,omitempty" jsonschema:"Validate and show the diff; change nothing and record nothing."`
	Session         string  `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
