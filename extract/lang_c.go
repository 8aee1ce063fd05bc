package extract

import "strings"

// C and C++: type definitions (struct, union, enum, class with a body;
// typedef; using), namespaces, and function definitions. At the top level a
// function needs a body (prototypes are dropped when their ";" comes first);
// inside a class body, member function declarations count as methods.

func newCLang(cpp bool) *braceLang {
	f := lxCharQuote | lxPreproc
	if cpp {
		f |= lxCppRaw
	}
	return &braceLang{
		flags: f,
		match: func(st *braceState, t string, indent int, kind scopeKind, container string) (candidate, bool) {
			return cMatch(st, t, indent, kind, container, cpp)
		},
	}
}

// cStmtWord reports words that start statements or declarations that are
// not definitions, so a line starting with one is no function.
func cStmtWord(w string) bool {
	switch w {
	case "return", "else", "case", "goto", "delete", "new", "throw", "if", "while", "for", "switch",
		"do", "sizeof", "co_return", "co_yield", "co_await", "friend", "static_assert", "default",
		"break", "continue", "public", "private", "protected", "using", "typedef":
		return true
	}
	return false
}

// cTypeWord reports the built-in type words, never a function's name.
func cTypeWord(w string) bool {
	switch w {
	case "int", "char", "void", "long", "short", "unsigned", "signed", "float", "double", "bool",
		"auto", "const", "volatile", "struct", "union", "enum", "class", "typename", "_Bool":
		return true
	}
	return false
}

// cSpecifier reports words that may precede a declaration without being its
// type or name.
func cSpecifier(w string) bool {
	switch w {
	case "static", "inline", "extern", "virtual", "explicit", "constexpr", "consteval", "constinit",
		"__inline", "__inline__", "__forceinline", "_Noreturn", "__extension__":
		return true
	}
	return false
}

func cMatch(st *braceState, t string, indent int, kind scopeKind, container string, cpp bool) (candidate, bool) {
	if st.paren != 0 {
		return candidate{}, false
	}
	s := t
	if cpp {
		if r, ok := cutWord(s, "template"); ok {
			if !strings.HasPrefix(r, "<") {
				return candidate{}, false
			}
			if s, ok = skipBalanced(r); !ok || s == "" {
				return candidate{}, false
			}
		}
		s = skipCppAttrs(s)
	}
	sig := signature(t)
	mk := func(name, k string, body scopeKind) candidate {
		return candidate{sym: Symbol{Name: name, Kind: k, Signature: sig, Start: st.n, Container: container}, body: body, scopeName: name}
	}
	w := leadingIdent(s)
	if w == "" {
		if strings.HasPrefix(s, "~") {
			return cFunc(st, s, indent, kind, container, cpp, mk)
		}
		return candidate{}, false
	}
	rest := strings.TrimLeft(s[len(w):], " \t")
	switch w {
	case "extern":
		if strings.HasPrefix(rest, `"`) {
			if k := strings.IndexByte(rest[1:], '"'); k >= 0 {
				after := strings.TrimLeft(rest[k+2:], " \t")
				if after == "" || after[0] == '{' {
					return candidate{noEmit: true, body: sNamespace, scopeName: container, sym: Symbol{Start: st.n}}, true
				}
				s = after // extern "C" int f(...) {
			}
		}
	case "namespace", "inline":
		if w == "inline" {
			r, ok := cutWord(rest, "namespace")
			if !ok {
				break
			}
			rest = r
		}
		if !cpp {
			break
		}
		name := cQualifiedName(rest)
		after := strings.TrimLeft(rest[len(name):], " \t")
		if strings.HasPrefix(after, "=") {
			return candidate{}, false // namespace alias
		}
		// Anything else before the "{" is an attribute or a macro
		// (namespace std _GLIBCXX_VISIBILITY(default)).
		if name == "" {
			return candidate{noEmit: true, body: sNamespace, scopeName: container, sym: Symbol{Start: st.n}}, true
		}
		c := mk(name, "namespace", sNamespace)
		c.needBody = true
		return c, true
	case "typedef":
		return cTypedef(st, rest, sig, container, cpp, mk)
	case "using":
		if !cpp {
			break
		}
		name := leadingIdent(rest)
		if name == "" || name == "namespace" {
			return candidate{}, false
		}
		if after := strings.TrimLeft(rest[len(name):], " \t"); strings.HasPrefix(after, "=") {
			c := mk(name, "type", sOpaque)
			return c, true
		}
		return candidate{}, false
	case "struct", "union", "enum", "class":
		if c, ok := cTagged(st, w, rest, false, container, cpp, mk); ok {
			return c, true
		}
	}
	return cFunc(st, s, indent, kind, container, cpp, mk)
}

