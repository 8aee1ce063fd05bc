package engine

import (
	"cmp"
	"context"
	"slices"

	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// DocLedger is one document's ledger as agents and editors see it.
type DocLedger struct {
	URI        string         `json:"uri"`
	Path       string         `json:"path"`
	State      ledger.State   `json:"state"`
	Read       []ledger.Range `json:"read"`
	Authored   []ledger.Range `json:"authored"`
	Stale      []ledger.Range `json:"stale"`
	Unread     []ledger.Range `json:"unread"`
	TotalLines int            `json:"totalLines"`
	// LeftOut counts the ranges of each kind an answer's ledger left out
	// (see maxAnswerRanges); absent when it has them all, as sightline/ledger
	// always does.
	LeftOut *RangeCounts `json:"leftOut,omitempty"`
}

// RangeCounts is a number of ranges of each kind.
type RangeCounts struct {
	Read     int `json:"read"`
	Authored int `json:"authored"`
	Stale    int `json:"stale"`
	Unread   int `json:"unread"`
}

// maxAnswerRanges bounds the ranges of each kind the ledger in an answer
// (read, edit, write) carries: an agent reading every other line makes one
// range per read, and an answer repeating them all would grow with the
// session. The ones kept are those around the lines the call was about.
const maxAnswerRanges = 32

// LedgerParams are the params of sightline/ledger.
type LedgerParams struct {
	Caller
	TextDocument *TextDocument `json:"textDocument,omitempty"`
}

// LedgerResult is the answer of sightline/ledger.
type LedgerResult struct {
	Outcome
	Session   string      `json:"session"`
	Documents []DocLedger `json:"documents"`
}

// LedgerReport answers sightline/ledger: one document, or every document the
// session has touched.
func (e *Env) LedgerReport(ctx context.Context, p LedgerParams) (res LedgerResult, err error) {
	session := p.SessionOr()
	res = LedgerResult{Outcome: Outcome{OK: true}, Session: session, Documents: []DocLedger{}}
	if p.TextDocument != nil {
		if p.TextDocument.URI == "" {
			return res, result.Errorf(result.InvalidParams, "textDocument.uri is required when textDocument is given")
		}
		pl, err := e.WS.PlaceURI(p.TextDocument.URI)
		var d workspace.Doc
		if err == nil {
			d, err = e.admit(ctx, p.Caller, pl, reportAccess)
		}
		if err != nil {
			// A report shows no text, but the refusal is an admission
			// verdict, and every verdict is audited.
			res.Outcome, err = refusalOr(err)
			res.audit(auditRow{caller: p.Caller, path: pl.Rel})
			return res, err
		}
		res.Documents = append(res.Documents, *e.docLedger(session, d))
		return res, nil
	}
	for _, v := range e.Ledger.Docs(session) {
		k := workspace.Key(v.Doc)
		dl := fromView(v)
		dl.URI = string(k)
		dl.Path = e.WS.Rel(k)
		if d, ok := e.WS.Known(k); ok {
			dl.URI = d.URI
		}
		res.Documents = append(res.Documents, dl)
	}
	return res, nil
}

// ResetParams are the params of sightline/session/reset.
type ResetParams struct {
	Caller
}

// Reset forgets everything a session has read and written.
func (e *Env) Reset(ctx context.Context, p ResetParams) (Outcome, []workspace.Key) {
	session := p.SessionOr()
	var touched []workspace.Key
	for _, v := range e.Ledger.Docs(session) {
		touched = append(touched, workspace.Key(v.Doc))
	}
	e.Ledger.ResetSession(session)
	e.forgetApprovals(ctx, session)
	if e.db != nil {
		if err := e.db.DeleteSession(ctx, session); err != nil {
			e.Log.Error("reset persisted session", zap.String("session", session), zap.Error(err))
		}
	}
	o := Outcome{OK: true, Message: "Session " + session + " reset: no document counts as read."}
	o.audit(auditRow{caller: p.Caller}) // a call on the session's state, about no document
	return o, touched
}

// docLedger returns the ledger of one document for a session.
// An answer's ledger carries at most maxAnswerRanges of each kind, those
// around the lines of the call (the session's latest record of the document).
func (e *Env) docLedger(session string, d workspace.Doc) *DocLedger {
	v := e.Ledger.Doc(session, ledger.DocKey(d.Key))
	dl := fromView(v)
	dl.URI = d.URI
	dl.Path = d.Rel
	focus := 1
	if n := len(v.Records); n > 0 {
		focus = v.Records[n-1].Range.Start
	}
	var left RangeCounts
	dl.Read, left.Read = around(dl.Read, focus)
	dl.Authored, left.Authored = around(dl.Authored, focus)
	dl.Stale, left.Stale = around(dl.Stale, focus)
	dl.Unread, left.Unread = around(dl.Unread, focus)
	if left != (RangeCounts{}) {
		dl.LeftOut = &left
	}
	return &dl
}

// around returns at most maxAnswerRanges of sorted ranges, those nearest the
// line focus, and how many it left out.
func around(rs []ledger.Range, focus int) ([]ledger.Range, int) {
	if len(rs) <= maxAnswerRanges {
		return rs, 0
	}
	i, _ := slices.BinarySearchFunc(rs, focus, func(r ledger.Range, line int) int { return cmp.Compare(r.End, line) })
	lo := min(max(0, i-maxAnswerRanges/2), len(rs)-maxAnswerRanges)
	return rs[lo : lo+maxAnswerRanges], len(rs) - maxAnswerRanges
}

func fromView(v ledger.DocView) DocLedger {
	return DocLedger{
		State:      v.State,
		Read:       nonNil(v.Read),
		Authored:   nonNil(v.Authored),
		Stale:      nonNil(v.Stale),
		Unread:     nonNil(v.Unread),
		TotalLines: v.TotalLines,
	}
}

func nonNil(r []ledger.Range) []ledger.Range {
	if r == nil {
		return []ledger.Range{}
	}
	return r
}
