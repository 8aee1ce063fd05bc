package server

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/ledger"
)

// Hover: who read a line, when, at which version.
func (s *Server) Hover(ctx context.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.ws.Lookup(string(p.TextDocument.URI))
	if err != nil {
		return nil, nil
	}
	n := int(p.Position.Line) + 1
	md, ok := s.env.Hover(s.session(), d, n)
	if !ok {
		return nil, nil
	}
	r := lspRange(d.Snap, ledger.Range{Start: n, End: n}, s.encoding())
	return &protocol.Hover{
		Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md},
		Range:    &r,
	}, nil
}

// CodeLens: "Agent read 120/680 lines · 1 stale range" on line 1, running
// sightline.showLedger with the uri the client sent.
func (s *Server) CodeLens(ctx context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	d, err := s.ws.Lookup(string(p.TextDocument.URI))
	if err != nil {
		return []protocol.CodeLens{}, nil
	}
	return lspCodeLenses(s.env.CodeLenses(s.session(), d), string(p.TextDocument.URI)), nil
}

// Diagnostic answers pull diagnostics with the same ranges push would send.
func (s *Server) Diagnostic(ctx context.Context, p *protocol.DocumentDiagnosticParams) (protocol.DocumentDiagnosticReport, error) {
	rep := &protocol.RelatedFullDocumentDiagnosticReport{
		FullDocumentDiagnosticReport: protocol.FullDocumentDiagnosticReport{Kind: string(protocol.DocumentDiagnosticReportKindFull), Items: []protocol.Diagnostic{}},
	}
	d, err := s.ws.Lookup(string(p.TextDocument.URI))
	if err != nil {
		return rep, nil
	}
	rep.Items = lspDiagnostics(d.Snap, s.env.Diagnostics(s.session(), d), s.encoding())
	return rep, nil
}

// protocolURI converts a URI string for the protocol types.
func protocolURI(u string) uri.URI { return uri.URI(u) }

// DocumentSymbol is the outline, from the signature extractor.
func (s *Server) DocumentSymbol(ctx context.Context, p *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	d, err := s.ws.Lookup(string(p.TextDocument.URI))
	if err != nil {
		return protocol.DocumentSymbolSlice{}, nil
	}
	return protocol.DocumentSymbolSlice(lspDocumentSymbols(d.Snap, s.env.DocumentSymbols(d), s.encoding())), nil
}
