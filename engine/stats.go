package engine

import (
	"context"
	"slices"
	"time"

	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
)

// StatsParams are the params of sightline/stats.
type StatsParams struct {
	Rendering
	// Limit bounds how many of the latest audited calls are counted (0: all).
	Limit int `json:"limit,omitempty"`
	// Writes are the operations counted (reads are audited too): the
	// operation table's writes, set by its envelope.
	Writes []string `json:"-"`
}

// MethodStats are one method's outcomes and latency.
type MethodStats struct {
	Calls   int     `json:"calls"`
	Success int     `json:"success"`
	Stale   int     `json:"stale"`
	Refused int     `json:"refused"`
	Error   int     `json:"error"`
	P50Ms   float64 `json:"p50Ms"`
	P99Ms   float64 `json:"p99Ms"`
}

// GuardStats say how often the edit guard fired and how often auto-expand
// let the very next edit of that document succeed.
type GuardStats struct {
	Checks         int     `json:"checks"`
	Trips          int     `json:"trips"`
	TripRate       float64 `json:"tripRate"`
	Expanded       int     `json:"expanded"`
	Resolved       int     `json:"resolved"`
	ResolutionRate float64 `json:"resolutionRate"`
}

// StatsResult is the answer of sightline/stats.
type StatsResult struct {
	Outcome
	Source  string                 `json:"source"` // "database" or "memory"
	Calls   int                    `json:"calls"`
	Methods map[string]MethodStats `json:"methods"`
	Guard   GuardStats             `json:"guard"`
}

// Stats computes the metrics from the audit log (the database when open,
// else this process's memory).
func (e *Env) Stats(ctx context.Context, p StatsParams) (res StatsResult, err error) {
	entries, src, err := e.audits.entries(ctx, store.AuditFilter{Limit: p.Limit, Methods: p.Writes})
	if err != nil {
		return StatsResult{}, err
	}
	res = ComputeStats(entries)
	res.Source = src
	return res, nil
}

// ComputeStats derives the metrics from audit entries, oldest first.
func ComputeStats(entries []store.AuditEntry) StatsResult {
	res := StatsResult{Outcome: Outcome{OK: true}, Calls: len(entries), Methods: map[string]MethodStats{}}
	lat := map[string][]time.Duration{}
	for i, a := range entries {
		m := res.Methods[a.Method]
		m.Calls++
		switch outcomeClass(a) {
		case "success":
			m.Success++
		case "stale":
			m.Stale++
		case "error":
			m.Error++
		default:
			m.Refused++
		}
		res.Methods[a.Method] = m
		lat[a.Method] = append(lat[a.Method], a.Duration)
		switch a.Guard {
		case "clear":
			res.Guard.Checks++
		case "blocked", "warned":
			res.Guard.Checks++
			res.Guard.Trips++
		case "expanded":
			res.Guard.Checks++
			res.Guard.Trips++
			res.Guard.Expanded++
			for _, b := range entries[i+1:] {
				if b.Method == a.Method && b.Session == a.Session && b.Path == a.Path {
					if b.Outcome == "ok" {
						res.Guard.Resolved++
					}
					break
				}
			}
		}
	}
	for name, ds := range lat {
		slices.Sort(ds)
		m := res.Methods[name]
		m.P50Ms = quantileMs(ds, 0.50)
		m.P99Ms = quantileMs(ds, 0.99)
		res.Methods[name] = m
	}
	if res.Guard.Checks > 0 {
		res.Guard.TripRate = float64(res.Guard.Trips) / float64(res.Guard.Checks)
	}
	if res.Guard.Expanded > 0 {
		res.Guard.ResolutionRate = float64(res.Guard.Resolved) / float64(res.Guard.Expanded)
	}
	return res
}

func outcomeClass(a store.AuditEntry) string {
	if a.Outcome == "ok" {
		return "success"
	}
	switch result.Kind(a.Error) {
	case result.StaleRef, result.StaleRange, result.FileChanged, result.VersionConflict:
		return "stale"
	case "", "internal":
		return "error"
	}
	return "refused"
}

func quantileMs(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)))
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return float64(sorted[i].Microseconds()) / 1000
}
