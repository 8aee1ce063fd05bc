package extract

import (
	"sort"
	"strings"
)

// This file holds the scanner shared by the brace languages (Go,
// TypeScript/JavaScript, Rust, Java, C/C++). It reads line by line, keeping
// just enough lexical state (block comments, multi-line strings, template
// literals, raw strings, preprocessor continuations) to know whether a line
// starts in code, and brace and paren depths outside strings and comments to
// know which scope a line is in and where a declaration ends.
//
// A language supplies a matcher that looks at the start of a code line and
// proposes a candidate declaration. The candidate stays pending until its
// body opens ("{" at the candidate's paren depth: the symbol's end is the
// matching "}"), or it ends without a body (";", or the end of the line in
// Go).

// lexMode says what a line starts inside of.
type lexMode uint8

const (
	mCode         lexMode = iota
	mBlockComment         // /* ... */ (nested in Rust)
	mString               // a quoted string continued on the next line
	mRaw                  // a raw string or text block, ended by rawEnd
	mTemplate             // a JavaScript template literal
	mPreproc              // a C preprocessor line continued with a backslash
)

// scopeKind says what a brace scope holds, and so which declarations inside
// it are reported.
type scopeKind uint8

const (
	sOpaque    scopeKind = iota // function bodies, blocks, literals: nothing inside is reported
	sNamespace                  // namespaces, modules, extern blocks: their members are reported as top-level ones
	sContainer                  // classes, impls, traits: their functions are methods
)

// lexFlags select the lexical rules of one language.
type lexFlags uint16

const (
	lxCharQuote   lexFlags = 1 << iota // '...' is a character literal, not a string
	lxBacktickRaw                      // `...` is a raw string (Go)
	lxTemplate                         // `...` is a template literal with ${} (JavaScript)
	lxRust                             // raw strings r#"..."#, lifetimes, nested block comments, multi-line strings
	lxCppRaw                           // R"delim(...)delim"
	lxTextBlock                        // """...""" (Java)
	lxPreproc                          // lines starting with # are preprocessor directives (C)
	lxRegexLit                         // /.../ regular expression literals (JavaScript)
	lxArrow                            // => is significant (JavaScript)
	lxNewlineEnds                      // a declaration without body ends at its line end (Go)
	lxColumn0Top                       // a top-level declaration at column 0 proves the scanner is at top level (resync)
	lxCol0Close                        // a "}" at column 0 closes every scope (Go)
)

// candidate is a declaration proposed by a matcher for one line.
type candidate struct {
	sym       Symbol
	body      scopeKind // the kind of scope its "{" opens
	scopeName string    // the container name members of that scope get
	needBody  bool      // dropped if it ends without a body (C prototypes, forward declarations)
	needArrow bool      // dropped unless "=>" comes before its body or end (const f = (...) => ...)
	arrowSeen bool
	noEmit    bool // opens a scope but is not itself a symbol (extern "C" {)
	typedef   bool // C: the typedef's name follows the closing brace
	tailName  bool // C: a typedef whose name is the last word before its ";" on a later line
}

// scope is one open brace.
type scope struct {
	kind    scopeKind
	name    string // container name for members
	sym     int    // index of its symbol in out, or -1
	typedef bool
}

// braceLang is the per-language part of the brace scanner.
type braceLang struct {
	flags lexFlags
	// match proposes the declaration that line (trimmed: without its
	// indentation) starts, in a scope of the given kind whose members get
	// container as their container.
	match func(st *braceState, trimmed string, indent int, kind scopeKind, container string) (candidate, bool)
}

// braceState is the scanner's state while it reads one sequence of lines.
type braceState struct {
	lang *braceLang

	mode         lexMode
	strQuote     byte
	commentDepth int
	rawEnd       string
	tmpl         []int // brace depths of open ${ expressions in template literals

	stack   []scope
	paren   int
	lastSig byte // last significant code byte, to tell a regex literal from a division

	pending    candidate
	hasPending bool
	pendDepth  int
	pendParen  int

	prevCode string // the last code line outside parens (C: the return type of a GNU-style definition)
	group    int    // Go: paren depth of an open "type (" group, or -1

	n   int // current line number
	out []Symbol
}

