package extract

import "strings"

// Python: "def" and "class" at the start of a logical line. Blocks are told
// by indentation; the lexer tracks triple-quoted strings, brackets and
// backslash continuations so that lines inside them are neither candidates
// nor block boundaries. A block ends at the last code line before the next
// logical line indented no deeper than its header.

type pyBlock struct {
	indent int
	sym    int // index in out, or -1 for an unreported block
	class  bool
	opaque bool // inside a function: nothing in it is reported
	name   string
}

type pyState struct {
	quote    string // the quote of a string open at the end of the line, or ""
	brackets int
	cont     bool // the previous line ended with a backslash
	stack    []pyBlock
	lastCode int
	out      []Symbol
}

func extractPython(lines []Line, limit int) []Symbol {
	st := &pyState{}
	for _, l := range lines {
		c := l.Content
		if k := len(c); k > 0 && c[k-1] == '\r' {
			c = c[:k-1]
		}
		st.line(l.N, c)
		if limit > 0 && len(st.out) > limit {
			break
		}
	}
	for len(st.stack) > 0 {
		st.pop(st.lastCode)
	}
	return st.out
}

func (st *pyState) pop(end int) {
	b := st.stack[len(st.stack)-1]
	st.stack = st.stack[:len(st.stack)-1]
	if b.sym >= 0 {
		st.out[b.sym].End = end
	}
}

func (st *pyState) line(n int, c string) {
	logical := st.quote == "" && st.brackets == 0 && !st.cont
	i := 0
	for i < len(c) && (c[i] == ' ' || c[i] == '\t') {
		i++ // a tab counts as one column: files that mix them are rare, and consistent
	}
	indent := i
	t := c[i:]
	if logical {
		if t == "" || t[0] == '#' {
			return
		}
		// Close the blocks this line is not inside.
		for len(st.stack) > 0 && st.stack[len(st.stack)-1].indent >= indent {
			st.pop(st.lastCode)
		}
		st.candidate(n, t, indent)
	}
	st.scan(c)
	if strings.TrimSpace(c) != "" {
		st.lastCode = n
	}
}

// candidate handles a logical line that may be a def or class header.
func (st *pyState) candidate(n int, t string, indent int) {
	s := t
	if r, ok := cutWord(s, "async"); ok {
		s = r
	}
	w := leadingIdent(s)
	if w != "def" && w != "class" {
		return
	}
	name := leadingIdent(strings.TrimLeft(s[len(w):], " \t"))
	if name == "" {
		return
	}
	// Report it when its enclosing block is none or a class.
	sym := -1
	var parent *pyBlock
	if k := len(st.stack); k > 0 {
		parent = &st.stack[k-1]
	}
	opaque := parent != nil && (parent.opaque || !parent.class)
	if !opaque {
		kind := "func"
		if w == "class" {
			kind = "class"
		} else if parent != nil {
			kind = "method"
		}
		s := Symbol{Name: name, Kind: kind, Signature: signature(t), Start: n}
		if parent != nil {
			s.Container = parent.name
		}
		st.out = append(st.out, s)
		sym = len(st.out) - 1
	}
	st.stack = append(st.stack, pyBlock{indent: indent, sym: sym, class: w == "class", opaque: opaque, name: name})
}

// scan updates the string, bracket and continuation state with one line.
func (st *pyState) scan(c string) {
	i, n := 0, len(c)
	st.cont = false
	for i < n {
		if st.quote != "" {
			k := i
			for k < n {
				if c[k] == '\\' {
					k += 2
					continue
				}
				if strings.HasPrefix(c[k:], st.quote) {
					break
				}
				k++
			}
			if k >= n {
				return
			}
			i = k + len(st.quote)
			st.quote = ""
			continue
		}
		switch ch := c[i]; ch {
		case '#':
			return
		case '\\':
			if i == n-1 {
				st.cont = true
			}
			i += 2
		case '(', '[', '{':
			st.brackets++
			i++
		case ')', ']', '}':
			if st.brackets > 0 {
				st.brackets--
			}
			i++
		case '"', '\'':
			if i+2 < n && c[i+1] == ch && c[i+2] == ch {
				st.quote = c[i : i+3]
				i += 3
				continue
			}
			// A one-line string, unless a backslash continues it.
			k := i + 1
			for k < n && c[k] != ch {
				if c[k] == '\\' {
					k++
				}
				k++
			}
			if k >= n && strings.HasSuffix(c, "\\") {
				st.quote = c[i : i+1]
				return
			}
			i = k + 1
		default:
			i++
		}
	}
}
