package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/editblock"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// ApplyBlocks is sightline/applyBlocks: search/replace edit blocks in free
// text, written all or none.
var ApplyBlocks = define(spec[engine.BlocksParams, engine.BlocksResult]{
	method:   "sightline/applyBlocks",
	required: true,
	writes:   func(p engine.BlocksParams) bool { return !(p.DryRun || p.DryRunAlt) },
	docs: func(p engine.BlocksParams, resolve func(string) (workspace.Key, error)) []string {
		var uris []string
		for _, blk := range editblock.NewParser().Write([]byte(p.Text)) {
			if k, err := resolve(blk.Path); err == nil {
				uris = append(uris, string(k))
			}
		}
		return uris
	},
	run: func(ctx context.Context, c *Call, p engine.BlocksParams) (engine.BlocksResult, error) {
		return c.Env.ApplyBlocks(ctx, p)
	},
	text: func(r *engine.BlocksResult) string {
		var b strings.Builder
		if r.OK {
			line(&b, r.Message)
		}
		for _, x := range r.Blocks {
			b.WriteString(BlockText(x))
		}
		return b.String()
	},
	tool: tool("sightline_apply_blocks", "Apply search/replace edit blocks",
		`Apply edit blocks written in free text (Markdown fences and prose around them are fine). A block is:
path/to/file.py
<<<< EDIT
the exact old lines
==== REPLACE
the new lines
>>>> EDIT END
aider's SEARCH/REPLACE blocks (path line, <<<<<<< SEARCH, old lines, =======, new lines, >>>>>>> REPLACE) work the same way. A block whose file cannot be told is skipped and nothing is written.
The EDIT half must occur exactly once in the file (whitespace inside lines counts); an empty EDIT half creates a new file. Blocks apply in order, each to the file as the earlier ones left it. Paths are relative to the workspace root.
A failed block says why: not_found, whitespace_mismatch or near_match (with the line to look at), ambiguous. The edited lines must have been read (the guard refusals of sightline_edit apply).`,
		false, func(in blocksIn, caller engine.Caller, _ func(string) workspace.Key) (engine.BlocksParams, error) {
			return engine.BlocksParams{Caller: as(caller, in.Session), Text: in.Text, DryRun: in.DryRun}, nil
		}, nil),
})

type blocksIn struct {
	Text    string `json:"text" jsonschema:"Text holding one or more edit blocks."`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"Validate and show the diff; change nothing and record nothing."`
	Session string `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}

// BlockText is one block's part of the answer: the CLI's streamed run
// prints each block so as it completes.
func BlockText(x engine.BlockResult) string {
	var b strings.Builder
	printf(&b, "[%s] %s: %s\n", x.Status, x.Path, x.Message)
	if x.Diagnostic != nil && x.Diagnostic.Line > 0 {
		printf(&b, "  (%s near line %d)\n", x.Diagnostic.Kind, x.Diagnostic.Line)
	}
	b.WriteString(x.Diff)
	if x.Expanded != "" {
		b.WriteString("expanded (now counted as read):\n" + x.Expanded)
	}
	return b.String()
}