// skipCppAttrs removes [[attributes]] and alignas(...) from the start of s.
func skipCppAttrs(s string) string {
	for strings.HasPrefix(s, "[[") {
		k := strings.Index(s, "]]")
		if k < 0 {
			return s
		}
		s = strings.TrimLeft(s[k+2:], " \t")
	}
	return s
}

// skipGNUAttrs removes __attribute__((...)) and __declspec(...) groups.
func skipGNUAttrs(s string) string {
	for {
		w := leadingIdent(s)
		if w != "__attribute__" && w != "__declspec" && w != "alignas" && w != "__aligned" {
			return s
		}
		r := strings.TrimLeft(s[len(w):], " \t")
		r2, ok := skipBalanced(r)
		if !ok {
			return s
		}
		s = r2
	}
}

// cTagged reads "struct NAME ... {" (after the keyword) and proposes a type
// that needs a body; typedef says the name of a typedef may follow its
// closing brace.
func cTagged(st *braceState, kw, rest string, typedef bool, container string, cpp bool, mk func(string, string, scopeKind) candidate) (candidate, bool) {
	if kw == "enum" {
		if r, ok := cutWord(rest, "class"); ok {
			rest = r
		} else if r, ok := cutWord(rest, "struct"); ok {
			rest = r
		}
	}
	rest = skipGNUAttrs(skipCppAttrs(rest))
	// Macro markers such as "class GTEST_API_ Name" or "struct PACKED name".
	name := ""
	for {
		id := cQualifiedName(rest)
		if id == "" {
			break
		}
		name = id
		rest = strings.TrimLeft(rest[len(id):], " \t")
		rest = skipGNUAttrs(rest)
		if r, ok := cutWord(rest, "final"); ok && cpp {
			rest = r
			break
		}
		if rest == "" || rest[0] == '{' || rest[0] == ':' {
			break
		}
		if rest[0] == '<' && cpp {
			// A specialisation: template<> struct hash<int> {
			if r, ok := skipBalanced(rest); ok {
				rest = r
			} else {
				rest = "" // its arguments go on: the body comes later
			}
			break
		}
		if !isUpperMacro(name) {
			// "struct foo *f(void)": a function returning a struct.
			return candidate{}, false
		}
	}
	if rest != "" && rest[0] != '{' && !(rest[0] == ':' && (cpp || kw == "enum")) {
		return candidate{}, false
	}
	body := sOpaque
	if cpp && kw != "enum" {
		body = sContainer
	}
	if name == "" {
		if !typedef {
			return candidate{}, false
		}
		c := candidate{noEmit: true, typedef: true, body: body, scopeName: container, sym: Symbol{Start: st.n}}
		return c, true
	}
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	c := mk(name, kw, body)
	c.needBody = true
	c.typedef = typedef
	return c, true
}

