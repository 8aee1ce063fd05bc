package handlers

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// Diagnostics returns what the editor shows of a session's ledger for one
// document: unread ranges (Information) of a document the session has
// partially read or is editing, each naming what it contains, and stale ranges
// (Warning). A document the session never touched, or read whole, gets none.
// The slice is never nil: an empty one clears the editor's list.
func (e *Env) Diagnostics(session string, d workspace.Doc, enc textdoc.Encoding) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	v := e.Ledger.Doc(session, ledger.DocKey(d.Key))
	cfg := e.Config()
	if v.State == ledger.NeverRead {
		return out
	}
	if cfg.Diagnostics.Unread {
		var syms []extract.Symbol
		if len(v.Unread) > 0 {
			syms = e.hintSymbols(d)
		}
		for _, r := range v.Unread {
			msg := fmt.Sprintf("%s not read by the agent (session %s).", linesWord(r), session)
			if hint := extract.Summary(symbolsWithin(syms, r), maxHints); hint != "" {
				msg = fmt.Sprintf("%s not read by the agent (session %s) — contains: %s", linesWord(r), session, hint)
			}
			out = append(out, diagnostic(d, r, enc, protocol.DiagnosticSeverityInformation, "unread", msg))
		}
	}
	if cfg.Diagnostics.Stale {
		for _, r := range v.Stale {
			msg := fmt.Sprintf("%s changed since the agent (session %s) read them; it must read them again before editing.", linesWord(r), session)
			out = append(out, diagnostic(d, r, enc, protocol.DiagnosticSeverityWarning, "stale", msg))
		}
	}
	return out
}

func diagnostic(d workspace.Doc, r ledger.Range, enc textdoc.Encoding, sev protocol.DiagnosticSeverity, code, msg string) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:    LSPRange(d.Snap, r, enc),
		Severity: sev,
		Code:     protocol.String(code),
		Source:   protocol.NewOptional("sightline"),
		Message:  protocol.String(msg),
	}
}

// LSPRange converts 1-based inclusive lines to an LSP range from the start of
// the first line to the end of the last line's content.
func LSPRange(s *textdoc.Snapshot, r ledger.Range, enc textdoc.Encoding) protocol.Range {
	n := s.LineCount()
	end := r.End
	if end > n {
		end = n
	}
	var endPos textdoc.Pos
	if end >= 1 {
		endPos = s.Pos(end-1, len(s.Line(end-1).Content), enc)
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(max(r.Start-1, 0))},
		End:   protocol.Position{Line: endPos.Line, Character: endPos.Char},
	}
}

func symbolsWithin(syms []extract.Symbol, r ledger.Range) []extract.Symbol {
	var out []extract.Symbol
	for _, s := range syms {
		if s.Start >= r.Start && s.Start <= r.End {
			out = append(out, s)
		}
	}
	return out
}

// linesWord renders a range as agents read it: "Line 7" or "Lines 101-120".
func linesWord(r ledger.Range) string {
	if r.Start == r.End {
		return fmt.Sprintf("Line %d", r.Start)
	}
	return fmt.Sprintf("Lines %d-%d", r.Start, r.End)
}
