package editblock

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/hashline"
)

// Near-match tuning.
const (
	nearThreshold = 0.5 // share of the EDIT half's weight the closest region must agree on
	nearMaxLines  = 400 // longer EDIT halves are not compared line by line
	nearTop       = 8   // candidate alignments compared in detail
	weightCap     = 60  // a line's weight is its trimmed length, capped
	trivialLen    = 3   // lines shorter than this ("}", "") never locate a region
)

// diagnose says why old matches nowhere.
func diagnose(v view, b Block) *Diagnostic {
	if echoesHashline(b.Old) {
		return &Diagnostic{Kind: KindNotFound, Message: fmt.Sprintf(
			"%s start with hashline prefixes like `12:a3Kf|`, which are not part of the file: send the raw lines without the LINE:HASH| prefixes.", b.words().Lines)}
	}
	if count, at := findLoose(v, b.Old); count > 0 {
		return whitespaceDiag(v, b, count, at)
	}
	if d := blankEdgeDiag(v, b); d != nil {
		return d
	}
	if d := nearDiag(v, b); d != nil {
		return d
	}
	return &Diagnostic{Kind: KindNotFound, Message: fmt.Sprintf(
		"%s (starting %s) were not found, not even approximately. Read the file again and copy the lines to replace exactly, with a few unchanged lines around them.",
		b.words().Lines, quote(b.Old[0]))}
}

// blankEdgeDiag diagnoses lines that match only without the blank lines
// at their start or end (models add them): the file has no such line
// there, so they are refused, the place and the fix named.
func blankEdgeDiag(v view, b Block) *Diagnostic {
	lo, hi := 0, len(b.Old)
	for lo < hi && trimWS(b.Old[lo]) == "" {
		lo++
	}
	for hi > lo && trimWS(b.Old[hi-1]) == "" {
		hi--
	}
	if lo == hi || lo == 0 && hi == len(b.Old) {
		return nil
	}
	var edges []string
	n := lo + len(b.Old) - hi
	if lo > 0 {
		edges = append(edges, "start")
	}
	if hi < len(b.Old) {
		edges = append(edges, "end")
	}
	blank, it := "a blank line", "it"
	if n > 1 {
		blank, it = "blank lines", "them"
	}
	where := strings.Join(edges, " and ")
	cut := b
	cut.Old = b.Old[lo:hi]
	w := b.words()
	count, at := findExact(v, cut.Old)
	switch {
	case count == 1:
		d := &Diagnostic{Kind: KindWhitespace, Line: at[0] + 1}
		d.Message = fmt.Sprintf("%s match lines %d-%d exactly only without %s at their %s, which the file does not have there. Remove %s.",
			w.Lines, at[0]+1, at[0]+len(cut.Old), blank, where, it)
		return d
	case count > 1:
		return nil // ambiguous without them too: the near-match diagnosis says more
	}
	if count, at = findLoose(v, cut.Old); count == 0 {
		return nil
	}
	d := whitespaceDiag(v, cut, count, at)
	d.Message += fmt.Sprintf(" Remove %s at their %s too: the file has no such line there.", blank, where)
	return d
}

