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
			"The EDIT lines for %s start with hashline prefixes like `12:a3Kf|`, which are not part of the file: send the raw lines without the LINE:HASH| prefixes.", b.Path)}
	}
	if count, at := findLoose(v, b.Old); count > 0 {
		return whitespaceDiag(v, b, count, at)
	}
	if d := nearDiag(v, b); d != nil {
		return d
	}
	return &Diagnostic{Kind: KindNotFound, Message: fmt.Sprintf(
		"The EDIT lines for %s (starting %s) were not found, not even approximately. Read the file again and copy the lines to replace exactly, with a few unchanged lines around them.",
		b.Path, quote(b.Old[0]))}
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
	msg := fmt.Sprintf("The EDIT lines for %s match %s only if whitespace is ignored.", b.Path, where)
	for j, want := range b.Old {
		got := v.at(p + j)
		if got == want {
			continue
		}
		msg += fmt.Sprintf(" Line %d of the file is %s; the block has %s (%s).", p+j+1, quote(got), quote(want), wsDifference(got, want))
		break
	}
	d.Message = msg + " Copy the lines exactly as the file has them: tabs are never converted."
	return d
}

// wsDifference names how two loosely equal lines differ.
func wsDifference(file, block string) string {
	fi, bi := indent(file), indent(block)
	var parts []string
	if fi != bi {
		parts = append(parts, fmt.Sprintf("the file indents with %s, the block with %s", describeIndent(fi), describeIndent(bi)))
	}
	ft, bt := len(file)-len(strings.TrimRight(file, " \t\v\f")), len(block)-len(strings.TrimRight(block, " \t\v\f"))
	switch {
	case ft > 0 && bt == 0:
		parts = append(parts, "the file line has trailing whitespace")
	case bt > 0 && ft == 0:
		parts = append(parts, "the block line has trailing whitespace")
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
	score      float64
	start, end int // 0-based inclusive region
	agree      int // EDIT lines found there (whitespace ignored at the ends)
	pairs      []pair
}

type pair struct{ j, i int } // EDIT line j matched file line i

// nearDiag looks for the region most like the EDIT half. Lines vote for
// alignments (file line i holding EDIT line j's trimmed text votes for
// the region starting at i-j, weighted by the line's length, so "}" and
// blank lines count for nothing); the best few alignments are then scored by
// the longest common subsequence of lines within a window, which tolerates
// lines the model left out or made up.
func nearDiag(v view, b Block) *Diagnostic {
	old := b.Old
	m := len(old)
	if m > nearMaxLines || v.n == 0 {
		return nil
	}
	w := make([]int, m)
	total := 0
	idx := make(map[string][]int, m)
	for j, l := range old {
		t := trimWS(l)
		w[j] = min(len(t), weightCap)
		total += w[j]
		if len(t) >= trivialLen {
			idx[t] = append(idx[t], j)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	votes := map[int]int{}
	v.each(func(i int, c string) bool {
		t := trimWS(c)
		if len(t) < trivialLen {
			return true
		}
		for _, j := range idx[t] {
			votes[i-j] += w[j]
		}
		return true
	})
	if len(votes) == 0 {
		return nil
	}
	type cand struct{ p, votes int }
	cands := make([]cand, 0, len(votes))
	for p, n := range votes {
		cands = append(cands, cand{p, n})
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(cmp.Compare(b.votes, a.votes), cmp.Compare(a.p, b.p)) })
	slack := 3 + m/10
	var best near
	for _, c := range cands[:min(len(cands), nearTop)] {
		if float64(c.votes) < nearThreshold*float64(total)/2 {
			break // too few lines in common to reach the threshold even in a window
		}
		r := lcsRegion(v, old, w, max(c.p-slack, 0), min(c.p+m+slack, v.n))
		r.score = float64(r.score) / float64(total)
		if r.score > best.score || r.score == best.score && r.start < best.start && r.score > 0 {
			best = r
		}
	}
	if best.score < nearThreshold || len(best.pairs) == 0 {
		return nil
	}
	d := &Diagnostic{Kind: KindNear, Line: best.start + 1}
	msg := fmt.Sprintf("No exact match for the EDIT lines in %s. The closest place is lines %d-%d (%d of %d lines agree).",
		b.Path, best.start+1, best.end+1, best.agree, m)
	msg += " " + firstDifference(v, old, best)
	d.Message = msg + fmt.Sprintf(" Read lines %d-%d again and copy the EDIT lines exactly from the file.", best.start+1, best.end+1)
	return d
}

// lcsRegion scores old against file lines [lo, hi) by the heaviest common
// subsequence of trimmed lines; score holds the raw weight.
func lcsRegion(v view, old []string, w []int, lo, hi int) near {
	m, n := len(old), hi-lo
	file := make([]string, n)
	for i := range file {
		file[i] = trimWS(v.at(lo + i))
	}
	ot := make([]string, m)
	for j := range ot {
		ot[j] = trimWS(old[j])
	}
	// dp[(j)*(n+1)+i]: best weight of old[j:] against file[i:]. Equal lines
	// weigh at least 1 so blank and brace lines still align.
	dp := make([]int, (m+1)*(n+1))
	at := func(j, i int) int { return dp[j*(n+1)+i] }
	for j := m - 1; j >= 0; j-- {
		for i := n - 1; i >= 0; i-- {
			best := max(at(j+1, i), at(j, i+1))
			if ot[j] == file[i] {
				best = max(best, at(j+1, i+1)+max(w[j], 1))
			}
			dp[j*(n+1)+i] = best
		}
	}
	var r near
	for j, i := 0, 0; j < m && i < n; {
		switch {
		case ot[j] == file[i] && at(j, i) == at(j+1, i+1)+max(w[j], 1):
			r.pairs = append(r.pairs, pair{j, lo + i})
			r.score += float64(w[j])
			j++
			i++
		case at(j+1, i) >= at(j, i+1):
			j++
		default:
			i++
		}
	}
	r.agree = len(r.pairs)
	if len(r.pairs) > 0 {
		f, l := r.pairs[0], r.pairs[len(r.pairs)-1]
		r.start = max(f.i-f.j, 0)
		r.end = min(l.i+(m-1-l.j), v.n-1)
	}
	return r
}

// firstDifference names the first EDIT line the region does not hold, or
// the first file line the EDIT half leaves out.
func firstDifference(v view, old []string, r near) string {
	pi := 0
	for j := range old {
		if pi < len(r.pairs) && r.pairs[pi].j == j {
			p := r.pairs[pi]
			if pi > 0 && p.i > r.pairs[pi-1].i+1 && r.pairs[pi-1].j == j-1 {
				gap := r.pairs[pi-1].i + 1
				return fmt.Sprintf("After line %d of the EDIT half the file has %s (line %d), which the EDIT half leaves out.",
					j, quote(v.at(gap)), gap+1)
			}
			if got := v.at(p.i); got != old[j] {
				return fmt.Sprintf("Line %d of the EDIT half, %s, differs in whitespace from the file's line %d, %s (%s).",
					j+1, quote(old[j]), p.i+1, quote(got), wsDifference(got, old[j]))
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
			return fmt.Sprintf("Line %d of the EDIT half, %s, is not in the file there; the file's line %d is %s.",
				j+1, quote(old[j]), i+1, quote(v.at(i)))
		}
		return fmt.Sprintf("Line %d of the EDIT half, %s, is not in the file there.", j+1, quote(old[j]))
	}
	return ""
}
