package engine

import (
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// declaration finds the declaration a name means in a document ("Name",
// "Class.method", "Outer.Inner") and returns its lines as an agent reads or
// replaces them: its doc comment, decorators and annotations through its
// last line. A name that means none is no_match (with the nearest names); a
// name that means several is ambiguous_match (with their lines): the agent
// picks one by its qualified name.
func (e *Env) declaration(d workspace.Doc, name string) (ledger.Range, error) {
	name = strings.TrimSpace(name)
	lang := extract.Language(d.Path, d.Lang)
	if lang == "" {
		return ledger.Range{}, result.Errorf(result.NoMatch, "%s is in no language whose declarations sightline knows; read it by lines instead.", d.Rel)
	}
	syms, q := e.syms.qualified(d)
	matches, nearest := extract.Find(syms, q, name)
	span := func(i int) ledger.Range {
		s, end := extract.Span(lang, syms[i], func(n int) string { return d.Snap.Line(n - 1).Content })
		return ledger.Range{Start: s, End: min(end, d.Snap.LineCount())}
	}
	list := func(is []int) string {
		parts := make([]string, len(is))
		for j, i := range is {
			r := span(i)
			parts[j] = fmt.Sprintf("%s %s (lines %d-%d)", syms[i].Kind, q[i], r.Start, r.End)
		}
		return strings.Join(parts, ", ")
	}
	switch {
	case len(matches) == 1:
		return span(matches[0]), nil
	case len(matches) > 1:
		return ledger.Range{}, result.Errorf(result.AmbiguousMatch, "%q names %d declarations in %s: %s. Name one by its qualified name, or read its lines.", name, len(matches), d.Rel, list(matches))
	case len(nearest) > 0:
		return ledger.Range{}, result.Errorf(result.NoMatch, "No declaration named %q in %s. Nearest: %s.", name, d.Rel, list(nearest))
	}
	return ledger.Range{}, result.Errorf(result.NoMatch, "No declaration named %q in %s (%d declarations; outline the file to see them).", name, d.Rel, len(syms))
}
