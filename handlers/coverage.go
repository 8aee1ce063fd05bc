package handlers

import (
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/workspace"
)

// CoverageParams is the sightline/coverage notification: what editor plugins
// draw as inline coverage highlights.
type CoverageParams struct {
	URI        string         `json:"uri"`
	Version    *int32         `json:"version"`
	Session    string         `json:"session"`
	State      ledger.State   `json:"state"`
	Read       []ledger.Range `json:"read"`
	Authored   []ledger.Range `json:"authored"`
	Stale      []ledger.Range `json:"stale"`
	TotalLines int            `json:"totalLines"`
}

// Coverage returns a session's coverage of one document.
func (e *Env) Coverage(session string, d workspace.Doc) CoverageParams {
	v := e.Ledger.Doc(session, ledger.DocKey(d.Key))
	c := CoverageParams{
		URI:        d.URI,
		Session:    session,
		State:      v.State,
		Read:       nonNil(v.Read),
		Authored:   nonNil(v.Authored),
		Stale:      nonNil(v.Stale),
		TotalLines: v.TotalLines,
	}
	if d.Open {
		ver := d.Version
		c.Version = &ver
	}
	return c
}
