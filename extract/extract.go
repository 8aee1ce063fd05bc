// Package extract finds the declarations in source text (name, kind,
// signature line, line span) so sightline can say what an unread or truncated
// range contains. It knows nothing of LSP.
//
// Two engines implement Extractor: Regex (the default, pure Go) and a
// tree-sitter engine compiled only with the build tag "treesitter". Both
// report the same set of declarations: top-level types and functions, and
// the members (methods, nested types) of classes, impls, traits and
// namespaces. Declarations inside function bodies are never reported.
package extract

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Symbol is one declaration. Lines are 1-based; End is 0 when unknown.
// Start is the line holding the declared name (after any decorators or
// annotations), which is also the line Signature is taken from.
type Symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"` // func, method, class, struct, union, interface, type, enum, trait, impl, module, namespace, macro
	Signature string `json:"signature"`
	Start     int    `json:"start"`
	End       int    `json:"end,omitempty"`
	Container string `json:"container,omitempty"`
}

// Line is one line handed to an extractor: its 1-based number and content
// (without its line terminator; a trailing "\r" is tolerated).
type Line struct {
	N       int
	Content string
}

// Extractor finds symbols in a sequence of lines of one language. The lines
// may be a whole file or a contiguous part of one; a part is read as if it
// started at the top level.
type Extractor interface {
	Extract(lang string, lines []Line) []Symbol
}

// FirstExtractor is implemented by both engines: ExtractFirst returns the
// first max+1 declarations of lines (all when max <= 0), in line order; the
// regex engine stops reading there, so a hint for a long range stays cheap.
type FirstExtractor interface {
	Extractor
	ExtractFirst(lang string, lines []Line, max int) []Symbol
}

// New returns the extractor for an engine name: "regex" (or "") or
// "treesitter". The latter fails in binaries built without the treesitter
// build tag.
func New(engine string) (Extractor, error) {
	switch engine {
	case "", "regex":
		return NewRegex(), nil
	case "treesitter", "tree-sitter":
		return newTreeSitter()
	}
	return nil, fmt.Errorf("unknown extract engine %q (want regex or treesitter)", engine)
}

// Available says why an engine name cannot be had in this binary (unknown,
// or tree-sitter in a build without it); nil when New would give it. A
// setting or a flag naming it is refused with this rather than served by
// another engine without a word.
func Available(engine string) error {
	switch engine {
	case "", "regex":
		return nil
	case "treesitter", "tree-sitter":
		return treeSitterAvailable()
	}
	return fmt.Errorf("unknown extract engine %q (want regex or treesitter)", engine)
}

// Language maps a file name and an LSP languageId to the language names the
// extractors know ("go", "typescript", "javascript", "python", "rust", "java",
// "c", "cpp", "ruby"), or "" when unknown.
func Language(filename, languageID string) string {
	switch strings.ToLower(languageID) {
	case "go":
		return "go"
	case "typescript", "typescriptreact":
		return "typescript"
	case "javascript", "javascriptreact":
		return "javascript"
	case "python":
		return "python"
	case "rust":
		return "rust"
	case "java":
		return "java"
	case "c":
		return "c"
	case "cpp", "cuda-cpp":
		return "cpp"
	case "ruby":
		return "ruby"
	}
	switch strings.ToLower(filepath.Ext(filename)) {
	case ".go":
		return "go"
	case ".ts", ".tsx", ".mts", ".cts":
		return "typescript"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "javascript"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".java":
		return "java"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tcc":
		return "cpp"
	case ".rb", ".rake", ".gemspec":
		return "ruby"
	}
	switch filepath.Base(filename) {
	case "Rakefile", "Gemfile":
		return "ruby"
	}
	return ""
}

// Hint renders a symbol the way truncation notices and diagnostics show it:
// "func handleAuth()", "func TokenCache.refresh()", "class TokenCache".
func Hint(s Symbol) string {
	switch s.Kind {
	case "func":
		return "func " + s.Name + "()"
	case "method":
		if s.Container != "" {
			return "func " + s.Container + "." + s.Name + "()"
		}
		return "func " + s.Name + "()"
	default:
		return s.Kind + " " + s.Name
	}
}

// Summary joins the hints of up to max symbols, with "…" when there are more.
func Summary(syms []Symbol, max int) string {
	if len(syms) == 0 {
		return ""
	}
	var b strings.Builder
	for i, s := range syms {
		if i == max {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Hint(s))
	}
	return b.String()
}

// signature is the trimmed declaration line, cut to a length a hint can
// carry.
func signature(s string) string {
	s = strings.TrimSpace(s)
	const max = 200
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // don't split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
