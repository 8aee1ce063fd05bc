package extract

import (
	"regexp"
	"strings"
)

// tsRules are the TypeScript and JavaScript declaration patterns.
type tsRules struct {
	// const f = (a, b) => / async x => / function / <T>(x: T) =>
	arrowish *regexp.Regexp
	// a class member: modifiers, name, optional type parameters, "(".
	member *regexp.Regexp
}

func newTSLang() *braceLang {
	r := &tsRules{
		arrowish: regexp.MustCompile(`^(?:async\s*)?(?:function\b|\(|<|[A-Za-z_$][\w$]*\s*=>)`),
		member:   regexp.MustCompile(`^(?:(?:public|private|protected|static|abstract|override|readonly|async|declare|accessor)\s+)*(?:(?:get|set)\s+)?(?:\*\s*)?(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*[(<]`),
	}
	return &braceLang{
		flags: lxTemplate | lxRegexLit | lxArrow,
		match: r.match,
	}
}

// tsKeyword reports words a member pattern could take for a name but which
// start statements (which a class body cannot hold: only a miscounted scope
// shows them).
func tsKeyword(w string) bool {
	switch w {
	case "if", "for", "while", "switch", "return", "function", "with":
		return true
	}
	return false
}

func (r *tsRules) match(st *braceState, t string, indent int, kind scopeKind, container string) (candidate, bool) {
	if st.paren != 0 {
		return candidate{}, false
	}
	sig := signature(t)
	mk := func(name, k string, body scopeKind) (candidate, bool) {
		c := candidate{sym: Symbol{Name: name, Kind: k, Signature: sig, Start: st.n, Container: container}, body: body, scopeName: name}
		return c, true
	}
	if kind == sContainer {
		for strings.HasPrefix(t, "@") {
			// Decorators on the member's own line: @Input() name(...)
			t = skipDecorator(t)
		}
		m := r.member.FindStringSubmatch(t)
		if m == nil || tsKeyword(m[1]) {
			return candidate{}, false
		}
		if m[0][len(m[0])-1] == '<' && !tsStatementEnd(st.prevCode) {
			// "Name<" continuing a type annotation, not a generic method.
			return candidate{}, false
		}
		return mk(m[1], "method", sOpaque)
	}

	s := t
	exported, isDefault, declare := false, false, false
	s, exported = cutWord(s, "export")
	if exported {
		s, isDefault = cutWord(s, "default")
	}
	s, declare = cutWord(s, "declare")
	s, _ = cutWord(s, "abstract")
	s, async := cutWord(s, "async")
	switch w := leadingIdent(s); w {
	case "function":
		rest := strings.TrimLeft(s[len(w):], " \t")
		rest = strings.TrimLeft(rest, "* \t")
		name := leadingIdent(rest)
		if name == "" {
			if !isDefault {
				return candidate{}, false
			}
			name = "default"
		}
		return mk(name, "func", sOpaque)
	case "class":
		rest := strings.TrimLeft(s[len(w):], " \t")
		name := leadingIdent(rest)
		if name == "" || name == "extends" || name == "implements" {
			if !isDefault {
				return candidate{}, false
			}
			name = "default"
		}
		return mk(name, "class", sContainer)
	case "interface", "enum", "type":
		if async {
			return candidate{}, false
		}
		rest := strings.TrimLeft(s[len(w):], " \t")
		name := leadingIdent(rest)
		if name == "" {
			return candidate{}, false
		}
		if w == "type" {
			// type X = ... / type X<T> = ...; not "type" used as a name.
			after := strings.TrimLeft(rest[len(name):], " \t")
			if after == "" || after[0] != '=' && after[0] != '<' {
				return candidate{}, false
			}
		}
		return mk(name, w, sOpaque)
	case "const":
		rest := strings.TrimLeft(s[len(w):], " \t")
		if r2, ok := cutWord(rest, "enum"); ok {
			if name := leadingIdent(r2); name != "" {
				return mk(name, "enum", sOpaque)
			}
			return candidate{}, false
		}
		return r.arrowConst(st, rest, sig, container)
	case "let", "var":
		return r.arrowConst(st, strings.TrimLeft(s[len(w):], " \t"), sig, container)
	case "namespace", "module":
		rest := strings.TrimLeft(s[len(w):], " \t")
		name := ""
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			if k := strings.IndexByte(rest[1:], rest[0]); k >= 0 {
				name = rest[1 : 1+k]
			}
		} else {
			name = dottedIdent(rest)
		}
		if name == "" {
			return candidate{}, false
		}
		if w == "module" && !exported && !declare && !strings.Contains(rest, "{") {
			return candidate{}, false // module.exports = ..., module: x
		}
		return mk(name, "namespace", sNamespace)
	case "global":
		if declare {
			c := candidate{noEmit: true, body: sNamespace, sym: Symbol{Start: st.n}}
			return c, true
		}
	}
	return candidate{}, false
}

