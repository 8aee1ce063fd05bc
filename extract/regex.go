package extract

// Regex is the default extractor: declarations recognised at the start of a
// line, with a small lexer per language so that names in comments, strings,
// docstrings, template literals and raw strings are never reported, and
// brace or indentation tracking for containers and end lines. It needs no
// cgo and is safe for concurrent use.
type Regex struct {
	brace map[string]*braceLang
}

// NewRegex compiles the patterns of every language once.
func NewRegex() *Regex {
	ts := newTSLang()
	return &Regex{brace: map[string]*braceLang{
		"go":         newGoLang(),
		"typescript": ts,
		"javascript": ts,
		"rust":       newRustLang(),
		"java":       newJavaLang(),
		"c":          newCLang(false),
		"cpp":        newCLang(true),
	}}
}

// Extract implements Extractor.
func (x *Regex) Extract(lang string, lines []Line) []Symbol {
	return x.ExtractFirst(lang, lines, 0)
}

// ExtractFirst is Extract that stops reading once it has found more than max
// declarations (max <= 0: no limit), so a hint for a long range costs what
// its first declarations cost. It returns at most max+1 symbols, in order,
// so the caller knows whether there are more; the End of a declaration
// still open where it stopped is 0. Pass the whole range in one call:
// splitting it loses the lexical state (comments, strings) at the seams.
func (x *Regex) ExtractFirst(lang string, lines []Line, max int) []Symbol {
	var out []Symbol
	switch lang {
	case "python":
		out = extractPython(lines, max)
	case "ruby":
		out = extractRuby(lines, max)
	default:
		bl := x.brace[lang]
		if bl == nil {
			return nil
		}
		out = extractBrace(bl, lines, max)
	}
	if max > 0 && len(out) > max+1 {
		out = out[:max+1]
	}
	return out
}