// ctx reports the kind and name of the innermost scope that decides what
// the current line may declare.
func (st *braceState) ctx() (scopeKind, string) {
	if len(st.stack) == 0 {
		return sNamespace, ""
	}
	top := st.stack[len(st.stack)-1]
	return top.kind, top.name
}

// extractBrace runs the brace scanner over lines, stopping once more than
// limit symbols are found when limit > 0.
func extractBrace(bl *braceLang, lines []Line, limit int) []Symbol {
	st := &braceState{lang: bl, group: -1}
	for _, l := range lines {
		st.n = l.N
		c := l.Content
		if k := len(c); k > 0 && c[k-1] == '\r' {
			c = c[:k-1]
		}
		st.line(c)
		if limit > 0 && len(st.out) > limit {
			break
		}
	}
	if st.hasPending {
		st.resolve(0, endEOF)
	}
	sort.SliceStable(st.out, func(i, j int) bool { return st.out[i].Start < st.out[j].Start })
	return st.out
}

// line handles one line: the matcher first (if the line starts in code and
// in a scope where declarations are reported), then the lexer.
func (st *braceState) line(c string) {
	startMode := st.mode
	if startMode == mPreproc {
		st.mode = mCode
		st.scanPreproc(c)
		return
	}
	if startMode == mCode {
		indent := 0
		for indent < len(c) && (c[indent] == ' ' || c[indent] == '\t') {
			indent++
		}
		trimmed := c[indent:]
		if trimmed == "" {
			return
		}
		if st.lang.flags&lxPreproc != 0 && trimmed[0] == '#' {
			st.scanPreproc(c)
			return
		}
		kind, cont := st.ctx()
		resync := kind == sOpaque && indent == 0 && st.lang.flags&lxColumn0Top != 0
		if resync {
			kind, cont = sNamespace, ""
		}
		if kind != sOpaque {
			if cand, ok := st.lang.match(st, trimmed, indent, kind, cont); ok {
				if resync {
					// A column-0 declaration inside what the scanner took
					// for a body: the scanner lost count (a brace in an
					// unrecognised literal); go back to the top level.
					st.resync(0)
				}
				if st.hasPending {
					st.resolve(0, endCut)
				}
				st.pending, st.hasPending = cand, true
				st.pendDepth, st.pendParen = len(st.stack), st.paren
			}
		}
	}
	st.scan(c)
	if st.hasPending && st.lang.flags&lxNewlineEnds != 0 && st.mode == mCode &&
		len(st.stack) == st.pendDepth && st.paren == st.pendParen {
		st.resolve(st.n, endDone)
	}
	if st.lang.flags&lxCol0Close != 0 && st.mode == mCode && len(c) > 0 && c[0] == '}' && len(st.stack) > 0 {
		// gofmt puts the brace closing a top-level declaration at column 0.
		st.resync(st.n)
	}
	if st.mode == mCode && st.paren == 0 {
		if t := strings.TrimSpace(c); t != "" && !strings.HasPrefix(t, "//") {
			st.prevCode = t
		}
	}
}

// scanPreproc reads a preprocessor line: its braces don't count, but a
// block comment may start on it, and a backslash continues it.
func (st *braceState) scanPreproc(c string) {
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '"', '\'':
			q := c[i]
			for i++; i < len(c) && c[i] != q; i++ {
				if c[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(c) && c[i+1] == '/' {
				return
			}
			if i+1 < len(c) && c[i+1] == '*' {
				k := strings.Index(c[i+2:], "*/")
				if k < 0 {
					st.mode = mBlockComment
					st.commentDepth = 1
					return
				}
				i += 3 + k
			}
		}
	}
	if strings.HasSuffix(c, "\\") {
		st.mode = mPreproc
	}
}