// isUpperMacro reports a name in the style of a macro: FOO_API.
func isUpperMacro(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// cTypedef reads a typedef (after the keyword).
func cTypedef(st *braceState, rest, sig, container string, cpp bool, mk func(string, string, scopeKind) candidate) (candidate, bool) {
	for {
		w := leadingIdent(rest)
		if w == "const" || w == "volatile" || w == "__extension__" {
			rest = strings.TrimLeft(rest[len(w):], " \t")
			continue
		}
		break
	}
	w := leadingIdent(rest)
	switch w {
	case "struct", "union", "enum", "class":
		r := strings.TrimLeft(rest[len(w):], " \t")
		if c, ok := cTagged(st, w, r, true, container, cpp, mk); ok {
			return c, true
		}
	}
	// A one-line typedef: its name is the last identifier before ";", or
	// the one in "(*name)" for a function pointer.
	if k := strings.Index(rest, "(*"); k >= 0 {
		name := leadingIdent(strings.TrimLeft(rest[k+2:], " \t"))
		if name == "" {
			return candidate{}, false
		}
		return mk(name, "type", sOpaque), true
	}
	semi := strings.LastIndexByte(rest, ';')
	if semi < 0 {
		if strings.ContainsAny(rest, "{}=") {
			return candidate{}, false
		}
		// The name comes on a later line, before the ";".
		c := mk("", "type", sOpaque)
		c.tailName = true
		return c, true
	}
	body := rest[:semi]
	// Several declarators (typedef int a_t, b_t[4];): the first one.
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '(', '[', '<':
			depth++
		case ')', ']', '>':
			depth--
		case ',':
			if depth == 0 {
				body = body[:i]
				i = len(body)
			}
		}
	}
	body = strings.TrimRight(body, " \t")
	for strings.HasSuffix(body, "]") {
		k := strings.LastIndexByte(body, '[')
		if k < 0 {
			return candidate{}, false
		}
		body = strings.TrimRight(body[:k], " \t")
	}
	if strings.HasSuffix(body, ")") {
		// typedef int fn_t(int); or an attribute: not handled.
		return candidate{}, false
	}
	j := len(body)
	for j > 0 && isIdentByte(body[j-1]) {
		j--
	}
	name := body[j:]
	if name == "" || j == 0 || strings.ContainsAny(body[:j], "{}=") {
		return candidate{}, false
	}
	return mk(name, "type", sOpaque), true
}

// cQualifiedName reads "a::b::c" (or a plain identifier) at the start of s.
func cQualifiedName(s string) string {
	i := 0
	for {
		id := leadingIdent(s[i:])
		if id == "" {
			break
		}
		i += len(id)
		if strings.HasPrefix(s[i:], "::") && isIdentByte(byteAt(s, i+2)) {
			i += 2
			continue
		}
		break
	}
	return s[:i]
}

