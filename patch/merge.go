package patch

import (
	"github.com/sightline-lsp/sightline/hashline"
)

// Merged is a hunk that did not apply as written but merges cleanly: the
// lines of context the text changed since the patch was made are trimmed
// off, and what remains occurs exactly once.
type Merged struct {
	Hunk int
	// Lead and Trail are how many leading and trailing context lines were
	// trimmed.
	Lead, Trail int
}

// MergePlan plans f against src as a three-way merge on lines: base is each
// hunk's old side (context and removed lines), theirs its new side, ours
// src. A hunk that applies exactly is planned as Plan plans it. A hunk that
// does not is merged only when trimming some of its outer context (the lines
// the file changed since the patch was made, which the patch keeps) leaves
// old lines that occur exactly once in src with at least one context line
// kept: there the patch's change is made and the file's own changes around it
// stay. Otherwise there is no clean merge and the first failure is returned.
// merged names the hunks that needed trimming (none: Plan would do).
func MergePlan(src hashline.Source, f File, dominant string) (hashline.Plan, []Placed, []Merged, *Failure) {
	g := f
	g.Hunks = append([]Hunk(nil), f.Hunks...)
	var merged []Merged
	alone := &placer{src: src, f: f, dominant: dominant}
	for i, h := range f.Hunks {
		_, fail := alone.place(i, h, 0, 0)
		if fail == nil {
			continue
		}
		t, m, ok := trimToFit(src, f, i, h, dominant)
		if fail.Kind == "invalid" || !ok {
			return hashline.Plan{}, nil, nil, fail
		}
		g.Hunks[i] = t
		merged = append(merged, m)
	}
	plan, placed, fail := Plan(src, g, dominant)
	if fail != nil {
		return hashline.Plan{}, nil, nil, fail
	}
	return plan, placed, merged, nil
}

// trimToFit finds the least trimming of h's outer context with which h
// applies exactly (one place), keeping at least one context line. A
// trimmed V4A chunk too must occur once: it is not the chunk as written,
// so the first of several places is no more its place than the others.
func trimToFit(src hashline.Source, f File, i int, h Hunk, dominant string) (Hunk, Merged, bool) {
	f.V4A = false
	pl := &placer{src: src, f: f, dominant: dominant}
	lead, trail := contextRuns(h)
	if lead+trail == 0 {
		return Hunk{}, Merged{}, false
	}
	for total := 1; total < lead+trail; total++ {
		for a := max(0, total-trail); a <= min(total, lead); a++ {
			b := total - a
			if b > 0 && h.OldNoEOL != h.NewNoEOL {
				continue // the final newline changes on a line trimmed off
			}
			t := h
			t.Old = h.Old[a : len(h.Old)-b]
			t.New = h.New[a : len(h.New)-b]
			if h.CR != nil {
				t.CR = h.CR[a : len(h.CR)-b]
			}
			if b > 0 {
				t.OldNoEOL, t.NewNoEOL, t.EOF = false, false, false
			}
			if _, fail := pl.place(i, t, 0, 0); fail == nil {
				return t, Merged{Hunk: i, Lead: a, Trail: b}, true
			}
		}
	}
	return Hunk{}, Merged{}, false
}

// contextRuns counts the leading and trailing lines the hunk's old and new
// sides share (its outer context), never overlapping.
func contextRuns(h Hunk) (lead, trail int) {
	n := min(len(h.Old), len(h.New))
	for lead < n && h.Old[lead] == h.New[lead] {
		lead++
	}
	for trail < n-lead && h.Old[len(h.Old)-1-trail] == h.New[len(h.New)-1-trail] {
		trail++
	}
	return lead, trail
}
