package server

import (
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
)

// The handlers speak 1-based line ranges; LSP speaks 0-based positions in the
// negotiated encoding. These conversions are the only place the two meet,
// and they map positions with the one mapper (textdoc.Snapshot.Pos).

// lspRange converts 1-based inclusive lines to an LSP range from the start of
// the first line to the end of the last line's content.
func lspRange(s *textdoc.Snapshot, r ledger.Range, enc textdoc.Encoding) protocol.Range {
	n := s.LineCount()
	end := min(r.End, n)
	var endPos textdoc.Pos
	if end >= 1 {
		endPos = s.Pos(end-1, len(s.Line(end-1).Content), enc)
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(max(r.Start-1, 0))},
		End:   protocol.Position{Line: endPos.Line, Character: endPos.Char},
	}
}

func lspDiagnostics(s *textdoc.Snapshot, ds []engine.Diagnostic, enc textdoc.Encoding) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(ds)) // never nil: an empty list clears the editor's
	for _, d := range ds {
		sev := protocol.DiagnosticSeverityInformation
		if d.Severity == engine.SeverityWarning {
			sev = protocol.DiagnosticSeverityWarning
		}
		out = append(out, protocol.Diagnostic{
			Range:    lspRange(s, d.Lines, enc),
			Severity: sev,
			Code:     protocol.String(d.Code),
			Source:   protocol.NewOptional("sightline"),
			Message:  protocol.String(d.Message),
		})
	}
	return out
}

// ShowLedgerCommand is the code lens command: the editor plugins open the
// document's ledger (argument: its uri).
const ShowLedgerCommand = "sightline.showLedger"

func lspCodeLenses(ls []engine.Lens, uri string) []protocol.CodeLens {
	arg, _ := json.Marshal(uri)
	out := make([]protocol.CodeLens, 0, len(ls))
	for _, l := range ls {
		line := uint32(max(l.Line-1, 0))
		out = append(out, protocol.CodeLens{
			Range:   protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}},
			Command: protocol.Command{Title: l.Title, Command: ShowLedgerCommand, Arguments: []protocol.LSPAny{arg}},
		})
	}
	return out
}

func lspDocumentSymbols(s *textdoc.Snapshot, syms []engine.OutlineSymbol, enc textdoc.Encoding) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(syms))
	for _, sym := range syms {
		detail := sym.Signature
		ds := protocol.DocumentSymbol{
			Name:           sym.Name,
			Detail:         &detail,
			Kind:           symbolKind(sym.Kind),
			Range:          lspRange(s, sym.Lines, enc),
			SelectionRange: lspRange(s, ledger.Range{Start: sym.Lines.Start, End: sym.Lines.Start}, enc),
		}
		if len(sym.Children) > 0 {
			ds.Children = lspDocumentSymbols(s, sym.Children, enc)
		}
		out = append(out, ds)
	}
	return out
}

// symbolKind maps the extractor's kinds to LSP symbol kinds.
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