// resync closes every open scope: used when a column-0 declaration proves
// the scanner is at the top level.
func (st *braceState) resync(end int) {
	for len(st.stack) > 0 {
		st.closeScope(end)
	}
	st.paren = 0
	st.tmpl = st.tmpl[:0]
	st.hasPending = false
}

// How a pending candidate ends without a body.
const (
	endDone = iota // its ";" (or, in Go, its line end): End is known
	endCut         // the next candidate or the end of its scope came first
	endEOF         // the input ended (a part of a file): it may have a body beyond
)

// resolve ends the pending candidate without a body, at line end when how
// is endDone.
func (st *braceState) resolve(end int, how int) {
	p := st.pending
	st.hasPending = false
	if p.noEmit || p.needArrow && !p.arrowSeen {
		return
	}
	if p.needBody && how != endEOF {
		return // a prototype or forward declaration, not a definition
	}
	if how != endDone {
		end = 0
	}
	p.sym.End = end
	st.out = append(st.out, p.sym)
}

func (st *braceState) openBrace(rest string) {
	sc := scope{kind: sOpaque, sym: -1}
	if st.hasPending && len(st.stack) == st.pendDepth && st.paren == st.pendParen {
		p := st.pending
		if p.needArrow && !p.arrowSeen && strings.Contains(rest, "=>") {
			// const f = (): { a: T } => {: a return type, the arrow
			// still to come.
			st.stack = append(st.stack, sc)
			return
		}
		st.hasPending = false
		switch {
		case p.needArrow && !p.arrowSeen:
			// const x = { ... }: an object, not a function.
		case p.noEmit:
			sc = scope{kind: p.body, name: p.scopeName, sym: -1, typedef: p.typedef}
		default:
			st.out = append(st.out, p.sym)
			sc = scope{kind: p.body, name: p.scopeName, sym: len(st.out) - 1, typedef: p.typedef}
		}
	}
	if sc.kind != sOpaque && sc.name == "" {
		// Members of an unnamed namespace keep the enclosing container.
		_, sc.name = st.ctx()
	}
	st.stack = append(st.stack, sc)
}

func (st *braceState) closeBrace(rest string) {
	if len(st.stack) == 0 {
		return // a part of a file that starts inside a body
	}
	sc := st.stack[len(st.stack)-1]
	st.closeScope(st.n)
	if sc.typedef {
		// typedef struct { ... } name;: the name is on this line.
		if name := leadingIdent(strings.TrimLeft(rest, " \t*")); name != "" {
			_, cont := st.ctx()
			st.out = append(st.out, Symbol{Name: name, Kind: "type", Signature: signature("} " + rest), Start: st.n, End: st.n, Container: cont})
		}
	}
}

func (st *braceState) closeScope(end int) {
	sc := st.stack[len(st.stack)-1]
	st.stack = st.stack[:len(st.stack)-1]
	if sc.sym >= 0 {
		st.out[sc.sym].End = end
	}
	if st.hasPending && st.pendDepth > len(st.stack) {
		st.resolve(0, endCut)
	}
}

// semicolon handles a ";" with before, the line up to it.
func (st *braceState) semicolon(before string) {
	if st.hasPending && len(st.stack) == st.pendDepth && st.paren == st.pendParen {
		if st.pending.tailName {
			// typedef long
			//     name;
			name := trailingIdent(before)
			if name == "" {
				st.hasPending = false
				return
			}
			st.pending.sym.Name, st.pending.sym.Start = name, st.n
			st.pending.sym.Signature = signature(before + ";")
		}
		st.resolve(st.n, endDone)
	}
}

// trailingIdent returns the identifier at the end of s (blanks trimmed).
func trailingIdent(s string) string {
	s = strings.TrimRight(s, " \t")
	j := len(s)
	for j > 0 && isIdentByte(s[j-1]) {
		j--
	}
	if j == len(s) || '0' <= s[j] && s[j] <= '9' {
		return ""
	}
	return s[j:]
}

