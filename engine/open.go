package engine

import (
	"context"
	"fmt"

	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// OpenParams are the params of sightline/open: show a document in the
// editor, at a line.
type OpenParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
	Line         int          `json:"line,omitempty"` // 1-based; 0 for the top
}

// OpenResult is the answer of sightline/open.
type OpenResult struct {
	Outcome
	Path string `json:"path,omitempty"`
}

// Shower is an editor that can show a document (window/showDocument).
type Shower interface {
	ShowDocument(ctx context.Context, uri string, line int) (bool, error)
}

// Open asks the editor to show a document: only a language server connected
// to an editor that can show documents has one to ask.
func (e *Env) Open(ctx context.Context, p OpenParams, ed Shower) (res OpenResult, err error) {
	defer func() { res.audit(auditRow{caller: p.Caller, path: res.Path}) }()
	pl, err := e.WS.PlaceURI(p.TextDocument.URI)
	var d workspace.Doc
	if err == nil {
		d, err = e.admit(ctx, p.Caller, pl, reportAccess)
	}
	res.Path = pl.Rel
	if err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	res.Path = d.Rel
	if p.Line < 0 || p.Line > max(d.Snap.LineCount(), 1) {
		return res, result.Errorf(result.InvalidParams, "line %d is not in %s (%d lines)", p.Line, res.Path, d.Snap.LineCount())
	}
	if ed == nil {
		res.Outcome = Refusal(result.Errorf(result.NotFound, "No editor that can show documents is connected: open %s yourself.", res.Path))
		return res, nil
	}
	shown, err := ed.ShowDocument(ctx, d.URI, p.Line)
	switch {
	case err != nil:
		res.Outcome = Refusal(result.Errorf(result.VersionConflict, "The editor did not show %s (%v); open it yourself.", res.Path, err))
		return res, nil
	case !shown:
		res.Outcome = Refusal(result.Errorf(result.VersionConflict, "The editor declined to show %s; open it yourself.", res.Path))
		return res, nil
	}
	res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("The editor shows %s at line %d.", res.Path, max(p.Line, 1))}
	return res, nil
}
