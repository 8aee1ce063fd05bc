package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/workspace"
)

// ApplyPatch is sightline/applyPatch: a unified diff or a V4A patch, all
// files or none.
var ApplyPatch = define(spec[engine.PatchParams, engine.PatchResult]{
	method:   "sightline/applyPatch",
	required: true,
	writes:   func(p engine.PatchParams) bool { return !(p.DryRun || p.DryRunAlt) },
	docs: func(p engine.PatchParams, resolve func(string) (workspace.Key, error)) []string {
		files, err := patch.Parse(p.Text)
		if err != nil {
			return nil // an unreadable patch names none: the answer says why
		}
		var uris []string
		for _, f := range files {
			if k, err := resolve(f.Path); err == nil {
				uris = append(uris, string(k))
			}
		}
		return uris
	},
	run: func(ctx context.Context, c *Call, p engine.PatchParams) (engine.PatchResult, error) {
		return c.Env.ApplyPatch(ctx, p)
	},
	text: func(r *engine.PatchResult) string {
		var b strings.Builder
		if r.OK {
			line(&b, r.Message)
		}
		for _, f := range r.Files {
			printf(&b, "[%s] %s: %s\n", f.Status, f.Path, f.Message)
			if f.Hunk > 0 {
				printf(&b, "  (hunk %d", f.Hunk)
				if f.Line > 0 {
					printf(&b, ", near line %d", f.Line)
				}
				b.WriteString(")\n")
			}
			b.WriteString(f.Diff)
			if f.Expanded != "" {
				b.WriteString("expanded (now counted as read):\n" + f.Expanded)
			}
			freshRefs(&b, f.FreshRefs)
			if f.Merge != "" {
				b.WriteString("three-way merge (apply with --merge):\n" + f.Merge)
			}
		}
		return b.String()
	},
	tool: tool("sightline_apply_patch", "Apply a unified diff or a V4A patch",
		`Apply a patch: a unified diff as git diff writes it (--- a/file, +++ b/file, @@ hunks; many files, new and deleted files, renames), aider's udiff (@@ ... @@ without line numbers), or a V4A patch (*** Begin Patch, *** Update File: path, @@ context lines, -/+/space lines, *** Add File:, *** Delete File:, *** Move to:, *** End Patch). Paths are relative to the workspace root.
Hunks apply in file order; each hunk's context and removed lines must occur exactly where it goes. A V4A hunk goes to the first place its lines occur after the hunk before it (and after its @@ lines, each the first matching line from there), as Codex's apply_patch places it; the answer names a hunk whose lines also occur further on. In a unified diff a @@ line number only chooses among identical exact places; a hunk that matches twice otherwise is ambiguous_match: add context. Whitespace mismatches and near matches are diagnosed with the hunk and line, never applied. The lines a hunk touches must have been read (unread_range / stale_range as for sightline_edit). All files or none: if one does not apply, nothing is written.`,
		false, func(in patchIn, caller engine.Caller, _ func(string) workspace.Key) (engine.PatchParams, error) {
			return engine.PatchParams{Caller: as(caller, in.Session), Text: in.Patch, DryRun: in.DryRun}, nil
		}, nil),
})

type patchIn struct {
	Patch   string `json:"patch" jsonschema:"The patch text."`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"Validate and show the diff; change nothing and record nothing."`
	Session string `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