// scan updates the lexical state with one line.
func (st *braceState) scan(c string) {
	f := st.lang.flags
	i, n := 0, len(c)
	for i < n {
		switch st.mode {
		case mBlockComment:
			for i < n {
				if c[i] == '*' && i+1 < n && c[i+1] == '/' {
					i += 2
					st.commentDepth--
					if st.commentDepth <= 0 {
						st.commentDepth = 0
						st.mode = mCode
					}
					break
				}
				if f&lxRust != 0 && c[i] == '/' && i+1 < n && c[i+1] == '*' {
					st.commentDepth++
					i += 2
					continue
				}
				i++
			}
		case mString:
			for i < n {
				if c[i] == '\\' {
					i += 2
					continue
				}
				if c[i] == st.strQuote {
					i++
					st.mode = mCode
					break
				}
				i++
			}
		case mRaw:
			if j := strings.Index(c[i:], st.rawEnd); j >= 0 {
				i += j + len(st.rawEnd)
				st.mode = mCode
			} else {
				i = n
			}
		case mTemplate:
			for i < n {
				ch := c[i]
				if ch == '\\' {
					i += 2
					continue
				}
				if ch == '`' {
					i++
					st.mode = mCode
					st.lastSig = '`'
					break
				}
				if ch == '$' && i+1 < n && c[i+1] == '{' {
					i += 2
					st.tmpl = append(st.tmpl, len(st.stack))
					st.mode = mCode
					st.lastSig = '{'
					break
				}
				i++
			}
		case mCode:
			i = st.scanCode(c, i)
		default:
			i = n
		}
	}
	// Strings that may not span lines end with the line.
	if st.mode == mString {
		if f&lxRust == 0 && !strings.HasSuffix(c, "\\") {
			st.mode = mCode
		}
	}
}

// scanCode scans code from i until the line ends or a comment, string or
// literal starts; it returns where it stopped.
func (st *braceState) scanCode(c string, i int) int {
	f := st.lang.flags
	n := len(c)
	for i < n {
		ch := c[i]
		switch ch {
		case ' ', '\t':
			i++
			continue
		case '/':
			if i+1 < n {
				switch c[i+1] {
				case '/':
					return n
				case '*':
					st.mode = mBlockComment
					st.commentDepth = 1
					return i + 2
				}
			}
			if f&lxRegexLit != 0 && regexContext(st.lastSig) {
				i = skipRegexLit(c, i)
				st.lastSig = '/'
				continue
			}
		case '"':
			if f&lxTextBlock != 0 && strings.HasPrefix(c[i:], `"""`) {
				st.mode, st.rawEnd = mRaw, `"""`
				return i + 3
			}
			if f&lxCppRaw != 0 && i > 0 && c[i-1] == 'R' {
				if k := strings.IndexByte(c[i+1:], '('); k >= 0 && k <= 16 {
					st.mode, st.rawEnd = mRaw, ")"+c[i+1:i+1+k]+`"`
					return i + 2 + k
				}
			}
			st.mode, st.strQuote = mString, '"'
			st.lastSig = '"'
			return i + 1
		case '#':
			if f&lxRust != 0 && i > 0 && (c[i-1] == 'r') {
				// r#"..."#, r##"..."##
				j := i
				for j < n && c[j] == '#' {
					j++
				}
				if j < n && c[j] == '"' {
					st.mode, st.rawEnd = mRaw, `"`+c[i:j]
					return j + 1
				}
			}
		case '\'':
			if f&lxRust != 0 {
				i = skipRustQuote(c, i)
				st.lastSig = '\''
				continue
			}
			if f&lxCharQuote != 0 {
				i = skipCharLit(c, i)
				st.lastSig = '\''
				continue
			}
			st.mode, st.strQuote = mString, '\''
			st.lastSig = '\''
			return i + 1
		case '`':
			if f&lxBacktickRaw != 0 {
				st.mode, st.rawEnd = mRaw, "`"
				return i + 1
			}
			if f&lxTemplate != 0 {
				st.mode = mTemplate
				return i + 1
			}
		case '{':
			st.openBrace(c[i+1:])
		case '}':
			if k := len(st.tmpl); k > 0 && st.tmpl[k-1] == len(st.stack) {
				st.tmpl = st.tmpl[:k-1]
				st.mode = mTemplate
				return i + 1
			}
			st.closeBrace(c[i+1:])
		case '(', '[':
			st.paren++
		case ')', ']':
			if st.paren > 0 {
				st.paren--
			}
		case ';':
			st.semicolon(c[:i])
		case '=':
			if f&lxArrow != 0 && i+1 < n && c[i+1] == '>' && st.hasPending &&
				st.paren == st.pendParen && len(st.stack) == st.pendDepth {
				st.pending.arrowSeen = true
			}
		}
		st.lastSig = ch
		i++
	}
	return i
}

