// Package engine is sightline's engine: the session's state (Env) and its
// features, one file each (the read path, the ledger report, what the
// editor is shown: diagnostics, coverage, code lens, hover), the admission
// step and the write transaction. The operations of package ops call them
// for every door; they speak the agent-facing JSON shapes of PROTOCOL
// section 6 and plain Go values (1-based line ranges) for what the editor
// shows, and leave transport to their callers: package server alone
// converts to LSP types.
package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/pathlock"
	"github.com/sightline-lsp/sightline/policy"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/statedb"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// Env is what every feature works on: the engines and the state they share,
// each piece with one owner and one lock, all set at construction. Its
// methods are the features (one file each); they hold no state of their own.
type Env struct {
	WS     *workspace.Workspace
	Ledger *ledger.Ledger
	Log    *zap.Logger

	db       *statedb.Sync // the ledger's database; nil when it lives in memory only
	exits    bool          // the process exits at Close: the database is left to it
	settings *settings
	reload   func() config.Config // reads the configuration again (Refresh); nil: never
	syms     *symbols
	audits   *auditLog
	locks    docLocks
	health   *health

	approver  Approver        // asks the user about sensitive paths; nil: nobody to ask
	approvals *approvalMemory // session approvals when there is no database
	history   *historyLog
	hashes    hashCache // the registry's file hashes
	trees     treeCache // the registry's walks, while the editor watches files
	follow    *follower // applies the workspace's changes to the ledger
	notices   []string  // warnings every answer carries (Options.Notices)
	tx        *txn      // carries the writes out
}

// settings is the effective configuration, replaced whole, with its
// compiled path policy.
type settings struct {
	mu       sync.RWMutex
	cfg      config.Config
	pol      *policy.Policy
	warnings []string // the configuration's problems, as every answer says them
	log      *zap.Logger
}

func (s *settings) get() config.Config {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cfg
}

func (s *settings) policy() *policy.Policy {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.pol
}

func (s *settings) set(c config.Config) (old config.Config) {
	pol, warnings := compiledPolicy(c, s.log), configWarnings(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, s.cfg, s.pol, s.warnings = s.cfg, c, pol, warnings
	return old
}

func (s *settings) problems() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.warnings
}

func newEnv(ws *workspace.Workspace, l *ledger.Ledger, db *statedb.Sync, ed Editor, cfg config.Config, log *zap.Logger, lockDir string) *Env {
	if log == nil {
		log = zap.NewNop()
	}
	// One worker writes the audit and the history: SQLite has one writer at
	// a time, and two workers would wait for each other's lock in sleeps.
	dbw := &behind{}
	e := &Env{
		WS: ws, Ledger: l, Log: log, db: db,
		settings:  &settings{cfg: cfg, pol: compiledPolicy(cfg, log), warnings: configWarnings(cfg), log: log},
		syms:      newSymbols(cfg.Extract, log),
		audits:    &auditLog{behind: dbw, db: db, log: log},
		health:    &health{},
		approvals: &approvalMemory{},
		history:   &historyLog{behind: dbw, db: db, log: log},
		follow:    &follower{ws: ws, l: l, db: db, notify: func(workspace.Key) {}},
	}
	e.audits.retain, e.history.retain = e.retain, e.retain
	e.tx = &txn{WS: ws, Ledger: l, Log: log, db: db, editor: ed, paths: pathlock.New(lockDir), history: e.history,
		follow: e.follow, trees: &e.trees, config: e.Config}
	ws.SetGate(e.gate)
	ws.SetEncodings(cfg.Charsets())
	return e
}

// Config returns the effective configuration.
func (e *Env) Config() config.Config { return e.settings.get() }

// SetConfig replaces the configuration.
func (e *Env) SetConfig(c config.Config) {
	if old := e.settings.set(c); old.Extract != c.Extract {
		e.syms.setEngine(c.Extract)
	}
	e.WS.SetEncodings(c.Charsets())
}

