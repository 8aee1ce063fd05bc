package extract

import (
	"regexp"
	"strings"
)

// Regex is the default extractor: declarations recognised by patterns anchored
// at the start of a line. It never looks inside a line for a name, so names
// mentioned in comments or strings are not reported.
type Regex struct {
	rules map[string][]rule
}

// NewRegex compiles the patterns of every language once.
func NewRegex() *Regex {
	x := &Regex{rules: make(map[string][]rule)}
	for _, lang := range []string{"go", "typescript", "javascript", "python", "rust", "java", "c", "cpp", "ruby"} {
		x.rules[lang] = regexRules(lang)
	}
	return x
}

type rule struct {
	re   *regexp.Regexp
	kind string
}

// regexRules returns the patterns of one language; the first submatch is the
// name.
func regexRules(lang string) []rule {
	r := func(kind, pat string) rule { return rule{regexp.MustCompile(pat), kind} }
	switch lang {
	case "go":
		return []rule{
			r("method", `^func\s+\([^)]*\)\s*([A-Za-z_]\w*)\s*[\[(]`),
			r("func", `^func\s+([A-Za-z_]\w*)\s*[\[(]`),
			r("type", `^type\s+([A-Za-z_]\w*)\b`),
		}
	case "typescript", "javascript":
		return []rule{
			r("class", `^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)`),
			r("interface", `^(?:export\s+)?interface\s+([A-Za-z_$][\w$]*)`),
			r("type", `^(?:export\s+)?type\s+([A-Za-z_$][\w$]*)\s*[=<]`),
			r("enum", `^(?:export\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)`),
			r("func", `^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)`),
			r("func", `^(?:export\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>`),
		}
	case "python":
		return []rule{
			r("class", `^class\s+([A-Za-z_]\w*)`),
			r("func", `^(?:async\s+)?def\s+([A-Za-z_]\w*)`),
		}
	case "rust":
		return []rule{
			r("func", `^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_]\w*)`),
			r("struct", `^(?:pub(?:\([^)]*\))?\s+)?struct\s+([A-Za-z_]\w*)`),
			r("enum", `^(?:pub(?:\([^)]*\))?\s+)?enum\s+([A-Za-z_]\w*)`),
			r("trait", `^(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?trait\s+([A-Za-z_]\w*)`),
			r("impl", `^(?:unsafe\s+)?impl(?:<[^>]*>)?\s+([A-Za-z_][\w:]*(?:<[^>]*>)?(?:\s+for\s+[A-Za-z_][\w:]*)?)`),
			r("type", `^(?:pub(?:\([^)]*\))?\s+)?type\s+([A-Za-z_]\w*)`),
			r("module", `^(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)`),
		}
	case "java":
		return []rule{
			r("class", `^(?:(?:public|protected|private|abstract|final|static|sealed)\s+)*(?:class|record)\s+([A-Za-z_]\w*)`),
			r("interface", `^(?:(?:public|protected|private|abstract|static|sealed)\s+)*@?interface\s+([A-Za-z_]\w*)`),
			r("enum", `^(?:(?:public|protected|private|static)\s+)*enum\s+([A-Za-z_]\w*)`),
		}
	case "c", "cpp":
		return []rule{
			r("struct", `^(?:typedef\s+)?struct\s+([A-Za-z_]\w*)\s*\{?\s*$`),
			r("class", `^(?:template\s*<[^>]*>\s*)?class\s+([A-Za-z_]\w*)\b[^;]*$`),
			r("enum", `^(?:typedef\s+)?enum\s+(?:class\s+)?([A-Za-z_]\w*)`),
			r("func", `^(?:static\s+|inline\s+|extern\s+|const\s+|unsigned\s+|signed\s+)*[A-Za-z_][\w:<>,\s\*&]*?[\s\*&]([A-Za-z_][\w:~]*)\s*\([^;]*$`),
		}
	case "ruby":
		return []rule{
			r("class", `^\s*class\s+([A-Z]\w*(?:::[A-Z]\w*)*)`),
			r("module", `^\s*module\s+([A-Z]\w*(?:::[A-Z]\w*)*)`),
			r("func", `^\s*def\s+((?:self\.)?[A-Za-z_]\w*[?!=]?)`),
		}
	}
	return nil
}

// Extract implements Extractor.
func (x *Regex) Extract(lang string, lines []Line) []Symbol {
	rules := x.rules[lang]
	if rules == nil {
		return nil
	}
	var out []Symbol
	for _, l := range lines {
		c := l.Content
		if c == "" || c[0] == ' ' && lang != "ruby" || c[0] == '\t' && lang != "ruby" {
			continue
		}
		if lang == "c" || lang == "cpp" {
			if strings.HasPrefix(c, "#") || strings.HasPrefix(c, "//") || strings.HasPrefix(c, "/*") || strings.HasPrefix(c, "return") || strings.HasPrefix(c, "else") {
				continue
			}
		}
		for _, rl := range rules {
			if m := rl.re.FindStringSubmatch(c); m != nil {
				out = append(out, Symbol{Name: m[1], Kind: rl.kind, Signature: strings.TrimSpace(c), Start: l.N})
				break
			}
		}
	}
	return out
}
