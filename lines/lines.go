// Package lines splits text into lines by the LSP rule: a line ends at "\n",
// "\r\n" or "\r". It is the one place that decides where lines end; the
// hashline format, the document store and the ledger all count lines through it.
//
// A line is its content plus its terminator. "a\nb\n" has two lines, "a\nb"
// has two lines (the last without terminator), and "" has none.
package lines

import "strings"

// Line is one line of a text: Content excludes the terminator, Term is "\n",
// "\r\n", "\r", or "" for a last line without one.
type Line struct {
	Content string
	Term    string
}

// Len is the line's length in bytes, terminator included.
func (l Line) Len() int { return len(l.Content) + len(l.Term) }

// Next returns the first line of s and the rest of s after it. For s == "" it
// returns a zero Line and "".
func Next(s string) (Line, string) {
	// Two IndexByte scans beat IndexAny several times over; the '\r' search is
	// bounded by the '\n' found, so text using only '\r' stays linear.
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		i = strings.IndexByte(s, '\r')
	} else if j := strings.IndexByte(s[:i], '\r'); j >= 0 {
		i = j
	}
	if i < 0 {
		return Line{Content: s}, ""
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return Line{Content: s[:i], Term: s[i : i+2]}, s[i+2:]
	}
	return Line{Content: s[:i], Term: s[i : i+1]}, s[i+1:]
}

// Split returns the lines of s. The strings alias s.
func Split(s string) []Line {
	out := make([]Line, 0, Count(s))
	for s != "" {
		var l Line
		l, s = Next(s)
		out = append(out, l)
	}
	return out
}

// Each calls fn for every line of s, in order, with its 0-based index; it stops
// early when fn returns false.
func Each(s string, fn func(i int, l Line) bool) {
	for i := 0; s != ""; i++ {
		var l Line
		l, s = Next(s)
		if !fn(i, l) {
			return
		}
	}
}

// Count returns the number of lines in s by the LSP rule.
func Count(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			n++
		case '\r':
			n++
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		}
	}
	if len(s) > 0 && s[len(s)-1] != '\n' && s[len(s)-1] != '\r' {
		n++ // a last line without terminator
	}
	return n
}

// Join concatenates lines back into text, each with its own terminator.
func Join(ls []Line) string {
	n := 0
	for _, l := range ls {
		n += l.Len()
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range ls {
		b.WriteString(l.Content)
		b.WriteString(l.Term)
	}
	return b.String()
}

// EndsWithTerm reports whether s ends with a line terminator, i.e. whether an
// LSP client sees an empty line after the last counted one.
func EndsWithTerm(s string) bool {
	return s != "" && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r')
}

// Dominant returns the terminator most used in s ("\n" when s has none),
// the one new lines should take so a file keeps its style.
func Dominant(s string) string {
	var lf, crlf, cr int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			lf++
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				crlf++
				i++
			} else {
				cr++
			}
		}
	}
	switch {
	case crlf > lf && crlf >= cr:
		return "\r\n"
	case cr > lf && cr > crlf:
		return "\r"
	}
	return "\n"
}
