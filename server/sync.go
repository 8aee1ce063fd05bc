package server

import (
	"context"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// Document sync runs inline on the read loop, in wire order: a request that
// follows a didChange always sees its text.

// DidOpen records an editor buffer.
func (s *Server) DidOpen(ctx context.Context, p *protocol.DidOpenTextDocumentParams) error {
	if s.ws == nil {
		return nil
	}
	td := p.TextDocument
	d, err := s.ws.Open(string(td.URI), string(td.LanguageID), td.Version, td.Text)
	if err != nil {
		return err
	}
	s.pub.mark(d.Key)
	return nil
}

// DidChange applies incremental (or full) changes to a buffer.
func (s *Server) DidChange(ctx context.Context, p *protocol.DidChangeTextDocumentParams) error {
	if s.ws == nil {
		return nil
	}
	changes := make([]textdoc.Change, 0, len(p.ContentChanges))
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangePartial:
			r := textdoc.Range{
				Start: textdoc.Pos{Line: c.Range.Start.Line, Char: c.Range.Start.Character},
				End:   textdoc.Pos{Line: c.Range.End.Line, Char: c.Range.End.Character},
			}
			changes = append(changes, textdoc.Change{Range: &r, Text: c.Text})
		case *protocol.TextDocumentContentChangeWholeDocument:
			changes = append(changes, textdoc.Change{Text: c.Text})
		}
	}
	_, err := s.ws.Change(string(p.TextDocument.URI), p.TextDocument.Version, changes, s.encoding(), "")
	if err != nil {
		s.log.Error("didChange", zap.Error(err))
	}
	return err
}

// DidClose: the document is the disk again.
func (s *Server) DidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	if s.ws == nil {
		return nil
	}
	s.ws.Close(string(p.TextDocument.URI))
	if k, err := workspace.Normalize(string(p.TextDocument.URI)); err == nil {
		s.pub.mark(k)
	}
	return nil
}

// DidSave needs nothing: the buffer is already the text sightline holds.
func (s *Server) DidSave(ctx context.Context, p *protocol.DidSaveTextDocumentParams) error {
	return nil
}

// DidChangeWatchedFiles re-reads closed files that changed on disk, so their
// reads shift or go stale now rather than at the next read.
func (s *Server) DidChangeWatchedFiles(ctx context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	if s.ws == nil {
		return nil
	}
	for _, ev := range p.Changes {
		k, err := workspace.Normalize(string(ev.URI))
		if err != nil {
			continue
		}
		if d, known := s.ws.Known(k); !known || d.Open {
			continue
		}
		if ev.Type == protocol.FileChangeTypeDeleted {
			s.ws.Forget(k)
			s.ledger.Forget(ledgerKey(k))
			s.pub.mark(k)
			continue
		}
		if _, err := s.ws.Get(k); err != nil {
			s.log.Debug("watched file", zap.String("uri", string(k)), zap.Error(err))
		}
		s.pub.mark(k)
	}
	return nil
}
