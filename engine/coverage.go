package engine

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
	// Changed, when set, makes the notification a change of the last one
	// sent for the document: the lines in Changed are read, authored or
	// stale as Read, Authored and Stale (which lie within it) say, and the
	// lines outside it keep what they had. Only clients that ask for changes
	// get them.
	Changed *ledger.Range `json:"changed,omitempty"`
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

// CoverageChange returns cur as a change of prev, the last coverage sent for
// the document: the ranges of every kind within the lines where any kind
// differs, so that what is sent grows with the change, not with the ranges
// the session gathered. It reports false when nothing differs. Coverage of
// another session is whole.
func CoverageChange(prev, cur CoverageParams) (CoverageParams, bool) {
	if prev.Session != cur.Session || prev.URI != cur.URI {
		return cur, true
	}
	var w ledger.Range
	differs := false
	for _, k := range [][2][]ledger.Range{{prev.Read, cur.Read}, {prev.Authored, cur.Authored}, {prev.Stale, cur.Stale}} {
		if d, ok := ledger.Differ(k[0], k[1]); ok {
			if !differs {
				w = d
			}
			w = ledger.Range{Start: min(w.Start, d.Start), End: max(w.End, d.End)}
			differs = true
		}
	}
	sameVersion := (prev.Version == nil) == (cur.Version == nil) && (prev.Version == nil || *prev.Version == *cur.Version)
	if !differs && prev.State == cur.State && prev.TotalLines == cur.TotalLines && sameVersion {
		return CoverageParams{}, false
	}
	if !differs {
		w = ledger.Range{Start: 1, End: 0} // no line changed
	}
	c := cur
	c.Changed = &w
	c.Read = ledger.Within(cur.Read, w)
	c.Authored = ledger.Within(cur.Authored, w)
	c.Stale = ledger.Within(cur.Stale, w)
	return c, true
}