func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// cFunc reads a function definition or member declaration:
// [specifiers] type [*&] [Qual::]name ( ...
func cFunc(st *braceState, s string, indent int, kind scopeKind, container string, cpp bool, mk func(string, string, scopeKind) candidate) (candidate, bool) {
	// Walk the tokens before the first "(" (outside template arguments).
	var (
		words   int    // type and specifier words seen before the name
		name    string // the last name seen
		qual    string // its qualifier: Class in Class::name
		i       int
		first   = leadingIdent(s)
		hasType bool
	)
	if s != "" && s[0] == '~' {
		first = "~"
	}
	if first == "" || cStmtWord(first) {
		return candidate{}, false
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '*' || c == '&':
			i++
		case c == '~' && cpp && kind == sContainer:
			id := leadingIdent(s[i+1:])
			if id == "" {
				return candidate{}, false
			}
			if name != "" {
				words++
			}
			name = "~" + id
			i += 1 + len(id)
		case c == '(':
			goto paren
		case c == '<' && cpp && name != "":
			r, ok := skipBalanced(s[i:])
			if !ok {
				return candidate{}, false
			}
			i = len(s) - len(r)
		case c == ':' && cpp && i+1 < len(s) && s[i+1] == ':':
			if name == "" {
				i += 2 // ::name
				continue
			}
			qual = name
			name = ""
			i += 2
			if strings.HasPrefix(s[i:], "~") {
				i++
				id := leadingIdent(s[i:])
				if id == "" {
					return candidate{}, false
				}
				name = "~" + id
				i += len(id)
			}
			continue
		case isIdentByte(c):
			id := leadingIdent(s[i:])
			if id == "" {
				return candidate{}, false
			}
			if id == "__attribute__" || id == "__declspec" {
				r, ok := skipBalanced(strings.TrimLeft(s[i+len(id):], " \t"))
				if !ok {
					return candidate{}, false
				}
				i = len(s) - len(r)
				continue
			}
			if id == "operator" && cpp {
				// operator==, operator(), operator[]: the symbol up to "(".
				j := i + len(id)
				k := j
				for k < len(s) && s[k] == ' ' {
					k++
				}
				if strings.HasPrefix(s[k:], "()") {
					k += 2
				} else {
					for k < len(s) && s[k] != '(' && s[k] != ' ' {
						k++
					}
				}
				op := strings.TrimSpace(s[j:k])
				if op == "" || isIdentByte(op[0]) {
					return candidate{}, false // conversion operators: not reported
				}
				if name != "" {
					if qual == "" && !cSpecifier(name) || qual != "" {
						hasType = true
						qual = ""
					}
					words++
				}
				name = "operator" + op
				i = k
				continue
			}
			if name != "" {
				if qual == "" && !cSpecifier(name) {
					hasType = true
				}
				if qual != "" {
					hasType = true
					qual = ""
				}
				words++
			}
			name = id
			i += len(id)
		default:
			return candidate{}, false
		}
	}
	return candidate{}, false
paren:
	if name == "" || cStmtWord(name) || cTypeWord(name) || name == "__attribute__" || name == "__declspec" || name == "defined" || name == "decltype" || name == "alignof" || name == "noexcept" {
		return candidate{}, false
	}
	ctor := qual != "" && (qual == name || "~"+qual == name) ||
		kind == sContainer && (name == container || name == "~"+container)
	if !hasType && !ctor && words == 0 {
		// No return type on this line. At column 0 outside classes a
		// definition (it needs a body) is a GNU-style one, whose type is on
		// the line before, or a macro-made one (TEST_F(Suite, Name) {). In
		// a class, a member whose return type is on the line before.
		if !(indent == 0 && kind != sContainer || gnuReturnType(st.prevCode)) {
			return candidate{}, false
		}
	} else if !hasType && !ctor {
		return candidate{}, false
	}
	if qual == "" && !hasType && strings.HasSuffix(st.prevCode, "::") && cpp {
		// GNU style with the class on the line before:
		//   _Safe_sequence<_Sequence>::
		//   _M_transfer_from_if(...)
		q := strings.TrimSuffix(st.prevCode, "::")
		if strings.HasSuffix(q, ">") {
			if k := strings.IndexByte(q, '<'); k >= 0 {
				q = q[:k]
			}
		}
		qual = trailingIdent(q)
	}
	k := "func"
	cont := container
	if qual != "" {
		k, cont = "method", qual
	} else if kind == sContainer {
		k = "method"
	}
	c := mk(name, k, sOpaque)
	c.sym.Container = cont
	c.needBody = kind != sContainer
	return c, true
}

// gnuReturnType reports whether the previous code line looks like the
// return type of a GNU-style definition: words and stars, no terminator.
func gnuReturnType(prev string) bool {
	if prev == "" {
		return false
	}
	for i := 0; i < len(prev); i++ {
		c := prev[i]
		if !(isIdentByte(c) || c == ' ' || c == '\t' || c == '*' || c == ':' || c == '<' || c == '>' || c == ',' || c == '&') {
			return false
		}
	}
	w := leadingIdent(prev)
	return w != "" && !cStmtWord(w) && w != "struct" || strings.HasPrefix(prev, "struct ")
}
