package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/linediff"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// HistoryParams are the params of sightline/history.
type HistoryParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
}

// VersionInfo is one version of a file.
type VersionInfo struct {
	ID       int64     `json:"id"`
	Time     time.Time `json:"time"`
	FileHash string    `json:"fileHash"`
	Size     int64     `json:"size"`
	Session  string    `json:"session,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Method   string    `json:"method"`
}

// HistoryResult is the answer of sightline/history: the versions, oldest
// first, and the file's hash now.
type HistoryResult struct {
	Outcome
	URI      string        `json:"uri,omitempty"`
	Path     string        `json:"path,omitempty"`
	FileHash string        `json:"fileHash,omitempty"`
	Versions []VersionInfo `json:"versions"`
}

// versions returns the recorded versions of a path, after the writes still
// being recorded.
func (e *Env) versions(ctx context.Context, rel string) ([]store.Version, error) {
	if e.history.db == nil {
		return nil, nil
	}
	e.history.drain()
	return e.history.db.DB().Versions(ctx, rel)
}

// named is a document a call about its history names (its file may be
// gone, so it is placed, not loaded): where it is and the path answers
// give it; a URI that names nothing is invalid.
func (e *Env) named(uri string) (workspace.Place, error) {
	k, err := workspace.Normalize(uri)
	if err != nil {
		return workspace.Place{}, result.Wrap(result.InvalidParams, err, err.Error())
	}
	return e.WS.Place(k), nil
}

// History lists the versions sightline kept of a document.
func (e *Env) History(ctx context.Context, p HistoryParams) (res HistoryResult, err error) {
	res.Versions = []VersionInfo{}
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	defer func() { res.audit(auditRow{caller: p.Caller, path: res.Path, before: res.FileHash}) }()
	pl, err := e.named(p.TextDocument.URI)
	if err != nil {
		return res, err
	}
	res.URI, res.Path = p.TextDocument.URI, pl.Rel
	if _, err := e.admit(ctx, p.Caller, pl, nameAccess); err != nil {
		res.Outcome = Refusal(err)
		return res, nil
	}
	if d, err := e.admit(ctx, p.Caller, pl, againAccess); err == nil { // its file may be gone
		res.FileHash = d.FileHash()
	}
	vs, err := e.versions(ctx, res.Path)
	if err != nil {
		return res, err
	}
	for _, v := range vs {
		res.Versions = append(res.Versions, VersionInfo{ID: v.ID, Time: v.Time, FileHash: v.Hash, Size: v.Size, Session: v.Session, Agent: v.Agent, Method: v.Method})
	}
	res.OK = true
	switch {
	case e.history.db == nil:
		res.Message = "No history: the state database is not open."
	case len(vs) == 0:
		res.Message = fmt.Sprintf("sightline has written no version of %s.", res.Path)
	default:
		res.Message = fmt.Sprintf("%d versions of %s.", len(vs), res.Path)
	}
	return res, nil
}

// DiffParams are the params of sightline/diff: two versions, each a version
// id or "current" (the document's text now). From defaults to the version
// before the latest, To to "current".
type DiffParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
	From         string       `json:"from,omitempty"`
	To           string       `json:"to,omitempty"`
}

// DiffResult is the answer of sightline/diff.
type DiffResult struct {
	Outcome
	URI  string `json:"uri,omitempty"`
	Path string `json:"path,omitempty"`
	From string `json:"from"`
	To   string `json:"to"`
	Diff string `json:"diff"`
}

// Diff answers the unified diff between two versions of a document. Its
// lines do not count as read: they are not hashline-annotated.
func (e *Env) Diff(ctx context.Context, p DiffParams) (res DiffResult, err error) {
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	ctx = withGrants(ctx)
	defer func() { res.audit(auditRow{caller: p.Caller, path: res.Path, args: []byte(p.From + ".." + p.To)}) }()
	pl, err := e.named(p.TextDocument.URI)
	if err != nil {
		return res, err
	}
	k := pl.Key
	res.URI, res.Path = p.TextDocument.URI, pl.Rel
	if _, err := e.admit(ctx, p.Caller, pl, versionsAccess); err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	vs, err := e.versions(ctx, res.Path)
	if err != nil {
		return res, err
	}
	res.From, res.To = p.From, p.To
	if res.To == "" {
		res.To = "current"
	}
	if res.From == "" {
		switch {
		case len(vs) >= 2:
			res.From = strconv.FormatInt(vs[len(vs)-2].ID, 10)
		case len(vs) == 1:
			res.From = strconv.FormatInt(vs[0].ID, 10)
		default:
			res.Outcome = Refusal(result.Errorf(result.NotFound, "sightline has kept no version of %s to diff against.", res.Path))
			return res, nil
		}
	}
	from, err := e.versionText(ctx, p.Caller, k, res.Path, res.From)
	if err == nil {
		var to string
		if to, err = e.versionText(ctx, p.Caller, k, res.Path, res.To); err == nil {
			res.Diff = textDiff(res.Path, from, to)
		}
	}
	if err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	res.OK = true
	if res.Diff == "" {
		res.Message = fmt.Sprintf("%s is the same in %s and %s.", res.Path, res.From, res.To)
	}
	return res, nil
}

// versionText returns a version's text: "current" is the document now.
func (e *Env) versionText(ctx context.Context, c Caller, k workspace.Key, rel, v string) (string, error) {
	if v == "current" {
		// Its text is shown: admitted as a read's, by the file too (its
		// name was judged with the versions).
		pl, err := e.WS.PlaceURI(string(k))
		var d workspace.Doc
		if err == nil {
			d, err = e.admit(ctx, c, pl, readAccess)
		}
		if err != nil {
			return "", err
		}
		return d.Snap.Text(), nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return "", result.Errorf(result.InvalidParams, "version %q is neither a version id nor \"current\"", v)
	}
	if e.history.db == nil {
		return "", result.Errorf(result.NotFound, "No history: the state database is not open.")
	}
	e.history.drain()
	text, err := e.history.db.DB().VersionText(ctx, rel, id)
	if errors.Is(err, store.ErrNoVersion) {
		return "", result.Errorf(result.NotFound, "%s has no version %d; sightline history lists them.", rel, id)
	}
	return string(text), err
}

// lineHunks diffs two line lists exactly (each distinct line, terminator
// included, gets its own number).
func lineHunks(a, b []lines.Line) []linediff.Hunk {
	ids := map[lines.Line]uint32{}
	num := func(ls []lines.Line) []uint32 {
		out := make([]uint32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = uint32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return linediff.Diff(num(a), num(b))
}

// splicesOf turns hunks into splices of a, taking the new lines from b.
func splicesOf(hs []linediff.Hunk, b []lines.Line) []hashline.Splice {
	out := make([]hashline.Splice, len(hs))
	for i, h := range hs {
		out[i] = hashline.Splice{Start: h.A, Old: h.Del, New: b[h.B : h.B+h.Ins]}
	}
	return out
}

func textDiff(name, from, to string) string {
	a, b := lines.Split(from), lines.Split(to)
	return hashline.UnifiedDiff(name, hashline.TextSource(from), splicesOf(lineHunks(a, b), b), 3)
}

// RollbackParams are the params of sightline/rollback.
type RollbackParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
	Version      int64        `json:"version"`
	DryRun       bool         `json:"dryRun,omitempty"`
}

// RollbackResult is the answer of sightline/rollback, shaped as an edit's.
type RollbackResult struct {
	Outcome
	URI      string     `json:"uri,omitempty"`
	Path     string     `json:"path,omitempty"`
	Version  *int32     `json:"version"`
	FileHash string     `json:"fileHash,omitempty"`
	Applied  bool       `json:"applied"`
	DryRun   bool       `json:"dryRun,omitempty"`
	Diff     string     `json:"diff,omitempty"`
	Ledger   *DocLedger `json:"ledger,omitempty"`
	GuardRefusal
}

// Rollback makes a document's text a recorded version again, through the
// guard and the write transaction like any write (an open document receives
// a workspace edit). The lines it changes must have been read.
func (e *Env) Rollback(ctx context.Context, p RollbackParams) (res RollbackResult, err error) {
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	if p.Version <= 0 {
		return res, result.Errorf(result.InvalidParams, "version must be a version id from sightline/history")
	}
	ctx = withGrants(ctx)
	var out writeOut
	defer func() {
		res.audit(auditRow{caller: p.Caller, path: res.Path, before: out.before.FileHashIfKnown(), after: res.FileHash, guard: out.verdict.Name, args: []byte(strconv.FormatInt(p.Version, 10))})
	}()
	pl, err := e.named(p.TextDocument.URI)
	if err != nil {
		return res, err
	}
	k := pl.Key
	res.URI, res.Path = p.TextDocument.URI, pl.Rel
	if _, err := e.admit(ctx, p.Caller, pl, nameAccess); err != nil {
		res.Outcome = Refusal(err)
		return res, nil
	}
	text, err := e.versionText(ctx, p.Caller, k, res.Path, strconv.FormatInt(p.Version, 10))
	if err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	target := lines.Split(text)
	out, err = e.transact(ctx, writeReq{caller: p.Caller, uri: p.TextDocument.URI, dryRun: p.DryRun,
		plan: func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
			n := d.Snap.LineCount()
			cur := make([]lines.Line, n)
			for i := range cur {
				cur[i] = d.Snap.Line(i)
			}
			hs := lineHunks(cur, target)
			var targets []ledger.Range
			var tr []hashline.LineRange
			for _, h := range hs {
				r := ledger.Range{Start: h.A + 1, End: h.A + h.Del}
				if h.Del == 0 { // an insertion: its anchor is the line before
					if n == 0 {
						continue
					}
					r = ledger.Range{Start: max(h.A, 1), End: max(h.A, 1)}
				}
				targets = append(targets, r)
				tr = append(tr, hashline.LineRange{Start: r.Start, End: r.End})
			}
			return hashline.NewPlan(n, splicesOf(hs, target), tr), targets, nil
		}})
	if out.before.Snap != nil {
		res.URI = out.before.URI
	}
	res.Warnings = append(res.Warnings, out.warnings...)
	if err != nil {
		res.GuardRefusal = out.verdict.GuardRefusal
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	res.Diff = out.diff
	session := p.SessionOr()
	switch {
	case out.noop:
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("%s already is version %d; nothing was written.", res.Path, p.Version), Warnings: res.Warnings}
		res.FileHash, res.Version = out.before.FileHash(), versionOf(out.before)
	case p.DryRun:
		res.DryRun = true
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Dry run: rolling %s back to version %d would change it as the diff shows; nothing was written.", res.Path, p.Version), Warnings: res.Warnings}
	default:
		res.Applied = true
		res.FileHash, res.Version = out.after.FileHash(), versionOf(out.after)
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Rolled %s back to version %d.", res.Path, p.Version), Warnings: res.Warnings}
		res.Ledger = e.docLedger(session, out.after)
	}
	return res, nil
}
