package handlers

import (
	"context"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// SummaryParams are the params of sightline/summary.
type SummaryParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
	MaxChars     int          `json:"maxChars,omitempty"`
}

// SummaryResult is the answer of sightline/summary: the declarations and the
// head of the document.
type SummaryResult struct {
	Outcome
	URI          string           `json:"uri,omitempty"`
	Path         string           `json:"path,omitempty"`
	Language     string           `json:"language,omitempty"`
	TotalLines   int              `json:"totalLines"`
	Symbols      []extract.Symbol `json:"symbols"`
	Excerpt      string           `json:"excerpt"`
	ExcerptRange *ledger.Range    `json:"excerptRange"`
}

// defaultExcerpt bounds the excerpt when maxChars is not given.
const defaultExcerpt = 2000

// Summary answers sightline/summary. The excerpt lines were shown, so they
// count as read.
func (e *Env) Summary(ctx context.Context, p SummaryParams) (SummaryResult, error) {
	res := SummaryResult{Symbols: []extract.Symbol{}}
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	if p.MaxChars < 0 {
		return res, result.Errorf(result.InvalidParams, "maxChars must not be negative")
	}
	max := p.MaxChars
	if max == 0 {
		max = defaultExcerpt
	}
	d, err := e.document(p.TextDocument.URI)
	if err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	res.Outcome = Outcome{OK: true}
	res.URI, res.Path = d.URI, e.WS.Rel(d.Key)
	res.Language = extract.Language(d.Path, d.Lang)
	res.TotalLines = d.Snap.LineCount()
	if syms := e.symbols(d); syms != nil {
		res.Symbols = syms
	}
	var buf []byte
	last := 0
	for i := 1; i <= res.TotalLines; i++ {
		c := d.Snap.Line(i - 1).Content
		if i == 1 {
			_, c = hashline.StripBOM(c)
		}
		if utf8.RuneCount(buf)+utf8.RuneCountInString(c)+1 > max {
			break
		}
		buf = append(append(buf, c...), '\n')
		last = i
	}
	res.Excerpt = string(buf)
	if last > 0 {
		r := ledger.Range{Start: 1, End: last}
		res.ExcerptRange = &r
		e.recordRead(p.SessionOr(), p.Agent, d, r)
	}
	return res, nil
}

// DocumentSymbols is the editor's outline: declarations nested under their
// containers.
func (e *Env) DocumentSymbols(d workspace.Doc, enc textdoc.Encoding) []protocol.DocumentSymbol {
	syms := e.symbols(d)
	out := []protocol.DocumentSymbol{}
	byName := map[string]int{} // container name → index in out
	n := d.Snap.LineCount()
	for _, s := range syms {
		if s.Start < 1 || s.Start > n {
			continue
		}
		end := s.End
		if end < s.Start || end > n {
			end = s.Start
		}
		detail := s.Signature
		ds := protocol.DocumentSymbol{
			Name:           s.Name,
			Detail:         &detail,
			Kind:           symbolKind(s.Kind),
			Range:          LSPRange(d.Snap, ledger.Range{Start: s.Start, End: end}, enc),
			SelectionRange: LSPRange(d.Snap, ledger.Range{Start: s.Start, End: s.Start}, enc),
		}
		if i, ok := byName[s.Container]; ok && s.Container != "" {
			out[i].Children = append(out[i].Children, ds)
			continue
		}
		byName[s.Name] = len(out)
		out = append(out, ds)
	}
	return out
}

func symbolKind(k string) protocol.SymbolKind {
	switch k {
	case "func":
		return protocol.SymbolKindFunction
	case "method":
		return protocol.SymbolKindMethod
	case "class", "impl":
		return protocol.SymbolKindClass
	case "struct", "union":
		return protocol.SymbolKindStruct
	case "interface", "trait":
		return protocol.SymbolKindInterface
	case "enum":
		return protocol.SymbolKindEnum
	case "module":
		return protocol.SymbolKindModule
	case "namespace":
		return protocol.SymbolKindNamespace
	case "type":
		return protocol.SymbolKindTypeParameter
	case "macro":
		return protocol.SymbolKindConstant
	}
	return protocol.SymbolKindObject
}
