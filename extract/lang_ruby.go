package extract

import "strings"

// Ruby: "class", "module" and "def" at the start of a line. A block ends at
// the "end" indented like its header (the convention every formatter keeps);
// one-line and endless definitions end on their own line. Heredocs and
// =begin/=end comments are skipped.

type rbBlock struct {
	indent int
	sym    int
	def    bool // a method: what it contains is not reported
	name   string
}

type rbState struct {
	heredocs []rbHeredoc // opened on the current line, read from the next
	inDoc    []rbHeredoc
	comment  bool // inside =begin ... =end
	done     bool // after __END__
	stack    []rbBlock
	lastCode int
	out      []Symbol
}

type rbHeredoc struct {
	id       string
	indented bool // <<~ or <<-: the terminator may be indented
}

func extractRuby(lines []Line, limit int) []Symbol {
	st := &rbState{}
	for _, l := range lines {
		c := l.Content
		if k := len(c); k > 0 && c[k-1] == '\r' {
			c = c[:k-1]
		}
		st.line(l.N, c)
		if st.done || limit > 0 && len(st.out) > limit {
			break
		}
	}
	for len(st.stack) > 0 {
		st.pop(0) // no "end" seen: unknown
	}
	return st.out
}

func (st *rbState) pop(end int) {
	b := st.stack[len(st.stack)-1]
	st.stack = st.stack[:len(st.stack)-1]
	if b.sym >= 0 {
		st.out[b.sym].End = end
	}
}

func (st *rbState) line(n int, c string) {
	if len(st.inDoc) > 0 {
		d := st.inDoc[0]
		t := c
		if d.indented {
			t = strings.TrimSpace(c)
		}
		if t == d.id {
			st.inDoc = st.inDoc[1:]
		}
		return
	}
	if st.comment {
		if strings.HasPrefix(c, "=end") {
			st.comment = false
		}
		return
	}
	if strings.HasPrefix(c, "=begin") {
		st.comment = true
		return
	}
	if c == "__END__" {
		st.done = true
		return
	}
	i := 0
	for i < len(c) && (c[i] == ' ' || c[i] == '\t') {
		i++
	}
	indent, t := i, c[i:]
	if t == "" || t[0] == '#' {
		return
	}
	// Blocks indented deeper than this line have ended (badly indented
	// code, or an "end" we did not see).
	for len(st.stack) > 0 && st.stack[len(st.stack)-1].indent > indent {
		st.pop(0)
	}
	if w := leadingIdent(t); w == "end" && len(st.stack) > 0 && st.stack[len(st.stack)-1].indent == indent {
		st.pop(n)
	} else if w == "class" || w == "module" || w == "def" {
		st.candidate(n, t, w, indent)
	}
	st.scanHeredocs(c)
	if len(st.heredocs) > 0 {
		st.inDoc = append(st.inDoc, st.heredocs...)
		st.heredocs = st.heredocs[:0]
	}
	st.lastCode = n
}

func (st *rbState) candidate(n int, t, w string, indent int) {
	rest := strings.TrimLeft(t[len(w):], " \t")
	if rest == t[len(w):] && rest != "" && w != "def" {
		return // "class" not followed by a blank: class.method, module_function
	}
	var parent *rbBlock
	if k := len(st.stack); k > 0 {
		parent = &st.stack[k-1]
	}
	container := ""
	if parent != nil {
		container = parent.name
	}
	report := parent == nil || !parent.def
	var name, kind string
	if w == "def" {
		name = rbMethodName(rest)
		if name == "" {
			return
		}
		kind = "func"
		if parent != nil {
			kind = "method"
		}
	} else {
		if w == "class" && strings.HasPrefix(rest, "<<") {
			// class << self: its defs are the enclosing class's methods;
			// class << Gem: Gem's.
			name := container
			if obj := rbConstPath(strings.TrimLeft(rest[2:], " \t")); obj != "" {
				name = obj
			}
			st.stack = append(st.stack, rbBlock{indent: indent, sym: -1, name: name})
			return
		}
		name = rbConstPath(rest)
		if name == "" {
			return
		}
		kind = w
	}
	end := 0
	if rbOneLine(w, rest) {
		end = n
	}
	sym := -1
	if report {
		st.out = append(st.out, Symbol{Name: name, Kind: kind, Signature: signature(t), Start: n, End: end, Container: container})
		sym = len(st.out) - 1
	}
	if end == 0 {
		st.stack = append(st.stack, rbBlock{indent: indent, sym: sym, def: w == "def" || !report, name: name})
	}
}

