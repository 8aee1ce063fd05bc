package ops

import (
	"context"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
)

// Stats is sightline/stats: the audit log's numbers per method and the
// guard's.
var Stats = define(spec[engine.StatsParams, engine.StatsResult]{
	method: "sightline/stats",
	run: func(ctx context.Context, c *Call, p engine.StatsParams) (engine.StatsResult, error) {
		// The calls that write are counted (reads are audited too).
		p.Writes = []string{Edit.Method(), Write.Method(), ApplyBlocks.Method(), ApplyPatch.Method(), Rollback.Method()}
		return c.Env.Stats(ctx, p)
	},
	text: func(r *engine.StatsResult) string {
		var b strings.Builder
		if !r.OK {
			return ""
		}
		printf(&b, "%d calls audited (%s)\n", r.Calls, r.Source)
		names := make([]string, 0, len(r.Methods))
		for name := range r.Methods {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			m := r.Methods[name]
			printf(&b, "%-20s calls %d  success %d  stale %d  refused %d  error %d  p50 %.2fms  p99 %.2fms\n",
				name, m.Calls, m.Success, m.Stale, m.Refused, m.Error, m.P50Ms, m.P99Ms)
		}
		g := r.Guard
		printf(&b, "guard: %d checks, %d trips (%.1f%%); auto-expand %d, resolved by the next edit %d (%.1f%%)\n",
			g.Checks, g.Trips, 100*g.TripRate, g.Expanded, g.Resolved, 100*g.ResolutionRate)
		return b.String()
	},
})
