package extract

import "strings"

// Java declarations are read by hand after the annotations and modifiers:
// generics nest, and a method is told from a field by the "(" after its name.

func newJavaLang() *braceLang {
	return &braceLang{
		flags: lxCharQuote | lxTextBlock | lxColumn0Top,
		match: javaMatch,
	}
}

func javaModifier(w string) bool {
	switch w {
	case "public", "protected", "private", "static", "final", "abstract", "sealed", "non-sealed",
		"strictfp", "default", "synchronized", "native", "transient", "volatile":
		return true
	}
	return false
}

func javaMatch(st *braceState, t string, indent int, kind scopeKind, container string) (candidate, bool) {
	if st.paren != 0 {
		return candidate{}, false
	}
	s := t
	for {
		if strings.HasPrefix(s, "@") && !strings.HasPrefix(s, "@interface") {
			s = skipDecorator(s)
			continue
		}
		w := leadingIdent(s)
		if w == "non" && strings.HasPrefix(s, "non-sealed") {
			w = "non-sealed"
		}
		if w != "" && javaModifier(w) {
			s = strings.TrimLeft(s[len(w):], " \t")
			continue
		}
		break
	}
	if s == "" {
		return candidate{}, false
	}
	sig := signature(t)
	mk := func(name, k string, body scopeKind) (candidate, bool) {
		return candidate{sym: Symbol{Name: name, Kind: k, Signature: sig, Start: st.n, Container: container}, body: body, scopeName: name}, true
	}
	w := leadingIdent(s)
	if strings.HasPrefix(s, "@interface") {
		w = "@interface"
	}
	switch w {
	case "class", "interface", "enum", "record", "@interface":
		rest := strings.TrimLeft(s[len(w):], " \t")
		name := leadingIdent(rest)
		if name == "" {
			return candidate{}, false
		}
		if w == "record" {
			// record is a keyword only before "Name(" or "Name<".
			after := strings.TrimLeft(rest[len(name):], " \t")
			if after == "" || after[0] != '(' && after[0] != '<' {
				break
			}
		}
		switch w {
		case "record":
			return mk(name, "class", sContainer)
		case "@interface":
			return mk(name, "interface", sOpaque)
		}
		return mk(name, w, sContainer)
	}
	if kind != sContainer {
		return candidate{}, false
	}
	// A method or constructor: [<T>] [Type] name(
	if strings.HasPrefix(s, "<") {
		r, ok := skipBalanced(s)
		if !ok {
			return candidate{}, false
		}
		s = r
	}
	first := javaType(s)
	if first == "" {
		return candidate{}, false
	}
	rest := strings.TrimLeft(s[len(first):], " \t")
	if strings.HasPrefix(rest, "(") {
		// No return type: a constructor, named after its class.
		if first == container {
			return mk(first, "method", sOpaque)
		}
		return candidate{}, false
	}
	name := leadingIdent(rest)
	if name == "" || javaStmtWord(leadingIdent(first)) {
		return candidate{}, false
	}
	if after := strings.TrimLeft(rest[len(name):], " \t"); strings.HasPrefix(after, "(") {
		return mk(name, "method", sOpaque)
	}
	return candidate{}, false
}

// javaStmtWord reports words that start statements, never a type.
func javaStmtWord(w string) bool {
	switch w {
	case "return", "new", "throw", "else", "case", "if", "for", "while", "switch", "do", "try", "yield", "assert":
		return true
	}
	return false
}

// javaType returns the text of the type at the start of s: a dotted name
// with generics and array brackets ("Map.Entry<K, V>[]"), or a bare name.
func javaType(s string) string {
	i := 0
	for {
		id := leadingIdent(s[i:])
		if id == "" {
			return s[:i]
		}
		i += len(id)
		if i < len(s) && s[i] == '<' {
			r, ok := skipBalanced(s[i:])
			if !ok {
				return ""
			}
			i = len(s) - len(r)
			// skipBalanced trimmed blanks after the group; step back over them.
			for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
				i--
			}
		}
		for strings.HasPrefix(s[i:], "[]") {
			i += 2
		}
		if strings.HasPrefix(s[i:], "...") {
			i += 3
		}
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		return s[:i]
	}
}
