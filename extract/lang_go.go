package extract

import (
	"regexp"
	"strings"
)

// goRules are the Go declaration patterns. gofmt puts every top-level
// declaration at column 0, so only column-0 lines are candidates, and the
// specs of a grouped "type (" declaration one level in.
type goRules struct {
	method *regexp.Regexp // func (r *T[K]) Name(
	fn     *regexp.Regexp // func Name( / func Name[T any](
}

func newGoLang() *braceLang {
	r := &goRules{
		method: regexp.MustCompile(`^func\s*\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)\s*([A-Za-z_]\w*)\s*[\[(]`),
		fn:     regexp.MustCompile(`^func\s+([A-Za-z_]\w*)\s*[\[(]`),
	}
	return &braceLang{
		flags: lxCharQuote | lxBacktickRaw | lxNewlineEnds | lxColumn0Top | lxCol0Close,
		match: r.match,
	}
}

func (r *goRules) match(st *braceState, t string, indent int, kind scopeKind, _ string) (candidate, bool) {
	if len(st.stack) > 0 {
		return candidate{}, false // Go has no nested declarations worth a hint
	}
	if st.group >= 0 {
		if st.paren <= st.group {
			st.group = -1
		} else if st.paren == st.group+1 && indent > 0 {
			// A spec inside "type ( ... )".
			return goTypeSpec(t, st.n, "")
		}
	}
	if indent != 0 || st.paren != 0 {
		return candidate{}, false
	}
	switch {
	case strings.HasPrefix(t, "func"):
		if m := r.method.FindStringSubmatch(t); m != nil {
			return candidate{sym: Symbol{Name: m[2], Kind: "method", Signature: signature(t), Start: st.n, Container: m[1]}}, true
		}
		if m := r.fn.FindStringSubmatch(t); m != nil {
			return candidate{sym: Symbol{Name: m[1], Kind: "func", Signature: signature(t), Start: st.n}}, true
		}
	case strings.HasPrefix(t, "type"):
		rest, ok := cutWord(t, "type")
		if !ok {
			break
		}
		if strings.HasPrefix(rest, "(") {
			st.group = st.paren
			return candidate{}, false
		}
		return goTypeSpec(rest, st.n, t)
	}
	return candidate{}, false
}

// goTypeSpec reads "Name[T any] struct {" and the like.
func goTypeSpec(spec string, n int, line string) (candidate, bool) {
	name := leadingIdent(spec)
	if name == "" {
		return candidate{}, false
	}
	if line == "" {
		line = spec
	}
	rest := spec[len(name):]
	if strings.HasPrefix(rest, "[") {
		// Type parameters (gofmt writes them without a space; an
		// array type has one: "type A [4]int").
		r, ok := skipBalanced(rest)
		if !ok {
			r = ""
		}
		rest = r
	}
	rest = strings.TrimLeft(rest, " \t")
	rest = strings.TrimPrefix(rest, "= ")
	kind := "type"
	if w := leadingIdent(rest); w == "struct" || w == "interface" {
		kind = w
	}
	return candidate{sym: Symbol{Name: name, Kind: kind, Signature: signature(line), Start: n}}, true
}
