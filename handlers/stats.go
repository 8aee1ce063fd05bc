package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/ledgerdb"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
)

// Every agent-facing write call is audited: in memory (the last
// maxRecent calls) and, when the database is open, in its audit table, so
// `sightline stats` in another process sees the same numbers.

const maxRecent = 10000

// auditLog owns the audit trail: the recent calls in memory, and their
// write-behind to the database.
type auditLog struct {
	db  *ledgerdb.Sync // nil: memory only
	log *zap.Logger

	*behind // the database's writer: calls in order
	mu      sync.Mutex
	recent  []store.AuditEntry // oldest first
}

// audit records one call.
func (e *Env) audit(ctx context.Context, method string, c Caller, path string, o Outcome, before, after, guard string, d time.Duration, args []byte) {
	e.auditDigest(ctx, method, c, path, o, before, after, guard, d, digest(args))
}

// auditDigest is audit with the arguments' digest computed: a call that
// audits a row per file digests its arguments once, not once per row.
func (e *Env) auditDigest(ctx context.Context, method string, c Caller, path string, o Outcome, before, after, guard string, d time.Duration, argsDigest string) {
	a := store.AuditEntry{
		Time:       time.Now(),
		Session:    c.SessionOr(),
		Agent:      c.Agent,
		Method:     method,
		Path:       path,
		Outcome:    "ok",
		BeforeHash: before,
		AfterHash:  after,
		ArgsDigest: argsDigest,
		Duration:   d,
		Guard:      guard,
	}
	if !o.OK {
		a.Outcome, a.Error = "refused", string(o.Error)
	}
	e.audits.add(ctx, a)
}

func (l *auditLog) add(ctx context.Context, a store.AuditEntry) {
	l.mu.Lock()
	l.recent = append(l.recent, a)
	if len(l.recent) > maxRecent {
		l.recent = slices.Delete(l.recent, 0, len(l.recent)-maxRecent)
	}
	l.mu.Unlock()
	if l.db == nil {
		return
	}
	l.enqueue(func() {
		if err := l.db.DB().AppendAudit(context.WithoutCancel(ctx), a); err != nil {
			l.log.Warn("audit", zap.Error(err))
		}
	})
}

// writeMethods are the calls stats count (reads are audited too).
var writeMethods = []string{"sightline/edit", "sightline/write", "sightline/applyBlocks", "sightline/applyPatch", "sightline/rollback"}

// entries returns the latest audited calls matching f, oldest first, and
// where they came from: "database" or "memory".
func (l *auditLog) entries(ctx context.Context, f store.AuditFilter) ([]store.AuditEntry, string, error) {
	if l.db != nil {
		l.drain()
		all, err := l.db.DB().AuditWhere(ctx, f)
		if err != nil {
			return nil, "", err
		}
		slices.Reverse(all) // oldest first
		return all, "database", nil
	}
	l.mu.Lock()
	entries := slices.DeleteFunc(slices.Clone(l.recent), func(a store.AuditEntry) bool {
		return f.Session != "" && a.Session != f.Session || f.Path != "" && a.Path != f.Path ||
			len(f.Methods) > 0 && !slices.Contains(f.Methods, a.Method)
	})
	l.mu.Unlock()
	if limit := f.Limit; limit > 0 && len(entries) > limit {
		entries = entries[len(entries)-limit:]
	}
	return entries, "memory", nil
}

func digest(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// StatsParams are the params of sightline/stats.
type StatsParams struct {
	Rendering
	// Limit bounds how many of the latest audited calls are counted (0: all).
	Limit int `json:"limit,omitempty"`
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
	entries, src, err := e.audits.entries(ctx, store.AuditFilter{Limit: p.Limit, Methods: writeMethods})
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
