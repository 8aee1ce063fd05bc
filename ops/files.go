package ops

import (
	"context"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// Files is sightline/files: the workspace's files with their tags and
// ledger states.
var Files = define(spec[engine.FilesParams, engine.FilesResult]{
	method: "sightline/files",
	run: func(ctx context.Context, c *Call, p engine.FilesParams) (engine.FilesResult, error) {
		if c.Disk {
			c.Env.LoadSession(ctx, p.SessionOr()) // ledger states of files not loaded yet
		}
		return c.Env.Files(ctx, p)
	},
	text: func(r *engine.FilesResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		if len(r.Files) == 0 {
			b.WriteString("No files match.\n")
		}
		for _, f := range r.Files {
			printf(&b, "%s  %d bytes  %s  %s", f.Path, f.Size, strings.Join(f.Tags, ","), f.State)
			if f.Sensitive {
				b.WriteString("  sensitive")
			}
			if f.FileHash != "" {
				printf(&b, "  %s", f.FileHash)
			}
			b.WriteString("\n")
		}
		return b.String()
	},
	tool: tool("sightline_files", "List the workspace's files",
		`List the workspace's files (.gitignore respected; denied paths left out): path, size, tags (code, test, doc, config, generated), whether the file is sensitive (reading it needs the user's approval), and what this session has read of it (never_read, partial_read, fully_read, stale, model_authored). Optional globs narrow the list ("*.go", "src/**"). Use it to find files before reading them.`,
		true, func(in filesIn, caller engine.Caller, _ func(string) workspace.Key) (engine.FilesParams, error) {
			return engine.FilesParams{Caller: as(caller, in.Session), Globs: in.Globs}, nil
		}, nil),
})

type filesIn struct {
	Globs   []string `json:"globs,omitempty" jsonschema:"Optional: globs to narrow the listing."`
	Session string   `json:"session,omitempty" jsonschema:"Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."`
}