// Outcome is the envelope of every agent-facing answer (PROTOCOL section 5):
// ok, a message a model can act on, and the error kind when ok is false.
type Outcome struct {
	OK      bool        `json:"ok"`
	Message string      `json:"message,omitempty"`
	Error   result.Kind `json:"error,omitempty"`
	// Warnings are what the agent or user should know that did not stop the
	// call: a ledger that cannot be saved, a document out of sync.
	Warnings []string `json:"warnings,omitempty"`
	// Text is the answer rendered for an agent, as every door shows it
	// (package ops renders it); sent when the call asks for it (render).
	Text string `json:"text,omitempty"`

	// rows are the call's audit rows as its feature says them, written by
	// the envelope (Env.Finish), not sent.
	rows []auditRow
}

// Envelope is the outcome of a result embedding it: how the one envelope
// around every operation (package ops) reaches the outcome of any result.
func (o *Outcome) Envelope() *Outcome { return o }

// auditRow is one row a call leaves in the audit log (PROTOCOL section 8):
// the feature that ran the call fills it in its outcome (Outcome.audit),
// the envelope writes it (Env.Finish), so no feature writes the log.
type auditRow struct {
	caller Caller
	// path names the document as answers do; "" for a call about none.
	path string
	// before and after are the file's hashes around the call.
	before, after string
	// guard is the edit guard's verdict (Verdict.Name), or what a shown
	// call counted (read, authored).
	guard string
	// args are the call's arguments, kept as their digest.
	args []byte
	// doc is the document the call is about, as admitted: one out of sync
	// with the editor is warned of in the answer (Outcome.audit keeps
	// only its warning, desync).
	doc    workspace.Doc
	desync string
	// verdict is the row's own when it is not the answer's (an edit
	// block's, a patched file's); nil: the answer's.
	verdict *Outcome
}

// audit adds a row to the call's audit (Env.Finish writes it).
func (o *Outcome) audit(a auditRow) {
	if d := a.doc; d.Desync != "" {
		a.desync = desyncWarning(d.Rel, d.Desync)
	}
	a.doc = workspace.Doc{} // its text is not kept with the answer
	o.rows = append(o.rows, a)
}

// Finish is the envelope's one step after any call, whichever door it came
// through: it writes the audit rows the call's feature left in its outcome,
// each once (they are taken out), and adds the warnings every answer
// carries. took is how long the call ran. Package ops runs it for every
// operation; a streamed edit-block run, outside that envelope, runs it
// itself (Blocks).
func (e *Env) Finish(ctx context.Context, o *Outcome, took time.Duration) {
	rows := o.rows
	o.rows = nil
	var args []byte
	var dig string
	for _, a := range rows {
		v := *o
		if a.verdict != nil {
			v = *a.verdict
		}
		// The rows of one call often share its arguments (a patch's): one
		// digest for them all.
		if len(a.args) == 0 || len(args) != len(a.args) || &args[0] != &a.args[0] {
			args, dig = a.args, digest(a.args)
		}
		e.writeRow(ctx, a, v, took, dig)
	}
	e.annotate(o, rows)
}

// annotate adds an answer's warnings, each once: those every answer
// carries (the process's notices, a ledger database that cannot be used,
// the configuration's problems) and those of the documents it is about
// that are out of sync with the editor.
func (e *Env) annotate(o *Outcome, rows []auditRow) {
	for _, a := range rows {
		if a.desync != "" {
			o.addWarning(a.desync)
		}
	}
	for _, w := range e.notices {
		o.addWarning(w)
	}
	for _, w := range e.persistenceWarnings() {
		o.addWarning(w)
	}
	for _, w := range e.settings.problems() {
		o.addWarning(w)
	}
}

func (o *Outcome) addWarning(w string) {
	if !slices.Contains(o.Warnings, w) {
		o.Warnings = append(o.Warnings, w)
	}
}

// desyncWarning tells the agent that the server's copy of an open document
// may differ from the editor's buffer, and what fixes it.
func desyncWarning(path, reason string) string {
	return fmt.Sprintf("%s is out of sync with the editor (%s): sightline's copy may differ from the buffer, and edits to it are refused. Close and reopen the file in the editor (or reload it), then read it again.", path, reason)
}