// rbMethodName reads the name after "def": foo, foo?, foo=, self.foo, ==, [].
func rbMethodName(s string) string {
	// A receiver: self.foo, self::foo, Foo.bar.
	if id := leadingIdent(s); id != "" {
		if r := s[len(id):]; strings.HasPrefix(r, ".") {
			s = r[1:]
		} else if strings.HasPrefix(r, "::") {
			s = r[2:]
		}
	}
	if id := leadingIdent(s); id != "" {
		if k := len(id); k < len(s) && (s[k] == '?' || s[k] == '!' || s[k] == '=' && !strings.HasPrefix(s[k:], "==") && !strings.HasPrefix(s[k:], "=~") && !strings.HasPrefix(s[k:], "=>")) {
			return s[:k+1] // foo?, foo!, foo= (a setter: "def foo = 1" has a blank first)
		}
		return id
	}
	// Operators.
	k := 0
	for k < len(s) && strings.IndexByte("+-*/%<>=!~^&|[]@`", s[k]) >= 0 {
		k++
	}
	return s[:k]
}

// rbConstPath reads "Foo::Bar" after class or module.
func rbConstPath(s string) string {
	s = strings.TrimPrefix(s, "::")
	i := 0
	for {
		id := leadingIdent(s[i:])
		if id == "" || !('A' <= id[0] && id[0] <= 'Z') {
			break
		}
		i += len(id)
		if strings.HasPrefix(s[i:], "::") {
			i += 2
			continue
		}
		break
	}
	return strings.TrimSuffix(s[:i], "::")
}

// rbOneLine reports a definition that ends on its own line: "def x; end",
// "def x = 1", "class E < StandardError; end".
func rbOneLine(w, rest string) bool {
	code := rest
	if k := strings.Index(code, " #"); k >= 0 {
		code = code[:k]
	}
	code = strings.TrimSpace(code)
	if code == "end" || strings.HasSuffix(code, "end") && len(code) > 3 && strings.IndexByte(" \t;)", code[len(code)-4]) >= 0 {
		return true // def x; end, def x() 1 end
	}
	if w == "def" {
		// Endless: def name(args) = expr, def name = expr.
		s := code
		if k := strings.IndexByte(s, '('); k >= 0 && !strings.Contains(s[:k], " ") {
			if r, ok := skipBalanced(s[k:]); ok {
				return strings.HasPrefix(r, "=") && !strings.HasPrefix(r, "==")
			}
			return false
		}
		f := strings.Fields(s)
		return len(f) >= 2 && f[1] == "="
	}
	return false
}

// scanHeredocs finds heredoc openers (<<~ID, <<-ID, <<ID, quoted IDs)
// outside strings and comments on one line.
func (st *rbState) scanHeredocs(c string) {
	if !strings.Contains(c, "<<") {
		return
	}
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '#':
			return
		case '"', '\'', '`':
			q := c[i]
			for i++; i < len(c) && c[i] != q; i++ {
				if c[i] == '\\' {
					i++
				}
			}
		case '<':
			if i+2 >= len(c) || c[i+1] != '<' {
				continue
			}
			j := i + 2
			indented := false
			if c[j] == '~' || c[j] == '-' {
				indented = true
				j++
			}
			if j < len(c) && (c[j] == '"' || c[j] == '\'' || c[j] == '`') {
				q := c[j]
				k := strings.IndexByte(c[j+1:], q)
				if k < 0 {
					return
				}
				st.heredocs = append(st.heredocs, rbHeredoc{id: c[j+1 : j+1+k], indented: indented})
				i = j + 1 + k
				continue
			}
			id := leadingIdent(c[j:])
			if id == "" || !indented && !isUpperMacro(id) && !(len(id) == 1 && 'A' <= id[0] && id[0] <= 'Z') {
				// "a << b", "class << self": not a heredoc.
				i++
				continue
			}
			if !indented && i > 0 && isIdentByte(c[i-1]) {
				i++
				continue
			}
			st.heredocs = append(st.heredocs, rbHeredoc{id: id, indented: indented})
			i = j + len(id) - 1
		}
	}
}
