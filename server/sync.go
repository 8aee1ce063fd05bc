package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"

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
	// The protocol decoder's unescaped strings alias its copy of the whole
	// message: kept as they are, the URI would hold a copy of the text (1x
	// more per open document). Detach what the workspace keeps.
	return s.open(strings.Clone(string(td.URI)), strings.Clone(string(td.LanguageID)), td.Version, td.Text)
}

// didOpenLarge serves a didOpen whose params are over the file limit, which
// its text then may be (escapes make the params longer than the text):
// decoded here by the standard decoder, many times faster on one huge
// string than the protocol package's, and with one copy of it.
func (s *Server) didOpenLarge(raw json.RawMessage) error {
	if s.ws == nil {
		return nil
	}
	var p struct {
		TextDocument struct {
			URI        string `json:"uri"`
			LanguageID string `json:"languageId"`
			Version    int32  `json:"version"`
			Text       string `json:"text"`
		} `json:"textDocument"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("didOpen: %w", err)
	}
	td := p.TextDocument
	return s.open(td.URI, td.LanguageID, td.Version, td.Text)
}

// open keeps an editor's buffer. One over the file limit is not kept (its
// lines and their index would be many times its size) but known open, out
// of sync: an agent's write must not go to the disk under the editor's
// buffer, and a read must say why it has no text.
func (s *Server) open(uri, lang string, version int32, text string) error {
	over := s.overLimit(len(text))
	kept := text
	if over != "" {
		kept = ""
	}
	d, err := s.ws.Open(uri, lang, version, kept)
	if err != nil {
		return err
	}
	s.env.Settle()
	if over != "" {
		s.log.Warn("didOpen over the file limit: the text is not kept", zap.String("uri", uri), zap.Int("bytes", len(text)))
		if d, first := s.ws.Desync(uri, over); first {
			s.tellDesync(d)
		}
		s.collectAfterFullText([]textdoc.Change{{Text: text}})
	}
	s.pub.mark(d.Key)
	return nil
}

// overLimit says why a document's text of n bytes is not kept ("" when it
// is): over the limit of a file loaded from disk.
func (s *Server) overLimit(n int) string {
	if limit := s.ws.MaxFileSize(); int64(n) > limit {
		return fmt.Sprintf("its text in the editor is %d bytes, over sightline's %d-byte limit, so sightline did not keep it", n, limit)
	}
	return ""
}

// didChange applies a didChange from its raw params. It decodes them itself:
// the protocol package reads a change with a negative position as a
// whole-document change (its union falls through to the text-only member),
// and drops a change whose version is null or beyond int32 with an error
// that only reaches the log. Either would leave sightline's copy silently
// different from the editor's. A change that is not exactly valid is not
// applied at all: the document is marked out of sync, and the user told.
func (s *Server) didChange(raw json.RawMessage) error {
	if s.ws == nil {
		return nil
	}
	uri, version, changes, problem := decodeDidChange(raw)
	if uri == "" {
		return fmt.Errorf("didChange without a document: %s", problem)
	}
	if problem != "" {
		s.desync(uri, problem)
		return nil
	}
	for _, c := range changes {
		if over := s.overLimit(len(c.Text)); c.Range == nil && over != "" {
			s.desync(uri, over)
			s.collectAfterFullText(changes)
			return nil
		}
	}
	_, err := s.ws.Change(uri, version, changes, s.encoding(), "")
	s.env.Settle()
	if err != nil {
		s.log.Error("didChange", zap.Error(err))
		if d, ok := s.knownOpen(uri); ok && d.Desync != "" {
			s.tellDesync(d)
		}
	}
	s.collectAfterFullText(changes)
	return nil
}

// fullTextCollect is the least number of bytes of full-text changes the
// server takes in before it collects garbage itself.
const fullTextCollect = 4 << 20

// collectAfterFullText collects garbage once full-text changes have brought
// in fullTextCollect bytes, or a quarter of the live heap if that is more. An
// editor that syncs whole documents sends megabytes a second that become
// garbage at once, while the lines they change live on: at the server's
// collector pace (GOGC=400, for read latency) the heap would grow to
// several times its live size between collections, and the lines kept from
// that time stay spread over pages the process then holds. Scaled by the
// live heap, a collection's cost (which grows with it) stays in proportion
// to the text that brought it on.
func (s *Server) collectAfterFullText(changes []textdoc.Change) {
	n := 0
	for _, c := range changes {
		if c.Range == nil {
			n += len(c.Text)
		}
	}
	if n == 0 {
		return
	}
	if got := s.fullText.Add(int64(n)); got >= fullTextCollect && got >= liveHeap()/4 {
		s.fullText.Store(0)
		runtime.GC()
	}
}

// liveHeap is the heap the last collection left live (runtime/metrics: no
// stop of the world to read it).
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// decodeDidChange validates a didChange's params: a document, an int32
// version, and changes that are each a text with, for an incremental one, a
// range of non-negative uint32 positions. problem says what is wrong.
func decodeDidChange(raw json.RawMessage) (uri string, version int32, changes []textdoc.Change, problem string) {
	var p struct {
		TextDocument struct {
			URI     string          `json:"uri"`
			Version json.RawMessage `json:"version"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Range *struct {
				Start, End struct{ Line, Character json.Number }
			} `json:"range"`
			Text *string `json:"text"`
		} `json:"contentChanges"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		var probe struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		_ = json.Unmarshal(raw, &probe)
		return probe.TextDocument.URI, 0, nil, fmt.Sprintf("the editor sent a change sightline could not decode: %v", err)
	}
	uri = p.TextDocument.URI
	v, err := strconv.ParseInt(string(p.TextDocument.Version), 10, 32)
	if err != nil {
		return uri, 0, nil, fmt.Sprintf("the editor sent a change with version %s, not a 32-bit integer", clip(string(p.TextDocument.Version)))
	}
	pos := func(line, char json.Number) (textdoc.Pos, bool) {
		l, err1 := strconv.ParseUint(string(line), 10, 32)
		c, err2 := strconv.ParseUint(string(char), 10, 32)
		return textdoc.Pos{Line: uint32(l), Char: uint32(c)}, err1 == nil && err2 == nil
	}
	changes = make([]textdoc.Change, 0, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		if c.Text == nil {
			return uri, 0, nil, fmt.Sprintf("change %d of version %d has no text", i, v)
		}
		if c.Range == nil {
			changes = append(changes, textdoc.Change{Text: *c.Text})
			continue
		}
		start, ok1 := pos(c.Range.Start.Line, c.Range.Start.Character)
		end, ok2 := pos(c.Range.End.Line, c.Range.End.Character)
		if !ok1 || !ok2 {
			return uri, 0, nil, fmt.Sprintf("change %d of version %d has an invalid range (%s:%s-%s:%s): positions are non-negative 32-bit integers",
				i, v, c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character)
		}
		changes = append(changes, textdoc.Change{Range: &textdoc.Range{Start: start, End: end}, Text: *c.Text})
	}
	return uri, int32(v), changes, ""
}

// desync marks an open document out of sync and tells the user once.
func (s *Server) desync(uri, reason string) {
	s.log.Error("didChange not applied; document out of sync", zap.String("uri", uri), zap.String("reason", reason))
	if d, first := s.ws.Desync(uri, reason); first {
		s.tellDesync(d)
	}
	if k, err := workspace.Normalize(uri); err == nil {
		s.pub.mark(k)
	}
}

// tellDesync shows the user that a document is out of sync, once per
// episode (the flag is cleared when the editor sends the whole text again).
func (s *Server) tellDesync(d workspace.Doc) {
	s.showMessage(protocol.MessageTypeWarning, fmt.Sprintf("sightline: %s is out of sync with the editor (%s). Agent edits to it are refused: close and reopen the file.", s.ws.Rel(d.Key), d.Desync))
}

func (s *Server) knownOpen(uri string) (workspace.Doc, bool) {
	k, err := workspace.Normalize(uri)
	if err != nil {
		return workspace.Doc{}, false
	}
	d, ok := s.ws.Known(k)
	return d, ok && d.Open
}

// showMessage tells the user something through window/showMessage, from a
// goroutine on the connection's context: the caller may be an inline
// notification handler, which must not wait on the client.
func (s *Server) showMessage(typ protocol.MessageType, msg string) {
	conn, bg := s.conn, s.bg
	if conn == nil {
		return
	}
	go func() {
		if err := conn.Notify(bg, "window/showMessage", &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
			s.log.Debug("window/showMessage", zap.Error(err))
		}
	}()
}

// DidClose: the document is the disk again.
func (s *Server) DidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	if s.ws == nil {
		return nil
	}
	s.ws.CloseBuffer(string(p.TextDocument.URI))
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
	reload := false
	defer func() {
		if reload && s.env != nil {
			s.reloadConfig()
		}
	}()
	for _, ev := range p.Changes {
		k, err := workspace.Normalize(string(ev.URI))
		if err != nil {
			continue
		}
		if path, ok := k.Path(); ok && s.env != nil {
			s.env.FileChanged(path, ev.Type != protocol.FileChangeTypeChanged)
			reload = reload || s.isConfigFile(path)
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
		s.env.Settle()
		s.pub.mark(k)
	}
	return nil
}
