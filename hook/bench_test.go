package hook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sightline-lsp/sightline/hook"
)

// BenchmarkClaudeHook measures one hook call's work as a hook process does
// it (open the workspace and its database, answer, flush), without the
// process start: a PreToolUse Edit of a 2000-line file that was read, and
// the PostToolUse Read that showed it. It reports p50 and p99.
func BenchmarkClaudeHook(b *testing.B) {
	var lines []string
	for i := 1; i <= 2000; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	w := newWorkspace(b, map[string]string{"f.go": strings.Join(lines, "\n") + "\n"})
	f := w.path("f.go")
	read := readEvent(f, strings.Join(lines, "\n"), 1, 2000)
	pre := edit(f, "line 1000\n", "x\n")
	// In this order: the edit's lines are allowed because the read showed
	// them (a map's order let the edit run first, and be denied).
	for _, c := range []struct {
		name string
		ev   map[string]any
	}{{"PostToolUse-Read", read}, {"PreToolUse-Edit", pre}} {
		name, ev := c.name, c.ev
		b.Run(name, func(b *testing.B) {
			ev["cwd"], ev["session_id"] = w.root, "bench"
			raw, _ := json.Marshal(ev)
			var ds []time.Duration
			for b.Loop() {
				t := time.Now()
				parsed, err := hook.ParseClaude(raw)
				if err != nil {
					b.Fatal(err)
				}
				be := w.router()
				a := hook.Claude(context.Background(), be, parsed, hook.Options{Root: w.root})
				be.Close(context.Background())
				if len(a.Stdout) > 0 || a.Stderr != "" {
					b.Fatalf("%s %s", a.Stdout, a.Stderr)
				}
				ds = append(ds, time.Since(t))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
