package server

import (
	"context"
	"hash/fnv"
	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// publisher pushes what the editor shows of the ledger (diagnostics, the
// sightline/coverage notification, refresh requests) after changes, debounced
// so a burst of typing publishes once, and only when the content changed.
type publisher struct {
	s *Server

	mu      sync.Mutex
	dirty   map[workspace.Key]struct{}
	all     bool
	lastDia map[workspace.Key]uint64
	lastCov map[workspace.Key]uint64
	// sentCov is the coverage the client holds of each document, when it
	// takes coverage as changes.
	sentCov map[workspace.Key]engine.CoverageParams
	lens    bool // a lens may have changed since the last refresh
	// shown is the session last published (the publishing loop's own).
	shown string

	kick chan struct{}
	done chan struct{}
	quit chan struct{}
}

func newPublisher(s *Server) *publisher {
	return &publisher{
		s:       s,
		dirty:   make(map[workspace.Key]struct{}),
		lastDia: make(map[workspace.Key]uint64),
		lastCov: make(map[workspace.Key]uint64),
		sentCov: make(map[workspace.Key]engine.CoverageParams),
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		quit:    make(chan struct{}),
	}
}

func (p *publisher) start() { go p.loop() }

func (p *publisher) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	<-p.done
}

// mark schedules a document's surfaces for recomputation (its text changed).
func (p *publisher) mark(k workspace.Key) {
	p.mu.Lock()
	p.dirty[k] = struct{}{}
	p.mu.Unlock()
	p.poke()
}

// markAll recomputes every document (settings changed).
func (p *publisher) markAll() {
	p.mu.Lock()
	p.all = true
	p.mu.Unlock()
	p.poke()
}

func (p *publisher) poke() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *publisher) loop() {
	defer close(p.done)
	for {
		select {
		case <-p.quit:
			return
		case <-p.kick:
		}
		select {
		case <-p.quit:
			return
		case <-time.After(p.s.opts.Debounce):
		}
		p.safePublish()
	}
}

