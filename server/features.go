package server

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
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

// Symbols answers workspace/symbol: the workspace's declarations matching
// the query, found as sightline/symbols finds them (through the operation,
// audited as every call is; it records nothing as read).
func (s *Server) Symbols(ctx context.Context, p *protocol.WorkspaceSymbolParams) (protocol.WorkspaceSymbolResult, error) {
	out := protocol.SymbolInformationSlice{}
	if s.env == nil {
		return out, nil
	}
	res, err := ops.Do(ctx, ops.Symbols, &ops.Call{Env: s.env}, engine.SymbolsParams{Caller: engine.Caller{Session: s.session()}, Query: p.Query})
	if err != nil {
		return out, err
	}
	for _, sym := range res.Symbols {
		name, container := sym.Name, ""
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			name, container = name[i+1:], name[:i]
		}
		si := protocol.SymbolInformation{
			BaseSymbolInformation: protocol.BaseSymbolInformation{Name: name, Kind: symbolKind(sym.Kind)},
			// Whole lines: the file may be in no buffer to measure columns in.
			Location: protocol.Location{URI: protocolURI(sym.URI), Range: protocol.Range{
				Start: protocol.Position{Line: uint32(sym.Lines.Start - 1)}, End: protocol.Position{Line: uint32(sym.Lines.End)}}},
		}
		if container != "" {
			si.ContainerName = &container
		}
		out = append(out, si)
	}
	return out, nil
}