// checkInSync refuses a write to a document whose text may not be the
// editor's: editing it could land anywhere.
func (e *Env) checkInSync(d workspace.Doc) error {
	if d.Desync == "" {
		return nil
	}
	return result.Errorf(result.VersionConflict, "%s is out of sync with the editor (%s), so the edit was not applied. Close and reopen the file in the editor (or reload it), then read it again and retry.", d.Rel, d.Desync)
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

// methodKey holds the operation a call runs as (WithMethod).
type methodKey struct{}

// WithMethod says which operation a call runs as (sightline/edit): its
// audit rows and history versions name it. The operation table's envelope
// sets it for every call, so the engine names no operation itself.
func WithMethod(ctx context.Context, method string) context.Context {
	return context.WithValue(ctx, methodKey{}, method)
}

// MethodOf is the operation a call runs as; "" outside the envelope.
func MethodOf(ctx context.Context) string {
	m, _ := ctx.Value(methodKey{}).(string)
	return m
}

// Caller names who is asking: the session whose ledger a call reads and
// writes, and the agent role inside it.
type Caller struct {
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Rendering
}

// Rendering is the params' ask for the answer's text (Outcome.Text), as
// the editors' agent tools show it; every operation's params carry it.
type Rendering struct {
	Render bool `json:"render,omitempty"`
}

// Rendered reports whether the caller asked for the answer's text.
func (r Rendering) Rendered() bool { return r.Render }

// Who is the caller, for params that embed it.
func (c Caller) Who() Caller { return c }

// RefusalBy is Refusal for a call refused before any engine ran it (a
// server gone mid-call, one that does not answer a write): the outcome
// holds its audit rows, one per document (paths as answers name them), or
// one about none, so the envelope (Finish) audits it as any refusal.
func RefusalBy(err error, c Caller, paths ...string) Outcome {
	o := Refusal(err)
	if len(paths) == 0 {
		paths = []string{""}
	}
	for _, p := range paths {
		o.audit(auditRow{caller: c, path: p})
	}
	return o
}

// SessionOr returns the caller's session, or the default.
func (c Caller) SessionOr() string {
	if c.Session == "" {
		return "default"
	}
	return c.Session
}

// recordRead records lines shown to an agent and keeps the revision they
// were shown at, so refs copied from them can be checked against it.
func (e *Env) recordRead(session, agent string, d workspace.Doc, r ledger.Range) {
	e.Ledger.RecordShown(ledger.KindRead, session, agent, ledger.DocKey(d.Key), d.Rev, r, sumOf(d.Snap))
	e.WS.Pin(d.Key, d.Rev)
}

// freshRefs hands the agent lines rs of d (merged, in order) as refs and
// records them as read: the answer that carries them shows them.
func (e *Env) freshRefs(session, agent string, d workspace.Doc, rs ...ledger.Range) []string {
	var shown ledger.RangeSet
	for _, r := range rs {
		if r.Start <= r.End {
			shown.Add(r)
		}
	}
	bom, _ := hashline.StripBOM(firstContent(d.Snap))
	var out []string
	for _, r := range shown.Ranges() {
		for i := r.Start; i <= r.End; i++ {
			out = append(out, string(hashline.AppendLine(nil, i, shownContent(d.Snap, i, bom))))
		}
		e.recordWindow(session, agent, d, r)
	}
	return out
}

// sumOf gives the hashes of a text's lines the ledger keeps with what it
// was shown: a ref is checked against the line as shown, whether or not the
// workspace still keeps that text.
func sumOf(s *textdoc.Snapshot) ledger.SumFunc {
	return func(line int) uint32 { return hashline.LineSum(line, s.Line(line-1).Content) }
}

// recordWindow records lines shown as part of an edit's answer (a window,
// fresh refs, expanded or nearest lines): read, but not a read of their own.
func (e *Env) recordWindow(session, agent string, d workspace.Doc, r ledger.Range) {
	e.Ledger.RecordShown(ledger.KindWindow, session, agent, ledger.DocKey(d.Key), d.Rev, r, sumOf(d.Snap))
	e.WS.Pin(d.Key, d.Rev)
}

// plural words a count in answers: one, or many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
