package extract

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Qualify names each symbol by the path of its containers, as an agent
// writes it: "Outer.Inner.method", "Type.Method" (a Go method, whose
// container is its receiver's type, not a declaration around it), "func".
// A container is the nearest enclosing declaration of that name; one that
// encloses nothing (a receiver type) is named as the extractor gives it.
func Qualify(syms []Symbol) []string {
	out := make([]string, len(syms))
	var open []int // enclosing declarations, innermost last
	for i, s := range syms {
		for len(open) > 0 && !encloses(syms[open[len(open)-1]], s) {
			open = open[:len(open)-1]
		}
		out[i] = s.Name
		if s.Container != "" {
			out[i] = s.Container + "." + s.Name
			for j := len(open) - 1; j >= 0; j-- {
				if syms[open[j]].Name == s.Container {
					out[i] = out[open[j]] + "." + s.Name
					break
				}
			}
		}
		open = append(open, i)
	}
	return out
}

func encloses(outer, s Symbol) bool {
	return outer.End > outer.Start && outer.Start <= s.Start && s.Start <= outer.End
}

// Find returns the symbols a name means (indexes into syms, whose
// qualified names are q, as Qualify gives them): those whose
// qualified name is name, else those whose qualified name ends in
// "."+name ("method" finds "Class.method", "Inner.m" finds
// "Outer.Inner.m"). None found: nearest are the closest names, best first,
// to suggest instead.
func Find(syms []Symbol, q []string, name string) (matches, nearest []int) {
	name = strings.TrimSpace(name)
	for i := range syms {
		if q[i] == name {
			matches = append(matches, i)
		}
	}
	if len(matches) > 0 || name == "" {
		return matches, nil
	}
	for i := range syms {
		if strings.HasSuffix(q[i], "."+name) {
			matches = append(matches, i)
		}
	}
	if len(matches) > 0 {
		return matches, nil
	}
	type scored struct{ i, d int }
	var cands []scored
	want := strings.ToLower(name)
	for i := range syms {
		got := strings.ToLower(q[i])
		d := distance(want, got)
		if last := strings.ToLower(syms[i].Name); distance(want, last) < d {
			d = distance(want, last)
		}
		if strings.Contains(got, want) || strings.Contains(want, strings.ToLower(syms[i].Name)) {
			d = min(d, 1)
		}
		// Suggest only names within a third of the name's length: beyond
		// that a suggestion is noise.
		if d <= max(2, utf8.RuneCountInString(name)/3) {
			cands = append(cands, scored{i, d})
		}
	}
	slices.SortStableFunc(cands, func(a, b scored) int { return a.d - b.d })
	for _, c := range cands[:min(len(cands), 5)] {
		nearest = append(nearest, c.i)
	}
	return nil, nearest
}

// distance is the Levenshtein distance of two strings, by runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Span is a declaration's lines as an agent reads or replaces it: from its
// doc comment, decorators and annotations (the lines right above its
// Start, without a blank line between) to its End (Start when unknown).
// line(n) is the content of 1-based line n.
func Span(lang string, s Symbol, line func(n int) string) (start, end int) {
	start, end = s.Start, s.End
	if end < start {
		end = start
	}
	for start > 1 && leading(lang, strings.TrimSpace(line(start-1))) {
		start--
	}
	return start, end
}

// leading reports whether a line belongs to the declaration below it: a
// comment, a decorator or an annotation.
func leading(lang, t string) bool {
	if t == "" {
		return false
	}
	switch {
	case strings.HasPrefix(t, "//"), strings.HasPrefix(t, "/*"), strings.HasPrefix(t, "*"):
		return lang != "python" && lang != "ruby"
	case strings.HasPrefix(t, "#["), strings.HasPrefix(t, "#!["):
		return lang == "rust"
	case strings.HasPrefix(t, "#"):
		return lang == "python" || lang == "ruby"
	case strings.HasPrefix(t, "@"):
		return lang == "python" || lang == "java" || lang == "typescript" || lang == "javascript"
	}
	return false
}
