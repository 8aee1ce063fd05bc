package server

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/textdoc"
)

// editor is the engine.Editor of this connection: workspace/applyEdit with
// one versioned TextDocumentEdit, which the client refuses whole if the
// buffer is no longer at that version.
type editor struct{ s *Server }

func (ed editor) Encoding() textdoc.Encoding { return ed.s.encoding() }

// The label is not sent: Neovim prints an applyEdit's label on every edit.
func (ed editor) ApplyEdit(ctx context.Context, uri string, version int32, changes []textdoc.Change, _ string) (bool, string, error) {
	return ed.ApplyEdits(ctx, []engine.DocEdit{{URI: uri, Version: version, Changes: changes}})
}

// ApplyEdits sends one workspace/applyEdit with one versioned
// TextDocumentEdit per document.
func (ed editor) ApplyEdits(ctx context.Context, docs []engine.DocEdit) (bool, string, error) {
	dcs := make([]protocol.DocumentChange, 0, len(docs))
	for _, d := range docs {
		edits := make([]protocol.TextDocumentEditElement, 0, len(d.Changes))
		for _, c := range d.Changes {
			edits = append(edits, &protocol.TextEdit{
				Range: protocol.Range{
					Start: protocol.Position{Line: c.Range.Start.Line, Character: c.Range.Start.Char},
					End:   protocol.Position{Line: c.Range.End.Line, Character: c.Range.End.Char},
				},
				NewText: c.Text,
			})
		}
		v := d.Version
		dcs = append(dcs, &protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
				TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: protocolURI(d.URI)},
				Version:                &v,
			},
			Edits: edits,
		})
	}
	params := &protocol.ApplyWorkspaceEditParams{Edit: protocol.WorkspaceEdit{DocumentChanges: dcs}}
	var res protocol.ApplyWorkspaceEditResult
	if _, err := ed.s.conn.Call(ctx, "workspace/applyEdit", params, &res); err != nil {
		return false, "", err
	}
	reason := ""
	if res.FailureReason != nil {
		reason = *res.FailureReason
	}
	return res.Applied, reason, nil
}

// showDocument asks the editor to show a document at a line
// (window/showDocument), for sightline/open.
type showDocument struct{ s *Server }

func (sd showDocument) ShowDocument(ctx context.Context, uri string, line int) (bool, error) {
	pos := map[string]int{"line": max(line-1, 0), "character": 0}
	params := map[string]any{"uri": uri, "takeFocus": true, "selection": map[string]any{"start": pos, "end": pos}}
	var res struct {
		Success bool `json:"success"`
	}
	if _, err := sd.s.conn.Call(ctx, "window/showDocument", params, &res); err != nil {
		return false, err
	}
	return res.Success, nil
}
