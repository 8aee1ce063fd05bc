package extract

import "strings"

// Rust items are recognised by their keyword after the visibility and
// qualifiers; impl headers are read by hand because their generics nest.

func newRustLang() *braceLang {
	return &braceLang{
		flags: lxCharQuote | lxRust | lxColumn0Top,
		match: rustMatch,
	}
}

func rustMatch(st *braceState, t string, indent int, kind scopeKind, container string) (candidate, bool) {
	if st.paren != 0 {
		return candidate{}, false
	}
	s := t
	if r, ok := cutWord(s, "pub"); ok {
		s = r
		if strings.HasPrefix(s, "(") {
			if s, ok = skipBalanced(s); !ok {
				return candidate{}, false
			}
		}
	}
	for {
		var ok bool
		r := s
		for _, q := range []string{"default", "const", "async", "unsafe"} {
			if r2, cut := cutWord(r, q); cut {
				r, ok = r2, true
			}
		}
		if r2, cut := cutWord(r, "extern"); cut {
			r, ok = r2, true
			if strings.HasPrefix(r, `"`) {
				if k := strings.IndexByte(r[1:], '"'); k >= 0 {
					r = strings.TrimLeft(r[k+2:], " \t")
				}
			}
			if strings.HasPrefix(r, "{") {
				// extern "C" { ... }: foreign items, reported as top-level.
				return candidate{noEmit: true, body: sNamespace, scopeName: container, sym: Symbol{Start: st.n}}, true
			}
		}
		s = r
		if !ok {
			break
		}
	}
	sig := signature(t)
	mk := func(name, k string, body scopeKind) (candidate, bool) {
		return candidate{sym: Symbol{Name: name, Kind: k, Signature: sig, Start: st.n, Container: container}, body: body, scopeName: name}, true
	}
	w := leadingIdent(s)
	rest := strings.TrimLeft(s[len(w):], " \t")
	if kind == sContainer {
		if w == "fn" {
			if name := leadingIdent(rest); name != "" {
				return mk(rawIdent(name, rest), "method", sOpaque)
			}
		}
		return candidate{}, false
	}
	switch w {
	case "fn", "struct", "enum", "union", "trait", "type", "mod":
		name := leadingIdent(rest)
		if name == "" {
			return candidate{}, false
		}
		name = rawIdent(name, rest)
		switch w {
		case "fn":
			return mk(name, "func", sOpaque)
		case "trait":
			return mk(name, "trait", sContainer)
		case "mod":
			return mk(name, "module", sNamespace)
		case "union":
			// union is a keyword only before a name and a body.
			after := strings.TrimLeft(rest[len(name):], " \t")
			if after == "" || after[0] != '{' && after[0] != '<' && !strings.HasPrefix(after, "where") {
				return candidate{}, false
			}
		}
		return mk(name, w, sOpaque)
	case "impl":
		name := rustImplType(rest)
		if name == "" {
			return candidate{}, false
		}
		c, ok := mk(name, "impl", sContainer)
		return c, ok
	case "macro_rules":
		if strings.HasPrefix(rest, "!") {
			if name := leadingIdent(strings.TrimLeft(rest[1:], " \t")); name != "" {
				return mk(name, "macro", sOpaque)
			}
		}
	}
	return candidate{}, false
}

// rawIdent keeps the r# of a raw identifier (fn r#match) out of the name.
func rawIdent(name, rest string) string {
	if name == "r" && strings.HasPrefix(rest, "r#") {
		return leadingIdent(rest[2:])
	}
	return name
}

// rustImplType returns the base name of the self type of an impl header
// (after "impl"): "impl<T> fmt::Display for Wrapper<T>" gives "Wrapper".
func rustImplType(s string) string {
	if strings.HasPrefix(s, "<") {
		r, ok := skipBalanced(s)
		if !ok {
			return ""
		}
		s = r
	}
	// The trait (or the type, when there is no "for").
	first, rest := rustTypePath(s)
	if r, ok := cutWord(rest, "for"); ok {
		t, _ := rustTypePath(r)
		return t
	}
	return first
}

// rustTypePath reads a type at the start of s and returns its base name
// (last path segment without generics) and what follows it.
func rustTypePath(s string) (string, string) {
	s = strings.TrimLeft(s, "&!* \t")
	for {
		var ok bool
		if s, ok = cutWord(s, "dyn"); ok {
			continue
		}
		if s, ok = cutWord(s, "mut"); ok {
			continue
		}
		if s, ok = cutWord(s, "const"); ok {
			continue
		}
		if strings.HasPrefix(s, "'") {
			s = strings.TrimLeft(s[1+len(leadingIdent(s[1:])):], " \t")
			continue
		}
		break
	}
	if s == "" {
		return "", ""
	}
	if s[0] == '[' || s[0] == '(' {
		r, ok := skipBalanced(s)
		if !ok {
			return "", ""
		}
		return strings.Join(strings.Fields(s[:len(s)-len(r)]), ""), r
	}
	base := ""
	for {
		id := leadingIdent(s)
		if id == "" {
			break
		}
		base = id
		s = s[len(id):]
		if strings.HasPrefix(s, "<") {
			r, ok := skipBalanced(s)
			if !ok {
				return base, ""
			}
			s = r
		}
		if strings.HasPrefix(s, "::") {
			s = s[2:]
			continue
		}
		break
	}
	return base, strings.TrimLeft(s, " \t")
}