// safePublish publishes, turning a panic into a log line: a fault in what
// the editor is shown must not take the session down.
func (p *publisher) safePublish() {
	defer func() {
		if r := recover(); r != nil {
			p.s.log.Error("panic while publishing", zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
		}
	}()
	p.publish()
}

// publish recomputes the dirty documents and sends what changed.
func (p *publisher) publish() {
	p.mu.Lock()
	dirty := p.dirty
	all := p.all
	p.dirty = make(map[workspace.Key]struct{})
	p.all = false
	p.mu.Unlock()

	s := p.s
	s.env.Settle() // the ledger at the revisions the surfaces are computed for
	session := s.session()
	if prev := p.shown; prev != session {
		// Another session is shown (followSession, or the setting changed):
		// what the previous one had is cleared or redrawn too.
		p.shown, all = session, true
		if prev != "" {
			for _, v := range s.ledger.Docs(prev) {
				dirty[workspace.Key(v.Doc)] = struct{}{}
			}
		}
		if s.env.Config().FollowSession {
			if err := s.conn.Notify(s.bg, "sightline/session", map[string]any{"session": session, "follow": true}); err != nil {
				s.log.Debug("sightline/session", zap.Error(err))
			}
		}
	}
	if all {
		for _, d := range s.ws.OpenDocs() {
			dirty[d.Key] = struct{}{}
		}
		for _, v := range s.ledger.Docs(session) {
			dirty[workspace.Key(v.Doc)] = struct{}{}
		}
	}
	s.mu.Lock()
	caps, enc := s.caps, s.enc
	s.mu.Unlock()

	changed := false
	for k := range dirty {
		d, ok := s.ws.Known(k)
		if !ok {
			p.clear(k, caps.pullDiagnostics)
			changed = true
			continue
		}
		if !d.Open && s.ledger.Summarize(session, ledger.DocKey(k)).State == ledger.NeverRead {
			// A closed document the session never touched: clear what was shown.
			p.clear(k, caps.pullDiagnostics)
			continue
		}
		// The document and the ledger have separate locks: if the text moved
		// on while the surfaces were computed, skip them; the change that moved
		// it has scheduled another round, and a version must never be paired
		// with another version's ranges.
		current := func() bool {
			cur, ok := s.ws.Known(k)
			_, lrev, lok := s.ledger.DocInfo(ledger.DocKey(k))
			return ok && cur.Rev == d.Rev && (!lok || int64(lrev) == d.Rev)
		}
		if !caps.pullDiagnostics {
			diags := lspDiagnostics(d.Snap, s.env.Diagnostics(session, d), enc)
			if !current() {
				continue
			}
			if h := hashOf(diags); p.swap(p.lastDia, k, h) {
				err := s.conn.Notify(s.bg, "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: protocolURI(d.URI), Diagnostics: diags})
				if err != nil {
					s.log.Debug("publishDiagnostics", zap.Error(err))
				}
			}
		} else if h := hashOf(lspDiagnostics(d.Snap, s.env.Diagnostics(session, d), enc)); p.swap(p.lastDia, k, h) {
			changed = true
		}
		cov := s.env.Coverage(session, d)
		if !current() {
			s.log.Debug("document moved on while publishing; next round", zap.String("uri", d.URI))
			continue
		}
		if send, ok := p.coverageToSend(k, cov, caps.coverageChanges); ok {
			s.log.Debug("coverage", zap.String("uri", d.URI), zap.String("state", string(cov.State)))
			if err := s.notifyResult("sightline/coverage", send); err != nil {
				s.log.Debug("coverage", zap.Error(err))
			}
			changed = true
		}
	}
	if changed {
		p.refresh(caps)
	}
}

// coverageToSend returns what to send of a document's coverage, and false
// when the client has it already: to a client that takes changes, what
// changed since the last one it was sent; to others the whole coverage when
// it differs.
func (p *publisher) coverageToSend(k workspace.Key, cov engine.CoverageParams, changes bool) (engine.CoverageParams, bool) {
	if !changes {
		return cov, p.swap(p.lastCov, k, hashOf(cov))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, had := p.sentCov[k]
	send := cov
	if had {
		var ok bool
		if send, ok = engine.CoverageChange(prev, cov); !ok {
			return send, false
		}
	}
	p.sentCov[k] = cov
	return send, true
}

// clear withdraws what was published for a document that is gone or untouched.
func (p *publisher) clear(k workspace.Key, pull bool) {
	p.mu.Lock()
	_, had := p.lastDia[k]
	delete(p.lastDia, k)
	delete(p.lastCov, k)
	delete(p.sentCov, k)
	p.mu.Unlock()
	if had && !pull {
		_ = p.s.conn.Notify(p.s.bg, "textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: protocolURI(string(k)), Diagnostics: []protocol.Diagnostic{}})
	}
}

// refresh asks the client to re-pull diagnostics and lenses. These are calls:
// they run here, on the publisher's goroutine, never on the read loop.
func (p *publisher) refresh(caps clientCaps) {
	s := p.s
	ctx, cancel := context.WithTimeout(s.bg, 5*time.Second)
	defer cancel()
	if caps.pullDiagnostics && caps.diagRefresh {
		if _, err := s.conn.Call(ctx, "workspace/diagnostic/refresh", nil, nil); err != nil {
			s.log.Debug("diagnostic refresh", zap.Error(err))
		}
	}
	if caps.codeLensRefresh {
		if _, err := s.conn.Call(ctx, "workspace/codeLens/refresh", nil, nil); err != nil {
			s.log.Debug("codeLens refresh", zap.Error(err))
		}
	}
}

// swap records h as the last published hash of k and reports whether it changed.
func (p *publisher) swap(m map[workspace.Key]uint64, k workspace.Key, h uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := m[k]; ok && old == h {
		return false
	}
	m[k] = h
	return true
}

func hashOf(v any) uint64 {
	b, err := protocol.Marshal(v)
	if err != nil {
		return 0
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// notifyResult sends a sightline notification in the results' JSON encoding.
func (s *Server) notifyResult(method string, v any) error {
	raw, err := encoded(v)
	if err != nil {
		return err
	}
	return s.conn.Notify(s.bg, method, raw)
}