// regexContext reports whether a "/" after the byte prev starts a regular
// expression literal rather than a division.
func regexContext(prev byte) bool {
	switch prev {
	case 0, '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^':
		return true
	}
	return false
}

// skipRegexLit skips a regular expression literal starting at c[i] == '/'.
func skipRegexLit(c string, i int) int {
	inClass := false
	for j := i + 1; j < len(c); j++ {
		switch c[j] {
		case '\\':
			j++
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '/':
			if !inClass {
				return j + 1
			}
		}
	}
	return i + 1 // not a literal after all: treat as an operator
}

// skipCharLit skips a character literal starting at c[i] == '\”.
func skipCharLit(c string, i int) int {
	j := i + 1
	if j < len(c) && c[j] == '\\' {
		j += 2
	}
	for k := j; k < len(c) && k < j+8; k++ {
		if c[k] == '\'' {
			return k + 1
		}
	}
	return i + 1
}

// skipRustQuote skips a character literal or a lifetime starting at c[i].
func skipRustQuote(c string, i int) int {
	n := len(c)
	if i+1 < n && c[i+1] == '\\' {
		for k := i + 3; k < n && k < i+14; k++ {
			if c[k] == '\'' {
				return k + 1
			}
		}
		return i + 2
	}
	// One character (possibly multi-byte) then a quote: a char literal.
	j := i + 1
	if j < n {
		j++
		for j < n && c[j]&0xC0 == 0x80 {
			j++
		}
		if j < n && c[j] == '\'' {
			return j + 1
		}
	}
	// A lifetime or label: 'a, 'static.
	return i + 1
}

// Small helpers for the matchers.

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b >= 0x80
}

// leadingIdent returns the identifier at the start of s, or "".
func leadingIdent(s string) string {
	i := 0
	for i < len(s) && isIdentByte(s[i]) {
		i++
	}
	if i == 0 || '0' <= s[0] && s[0] <= '9' {
		return ""
	}
	return s[:i]
}

// cutWord removes the keyword w and the blanks after it from the start of s,
// when s starts with it as a whole word.
func cutWord(s, w string) (string, bool) {
	if len(s) > len(w) && s[:len(w)] == w && !isIdentByte(s[len(w)]) {
		return strings.TrimLeft(s[len(w):], " \t"), true
	}
	if s == w {
		return "", true
	}
	return s, false
}

// skipBalanced skips a balanced group opened by s[0] (one of "<([") and
// returns the rest, or ok false when it does not close on this line.
func skipBalanced(s string) (string, bool) {
	if s == "" {
		return s, false
	}
	open := s[0]
	var close byte
	switch open {
	case '<':
		close = '>'
	case '(':
		close = ')'
	case '[':
		close = ']'
	default:
		return s, false
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			if open == '<' && i > 0 && s[i-1] == '-' {
				continue // -> inside generics (Fn() -> T)
			}
			depth--
			if depth == 0 {
				return strings.TrimLeft(s[i+1:], " \t"), true
			}
		case '\'':
			// A character literal ('x', '\n'), not a Rust lifetime ('a).
			if k := strings.IndexByte(s[i+1:], '\''); k >= 0 && k <= 2 && s[i+1] != '\'' {
				i += 1 + k
			}
		case '"':
			// Don't look into literals.
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return s, false
}
