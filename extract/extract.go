// Package extract finds the declarations in source text (name, kind,
// signature line, line span) so sightline can say what an unread or truncated
// range contains. It knows nothing of LSP.
package extract

import (
	"path/filepath"
	"strings"
)

// Symbol is one declaration. Lines are 1-based; End is 0 when unknown.
type Symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"` // func, method, class, struct, interface, type, enum, trait, impl, const, var, module
	Signature string `json:"signature"`
	Start     int    `json:"start"`
	End       int    `json:"end,omitempty"`
	Container string `json:"container,omitempty"`
}

// Line is one line handed to an extractor: its 1-based number and content.
type Line struct {
	N       int
	Content string
}

// Extractor finds symbols in a sequence of lines of one language.
type Extractor interface {
	Extract(lang string, lines []Line) []Symbol
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
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx":
		return "cpp"
	case ".rb":
		return "ruby"
	}
	return ""
}

// Hint renders a symbol the way truncation notices and diagnostics show it:
// "func handleAuth()", "class TokenCache".
func Hint(s Symbol) string {
	switch s.Kind {
	case "func", "method":
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
