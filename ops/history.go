package ops

import (
	"context"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/workspace"
)

// History is sightline/history: the versions of a document sightline
// recorded.
var History = define(spec[engine.HistoryParams, engine.HistoryResult]{
	method:   "sightline/history",
	required: true,
	docs: func(p engine.HistoryParams, _ func(string) (workspace.Key, error)) []string {
		return one(p.TextDocument.URI)
	},
	run: func(ctx context.Context, c *Call, p engine.HistoryParams) (engine.HistoryResult, error) {
		return c.Env.History(ctx, p)
	},
	text: func(r *engine.HistoryResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		if len(r.Versions) == 0 {
			line(&b, r.Message)
			return b.String()
		}
		for _, v := range r.Versions {
			cur := ""
			if v.FileHash == r.FileHash {
				cur = "  (current)"
			}
			who := v.Session
			if v.Agent != "" {
				who += "/" + v.Agent
			}
			if who == "" {
				who = "-"
			}
			printf(&b, "%d  %s  %s  %d bytes  %s  %s%s\n", v.ID, v.Time.UTC().Format(time.DateTime), v.FileHash, v.Size, v.Method, who, cur)
		}
		return b.String()
	},
	tool: tool("sightline_history", "A file's recorded versions",
		`The versions of a file that sightline recorded (every write through sightline stores the text before and after): id, time, file hash, size, and which session and method wrote it. Use it to see what changed; the CLI's sightline diff and rollback work with these ids.`,
		true, func(in pathIn, caller engine.Caller, key func(string) workspace.Key) (engine.HistoryParams, error) {
			doc, err := toolDoc(in.Path, key)
			return engine.HistoryParams{Caller: as(caller, in.Session), TextDocument: doc}, err
		}, nil),
})
