// Package linediff finds the line changes between two texts known only by
// their line hashes (a file that changed on disk while no sightline process
// watched it). It trims the common prefix and suffix, then runs Myers' O(ND)
// difference algorithm on what is left, so the usual small change costs the
// trimming scan plus O(size of the change).
package linediff

// Hunk says that lines [A, A+Del) of the old text became lines [B, B+Ins) of
// the new text (0-based). Del == 0 is a pure insertion before old line A,
// Ins == 0 a pure deletion.
type Hunk struct {
	A, Del int
	B, Ins int
}

// MaxCost bounds the edit distance (lines deleted plus lines inserted) Diff
// searches for a minimal diff. The search keeps one frontier per step, so its
// memory grows with the square of the distance: past 1024 steps (4 MiB) the
// lines between the first and the last difference are reported as one hunk,
// which overstates the change but never hides one.
const MaxCost = 1024

// Diff returns the hunks turning old into new, in order and disjoint: a
// minimal line diff when the edit distance is at most MaxCost.
func Diff(old, new []uint32) []Hunk { return diff(old, new, MaxCost) }

func diff(a, b []uint32, maxCost int) []Hunk {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	a, b = a[pre:len(a)-suf], b[pre:len(b)-suf]
	switch {
	case len(a) == 0 && len(b) == 0:
		return nil
	case len(a) == 0 || len(b) == 0:
		return []Hunk{{A: pre, Del: len(a), B: pre, Ins: len(b)}}
	}
	hs, ok := myers(a, b, maxCost)
	if !ok {
		return []Hunk{{A: pre, Del: len(a), B: pre, Ins: len(b)}}
	}
	for i := range hs {
		hs[i].A += pre
		hs[i].B += pre
	}
	return hs
}

// myers is the greedy forward search of "An O(ND) Difference Algorithm and
// Its Variations" (Myers 1986): v[k] is the furthest x reached on diagonal
// k = x-y with d edits. The frontier after each step is kept (only its 2d+1
// live diagonals) to walk the path back. ok is false past maxCost edits.
func myers(a, b []uint32, maxCost int) ([]Hunk, bool) {
	n, m := len(a), len(b)
	dmax := min(n+m, maxCost)
	off := dmax + 1
	v := make([]int32, 2*dmax+3)
	var trace [][]int32 // trace[d] = v[off-d .. off+d] before step d
	for d := 0; d <= dmax; d++ {
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1]) // down: insert b[y-1]
			} else {
				x = int(v[off+k-1]) + 1 // right: delete a[x-1]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m, d), true
			}
		}
	}
	return nil, false
}

// backtrack walks the path ending at (n, m) with d edits back to (0, 0),
// collecting its edits into hunks.
func backtrack(trace [][]int32, n, m, d int) []Hunk {
	var rev []Hunk // in reverse order
	x, y := n, m
	for ; d > 0; d-- {
		prev := trace[d] // the frontier after d-1 edits, diagonal k at k+d
		at := func(k int) int { return int(prev[k+d]) }
		k := x - y
		var px, py int
		insert := k == -d || (k != d && at(k-1) < at(k+1))
		if insert {
			px = at(k + 1)
			py = px - (k + 1)
		} else {
			px = at(k - 1)
			py = px - (k - 1)
		}
		// The edit takes (px, py) to (ex, ey); a snake of equal lines leads
		// from there to (x, y).
		ex, ey := px, py+1
		if !insert {
			ex, ey = px+1, py
		}
		if h := len(rev) - 1; h >= 0 && rev[h].A == ex && rev[h].B == ey {
			// Adjacent to the hunk after it: grow that hunk backwards.
			rev[h].A, rev[h].B = px, py
			rev[h].Del += ex - px
			rev[h].Ins += ey - py
		} else {
			rev = append(rev, Hunk{A: px, Del: ex - px, B: py, Ins: ey - py})
		}
		x, y = px, py
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
