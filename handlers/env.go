// Package handlers holds sightline's features, one file each: the read path,
// the ledger report, and what the editor is shown (diagnostics, coverage,
// code lens, hover). The LSP server and the CLI both call them; they speak
// the agent-facing JSON shapes of PROTOCOL section 6 and plain Go values
// (1-based line ranges) for what the editor shows, and leave transport to
// their callers: package server alone converts to LSP types.
package handlers

import (
	"sync"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ledgerdb"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// Env is what every feature works on.
type Env struct {
	WS      *workspace.Workspace
	Ledger  *ledger.Ledger
	Extract extract.Extractor
	Log     *zap.Logger
	Persist *ledgerdb.Sync // nil when the ledger lives in memory only
	Editor  Editor         // the editor connection; nil in the CLI

	locks docLocks

	stats stats

	cfgMu sync.RWMutex
	cfg   config.Config

	symMu   sync.Mutex
	syms    map[workspace.Key]symCache
	warming map[workspace.Key]int64 // revision being extracted in the background
}

type symCache struct {
	rev  int64
	syms []extract.Symbol
}

// NewEnv makes an Env.
func NewEnv(ws *workspace.Workspace, l *ledger.Ledger, cfg config.Config, log *zap.Logger) *Env {
	if log == nil {
		log = zap.NewNop()
	}
	e := &Env{WS: ws, Ledger: l, Log: log, cfg: cfg, syms: make(map[workspace.Key]symCache)}
	e.Extract = e.engine(cfg.Extract)
	return e
}

// engine returns the signature extractor for a configured name, falling back
// to regex (with a log line) when it cannot be had, e.g. tree-sitter in a
// binary built without it.
func (e *Env) engine(name string) extract.Extractor {
	x, err := extract.New(name)
	if err != nil {
		e.Log.Warn("signature extractor unavailable; using regex", zap.String("extract", name), zap.Error(err))
		return extract.NewRegex()
	}
	return x
}

// Config returns the effective configuration.
func (e *Env) Config() config.Config {
	e.cfgMu.RLock()
	defer e.cfgMu.RUnlock()
	return e.cfg
}

// SetConfig replaces the configuration.
func (e *Env) SetConfig(c config.Config) {
	e.cfgMu.Lock()
	old := e.cfg.Extract
	e.cfg = c
	e.cfgMu.Unlock()
	if c.Extract != old {
		x := e.engine(c.Extract)
		e.symMu.Lock()
		e.Extract = x
		e.syms = make(map[workspace.Key]symCache)
		e.symMu.Unlock()
	}
}

// Outcome is the envelope of every agent-facing answer (PROTOCOL section 5):
// ok, a message a model can act on, and the error kind when ok is false.
type Outcome struct {
	OK      bool        `json:"ok"`
	Message string      `json:"message,omitempty"`
	Error   result.Kind `json:"error,omitempty"`
}

// refusalOr sorts an error: invalid params and internal faults go back to
// the caller as errors (JSON-RPC errors, CLI exit 2); an agent-facing kind
// becomes a refusal the caller answers with.
func refusalOr(err error) (Outcome, error) {
	if k := result.KindOf(err); k == "" || k == result.InvalidParams {
		return Outcome{}, err
	}
	return Refusal(err), nil
}

// Refusal turns an error into an Outcome.
func Refusal(err error) Outcome {
	k := result.KindOf(err)
	if k == "" {
		k = "internal"
	}
	return Outcome{OK: false, Message: result.Message(err), Error: k}
}

// TextDocument names a document by URI, as LSP does.
type TextDocument struct {
	URI string `json:"uri"`
}

// Caller names who is asking: the session whose ledger a call reads and
// writes, and the agent role inside it.
type Caller struct {
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
}

// SessionOr returns the caller's session, or the default.
func (c Caller) SessionOr() string {
	if c.Session == "" {
		return "default"
	}
	return c.Session
}

// extractor returns the current signature extractor.
func (e *Env) extractor() extract.Extractor {
	e.symMu.Lock()
	defer e.symMu.Unlock()
	return e.Extract
}

// symbols returns the declarations of a document, extracted once per revision.
func (e *Env) symbols(d workspace.Doc) []extract.Symbol {
	lang := extract.Language(d.Path, d.Lang)
	if lang == "" {
		return nil
	}
	e.symMu.Lock()
	if c, ok := e.syms[d.Key]; ok && c.rev == d.Rev {
		e.symMu.Unlock()
		return c.syms
	}
	e.symMu.Unlock()
	n := d.Snap.LineCount()
	ls := make([]extract.Line, n)
	for i := 0; i < n; i++ {
		ls[i] = extract.Line{N: i + 1, Content: d.Snap.Line(i).Content}
	}
	syms := e.extractor().Extract(lang, ls)
	e.symMu.Lock()
	e.syms[d.Key] = symCache{rev: d.Rev, syms: syms}
	e.symMu.Unlock()
	return syms
}

// hintColdLimit is the largest document whose declarations a read extracts
// on the spot (a few milliseconds, once per revision). Larger ones are
// extracted in the background; until then their notices name nothing rather
// than guess from a cut-off range, where a docstring or block comment would
// make the extractor report names that are not declarations.
const hintColdLimit = 4 << 20

// symbolsIn returns the declarations starting inside r (1-based inclusive),
// from the document's symbols for this revision.
func (e *Env) symbolsIn(d workspace.Doc, r ledger.Range, max int) []extract.Symbol {
	if extract.Language(d.Path, d.Lang) == "" {
		return nil
	}
	syms := e.hintSymbols(d)
	var out []extract.Symbol
	for _, s := range syms {
		if s.Start >= r.Start && s.Start <= r.End {
			out = append(out, s)
		}
	}
	return out
}

// hintSymbols returns a document's declarations for hints: cached for this
// revision, else extracted now if the document is small enough, else none
// (and extracted in the background for next time).
func (e *Env) hintSymbols(d workspace.Doc) []extract.Symbol {
	e.symMu.Lock()
	c, cached := e.syms[d.Key]
	e.symMu.Unlock()
	switch {
	case cached && c.rev == d.Rev:
		return c.syms
	case d.Snap.Len() <= hintColdLimit:
		return e.symbols(d)
	}
	e.warm(d)
	return nil
}

// warm extracts a document's declarations in the background, one
// extraction per document at a time.
func (e *Env) warm(d workspace.Doc) {
	e.symMu.Lock()
	if e.warming == nil {
		e.warming = make(map[workspace.Key]int64)
	}
	if _, busy := e.warming[d.Key]; busy {
		// One extraction per document at a time: while typing in a huge file
		// the next round picks up the newest revision.
		e.symMu.Unlock()
		return
	}
	e.warming[d.Key] = d.Rev
	e.symMu.Unlock()
	go func() {
		defer func() {
			if r := recover(); r != nil {
				e.Log.Error("panic in signature extraction", zap.String("doc", string(d.Key)), zap.Any("panic", r))
			}
		}()
		e.symbols(d)
		e.symMu.Lock()
		if e.warming[d.Key] == d.Rev {
			delete(e.warming, d.Key)
		}
		e.symMu.Unlock()
	}()
}

// recordRead records lines shown to an agent and keeps the revision they
// were shown at, so refs copied from them can be checked against it.
func (e *Env) recordRead(session, agent string, d workspace.Doc, r ledger.Range) {
	e.Ledger.RecordRead(session, agent, ledger.DocKey(d.Key), d.Rev, r)
	e.WS.Pin(d.Key, d.Rev)
}

// recordWindow records lines shown as part of an edit's answer (a window,
// fresh refs, expanded or nearest lines): read, but not a read of their own.
func (e *Env) recordWindow(session, agent string, d workspace.Doc, r ledger.Range) {
	e.Ledger.RecordWindow(session, agent, ledger.DocKey(d.Key), d.Rev, r)
	e.WS.Pin(d.Key, d.Rev)
}