// echoesHashline reports whether every non-empty line starts with a hashline
// prefix (and one does): lines copied from an annotated read.
func echoesHashline(ls []string) bool {
	seen := false
	for _, l := range ls {
		if l == "" {
			continue
		}
		if !hashline.HasPrefix(l) {
			return false
		}
		seen = true
	}
	return seen
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

func trimWS(s string) string {
	i, j := 0, len(s)
	for i < j && isWS(s[i]) {
		i++
	}
	for j > i && isWS(s[j-1]) {
		j--
	}
	return s[i:j]
}

// eqLoose compares lines ignoring indentation, trailing whitespace and the
// kind and length of whitespace runs inside: tabs vs spaces, trailing
// spaces. "a b" and "ab" still differ.
func eqLoose(a, b string) bool {
	a, b = trimWS(a), trimWS(b)
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isWS(a[i]) && isWS(b[j]) {
			for i < len(a) && isWS(a[i]) {
				i++
			}
			for j < len(b) && isWS(b[j]) {
				j++
			}
			continue
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
	return i == len(a) && j == len(b)
}

// findLoose is findExact with eqLoose.
func findLoose(v view, old []string) (int, []int) {
	key := 0
	for j, l := range old {
		if len(trimWS(l)) > len(trimWS(old[key])) {
			key = j
		}
	}
	k := trimWS(old[key])
	m := len(old)
	count := 0
	var at []int
	v.each(func(i int, c string) bool {
		t := trimWS(c)
		// Cheap rejections first: most lines differ in their ends.
		if len(t) == 0 || len(k) == 0 {
			if len(t) != len(k) {
				return true
			}
		} else if t[0] != k[0] || t[len(t)-1] != k[len(k)-1] || !eqLoose(t, k) {
			return true
		}
		p := i - key
		if p < 0 || p+m > v.n {
			return true
		}
		for j, l := range old {
			if j != key && !eqLoose(v.at(p+j), l) {
				return true
			}
		}
		count++
		if len(at) < maxListed {
			at = append(at, p)
		}
		return true
	})
	return count, at
}

// whitespaceDiag describes an EDIT half that matches only when whitespace
// is ignored, naming the first line that differs and how.
func whitespaceDiag(v view, b Block, count int, at []int) *Diagnostic {
	p := at[0]
	d := &Diagnostic{Kind: KindWhitespace, Line: p + 1}
	where := fmt.Sprintf("lines %d-%d", p+1, p+len(b.Old))
	if len(b.Old) == 1 {
		where = fmt.Sprintf("line %d", p+1)
	}
	if count > 1 {
		d.Lines = make([]int, len(at))
		for i, a := range at {
			d.Lines[i] = a + 1
		}
		where = fmt.Sprintf("%d places (lines %s)", count, listLines(d.Lines))
	}
	w := b.words()
	msg := fmt.Sprintf("%s match %s only if whitespace is ignored.", w.Lines, where)
	for j, want := range b.Old {
		got := v.at(p + j)
		if got == want {
			continue
		}
		msg += fmt.Sprintf(" Line %d of the file is %s; %s %s (%s).", p+j+1, quote(got), w.Has, quote(want), wsDifference(got, want, w.Ours))
		break
	}
	d.Message = msg + " Copy the lines exactly as the file has them: tabs are never converted."
	return d
}

// wsDifference names how two loosely equal lines differ.
func wsDifference(file, block, ours string) string {
	fi, bi := indent(file), indent(block)
	var parts []string
	if fi != bi {
		parts = append(parts, fmt.Sprintf("the file indents with %s, %s with %s", describeIndent(fi), ours, describeIndent(bi)))
	}
	ft, bt := len(file)-len(strings.TrimRight(file, " \t\v\f")), len(block)-len(strings.TrimRight(block, " \t\v\f"))
	switch {
	case ft > 0 && bt == 0:
		parts = append(parts, "the file line has trailing whitespace")
	case bt > 0 && ft == 0:
		parts = append(parts, ours+" line has trailing whitespace")
	case ft != bt:
		parts = append(parts, "their trailing whitespace differs")
	}
	if len(parts) == 0 {
		parts = append(parts, "the whitespace between words differs")
	}
	return strings.Join(parts, "; ")
}

func indent(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t\v\f"))] }

// describeIndent: "1 tab", "4 spaces", "nothing", "2 tabs and 2 spaces".
func describeIndent(s string) string {
	if s == "" {
		return "nothing"
	}
	tabs, spaces := strings.Count(s, "\t"), strings.Count(s, " ")
	var parts []string
	if tabs > 0 {
		parts = append(parts, plural(tabs, "tab"))
	}
	if spaces > 0 {
		parts = append(parts, plural(spaces, "space"))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%q", s)
	}
	return strings.Join(parts, " and ")
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

// near is a region of the file resembling the EDIT half.
type near struct {
	score      float64 // share of the EDIT half's weight found there
	start, end int     // 0-based inclusive region
	agree      int     // EDIT lines found there (whitespace ignored at the ends)
	pairs      []pair
}

// pair: EDIT line j matched file line i, exactly (trimmed) or only alike.
type pair struct {
	j, i  int
	exact bool
}

// candidate is an alignment: the EDIT half's first line at file line p.
type candidate struct {
	p     int
	votes float64
}

// nearDiag looks for the region most like the EDIT half. Lines vote for
// alignments (file line i holding EDIT line j's trimmed text votes for the
// region starting at i-j, weighted by the line's length, so "}" and blank
// lines count for nothing); when that finds nothing close enough, lines
// merely alike the EDIT half's longest line vote too (one word changed in
// a one-line block). The best few alignments are then scored by the
// heaviest common subsequence of lines within a window, which tolerates
// lines the model left out, added or misremembered.
func nearDiag(v view, b Block) *Diagnostic {
	old := b.Old
	m := len(old)
	if m > nearMaxLines || v.n == 0 {
		return nil
	}
	ot := make([]string, m)
	w := make([]int, m)
	total, key := 0, 0
	idx := make(map[string][]int, m)
	for j, l := range old {
		ot[j] = trimWS(l)
		w[j] = min(len(ot[j]), weightCap)
		total += w[j]
		if len(ot[j]) >= trivialLen {
			idx[ot[j]] = append(idx[ot[j]], j)
		}
		if len(ot[j]) > len(ot[key]) {
			key = j
		}
	}
	if len(ot[key]) < trivialLen {
		return nil // nothing but braces and blank lines: no place is "near"
	}
	votes := map[int]float64{}
	v.each(func(i int, c string) bool {
		t := trimWS(c)
		if len(t) < trivialLen {
			return true
		}
		for _, j := range idx[t] {
			votes[i-j] += float64(w[j])
		}
		return true
	})
	best := bestRegion(v, ot, w, total, topCandidates(votes, nearThreshold*float64(total)/2))
	if best.score < nearThreshold {
		// Lines alike the longest EDIT line, prefiltered by first or last
		// byte and length, so the pass stays cheap.
		k := ot[key]
		alike := map[int]float64{}
		v.each(func(i int, c string) bool {
			t := trimWS(c)
			if len(t)*3 < len(k)*2 || len(k)*3 < len(t)*2 || t[0] != k[0] && t[len(t)-1] != k[len(k)-1] {
				return true
			}
			if s := similarity(t, k); s >= alikeMin {
				alike[i-key] = max(alike[i-key], s*float64(w[key]))
			}
			return true
		})
		if r := bestRegion(v, ot, w, total, topCandidates(alike, 0)); r.score > best.score {
			best = r
		}
	}
	if best.score < nearThreshold || len(best.pairs) == 0 {
		return nil
	}
	d := &Diagnostic{Kind: KindNear, Line: best.start + 1}
	where := fmt.Sprintf("lines %d-%d", best.start+1, best.end+1)
	if best.start == best.end {
		where = fmt.Sprintf("line %d", best.start+1)
	}
	msg := fmt.Sprintf("No exact match for the EDIT lines in %s. The closest place is %s (%d of %d lines agree).",
		b.Path, where, best.agree, m)
	if m == 1 {
		msg = fmt.Sprintf("No exact match for the EDIT line in %s. The closest place is %s.", b.Path, where)
	}
	words := b.words()
	switch {
	case b.Words != nil && m == 1:
		msg = fmt.Sprintf("%s have no exact match. The closest place is %s.", words.Lines, where)
	case b.Words != nil:
		msg = fmt.Sprintf("%s have no exact match. The closest place is %s (%d of %d lines agree).", words.Lines, where, best.agree, m)
	}
	msg += " " + firstDifference(v, old, best, words.Half, words.Ours)
	d.Message = msg + fmt.Sprintf(" Read %s again and copy the lines exactly as the file has them.", where)
	return d
}

// alikeMin is the similarity from which two lines count as the same line
// misremembered.
const alikeMin = 0.6

// similarity is a cheap likeness of two lines: the share of the longer one
// covered by their common prefix and suffix. One changed word or argument
// keeps it high; unrelated lines score near 0.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	n := max(len(a), len(b))
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(p+s) / float64(n)
}

// topCandidates returns the nearTop alignments with the most votes, at
// least min each, best first.
func topCandidates(votes map[int]float64, minVotes float64) []candidate {
	cs := make([]candidate, 0, len(votes))
	for p, n := range votes {
		if n >= minVotes {
			cs = append(cs, candidate{p, n})
		}
	}
	slices.SortFunc(cs, func(a, b candidate) int { return cmp.Or(cmp.Compare(b.votes, a.votes), cmp.Compare(a.p, b.p)) })
	return cs[:min(len(cs), nearTop)]
}

// bestRegion scores each candidate within a window around it and returns
// the best region (the first on ties).
func bestRegion(v view, ot []string, w []int, total int, cands []candidate) near {
	m := len(ot)
	slack := 3 + m/10
	var best near
	for _, c := range cands {
		r := lcsRegion(v, ot, w, max(c.p-slack, 0), min(c.p+m+slack, v.n))
		r.score /= float64(total)
		if r.score > best.score {
			best = r
		}
	}
	return best
}

// lcsRegion scores the trimmed EDIT lines ot against file lines [lo, hi)
// by the heaviest common subsequence, where equal lines weigh their weight
// (at least 1, so blank and brace lines still align) and alike lines their
// weight times their similarity. score holds the raw weight.
func lcsRegion(v view, ot []string, w []int, lo, hi int) near {
	m, n := len(ot), hi-lo
	if n <= 0 {
		return near{}
	}
	file := make([]string, n)
	for i := range file {
		file[i] = trimWS(v.at(lo + i))
	}
	// credit of pairing ot[j] with file[i] for the alignment, and the
	// similarity of an alike pair. Alike pairs weigh half, so equal lines
	// decide the alignment ("step_one()" is alike "step_two()").
	credit := func(j, i int) (float64, float64) {
		if ot[j] == file[i] {
			return float64(max(w[j], 1)), 1
		}
		if len(ot[j]) < trivialLen || len(file[i]) < trivialLen {
			return 0, 0
		}
		if s := similarity(ot[j], file[i]); s >= alikeMin {
			return s * float64(w[j]) / 2, s
		}
		return 0, 0
	}
	// dp[j*(n+1)+i]: best weight of ot[j:] against file[i:].
	dp := make([]float64, (m+1)*(n+1))
	at := func(j, i int) float64 { return dp[j*(n+1)+i] }
	for j := m - 1; j >= 0; j-- {
		for i := n - 1; i >= 0; i-- {
			best := max(at(j+1, i), at(j, i+1))
			if c, _ := credit(j, i); c > 0 {
				best = max(best, at(j+1, i+1)+c)
			}
			dp[j*(n+1)+i] = best
		}
	}
	var r near
	for j, i := 0, 0; j < m && i < n; {
		c, sim := credit(j, i)
		switch {
		case c > 0 && at(j, i) == at(j+1, i+1)+c:
			exact := sim == 1
			r.pairs = append(r.pairs, pair{j, lo + i, exact})
			r.score += sim * float64(w[j])
			if exact {
				r.agree++
			}
			j++
			i++
		case at(j+1, i) >= at(j, i+1):
			j++
		default:
			i++
		}
	}
	if len(r.pairs) > 0 {
		f, l := r.pairs[0], r.pairs[len(r.pairs)-1]
		r.start = max(f.i-f.j, 0)
		r.end = min(l.i+(m-1-l.j), v.n-1)
	}
	return r
}

// firstDifference names the first EDIT line the region does not hold, or
// the first file line the EDIT half leaves out.
func firstDifference(v view, old []string, r near, half, ours string) string {
	pi := 0
	for j := range old {
		if pi < len(r.pairs) && r.pairs[pi].j == j {
			p := r.pairs[pi]
			if pi > 0 && p.i > r.pairs[pi-1].i+1 && r.pairs[pi-1].j == j-1 {
				gap := r.pairs[pi-1].i + 1
				return fmt.Sprintf("After line %d of %s the file has %s (line %d), which %s leaves out.",
					j, half, quote(v.at(gap)), gap+1, half)
			}
			if !p.exact {
				return fmt.Sprintf("Line %d of %s, %s, differs from the file's line %d, %s.",
					j+1, half, quote(old[j]), p.i+1, quote(v.at(p.i)))
			}
			if got := v.at(p.i); got != old[j] {
				return fmt.Sprintf("Line %d of %s, %s, differs in whitespace from the file's line %d, %s (%s).",
					j+1, half, quote(old[j]), p.i+1, quote(got), wsDifference(got, old[j], ours))
			}
			pi++
			continue
		}
		// old[j] is not there. The file line in its place: after the
		// previous match, or by position.
		i := r.start + j
		if pi > 0 {
			i = r.pairs[pi-1].i + 1
		}
		if i < v.n && (pi == len(r.pairs) || i < r.pairs[pi].i) {
			return fmt.Sprintf("Line %d of %s, %s, is not in the file there; the file's line %d is %s.",
				j+1, half, quote(old[j]), i+1, quote(v.at(i)))
		}
		return fmt.Sprintf("Line %d of %s, %s, is not in the file there.", j+1, half, quote(old[j]))
	}
	return ""
}