// arrowConst reads the rest of "const NAME = ..." and proposes NAME as a
// function when its value is one.
func (r *tsRules) arrowConst(st *braceState, rest, sig, container string) (candidate, bool) {
	name := leadingIdent(rest)
	if name == "" {
		return candidate{}, false
	}
	v := strings.TrimLeft(rest[len(name):], " \t")
	if strings.HasPrefix(v, ":") {
		// A type annotation: skip to the "=" that is not part of "=>".
		k := indexAssign(v)
		if k < 0 {
			return candidate{}, false
		}
		v = v[k:]
	}
	if !strings.HasPrefix(v, "=") || strings.HasPrefix(v, "==") {
		return candidate{}, false
	}
	v = strings.TrimLeft(v[1:], " \t")
	if v == "" && !strings.Contains(rest, "=>") {
		// const f =
		//   async (a) => { ... }
		c := candidate{sym: Symbol{Name: name, Kind: "func", Signature: sig, Start: st.n, Container: container}, body: sOpaque, scopeName: name, needArrow: true}
		return c, true
	}
	if !r.arrowish.MatchString(v) {
		return candidate{}, false
	}
	c := candidate{sym: Symbol{Name: name, Kind: "func", Signature: sig, Start: st.n, Container: container}, body: sOpaque, scopeName: name}
	isFunc := strings.HasPrefix(v, "function") || strings.HasPrefix(v, "async function")
	if !isFunc {
		// An arrow function only once "=>" is seen; the lexer marks it.
		c.needArrow = true
	}
	return c, true
}

// indexAssign finds the "=" of an initialiser after a type annotation,
// skipping "=>" and bracketed parts.
func indexAssign(v string) int {
	depth := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}':
			depth--
		case '>':
			if i > 0 && v[i-1] == '=' {
				continue
			}
			depth--
		case '=':
			if depth == 0 && (i+1 >= len(v) || v[i+1] != '>') {
				return i
			}
		}
	}
	return -1
}

// dottedIdent reads "a.b.c" at the start of s.
func dottedIdent(s string) string {
	i := 0
	for {
		id := leadingIdent(s[i:])
		if id == "" {
			break
		}
		i += len(id)
		if i < len(s) && s[i] == '.' && i+1 < len(s) && isIdentByte(s[i+1]) {
			i++
			continue
		}
		break
	}
	return s[:i]
}

// skipDecorator removes one "@name" or "@name(...)" or "@a.b(...)" from the
// start of s.
func skipDecorator(s string) string {
	s = s[1:]
	s = s[len(dottedIdent(s)):]
	if strings.HasPrefix(s, "(") {
		r, ok := skipBalanced(s)
		if !ok {
			return ""
		}
		s = r
	}
	return strings.TrimLeft(s, " \t")
}

// tsStatementEnd reports whether the previous code line ended a member or
// statement, so that the next line starts a new one.
func tsStatementEnd(prev string) bool {
	if prev == "" {
		return true
	}
	switch prev[len(prev)-1] {
	case ';', '{', '}':
		return true
	}
	return prev[0] == '@' || strings.HasSuffix(prev, "*/")
}
