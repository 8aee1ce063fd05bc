package engine

import (
	"context"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/redact"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// OutlineParams are the params of sightline/outline.
type OutlineParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
}

// OutlineEntry is one declaration of an outline: its qualified name (what
// a symbol read or edit takes), its kind, its lines with its doc comment
// (what a symbol read shows), and its signature line (Line): Signature is
// the extractor's (trimmed, cut at 200 characters). When the line is
// shown whole, Content is the line as a read shows it and Ref its
// LINE:HASH, and it counts as read; a line too long to show has neither,
// and its Signature's secrets are masked.
type OutlineEntry struct {
	Name      string         `json:"name"`
	Kind      string         `json:"kind"`
	Lines     ledger.Range   `json:"lines"`
	Line      int            `json:"line"`
	Signature string         `json:"signature"`
	Ref       string         `json:"ref,omitempty"`
	Content   string         `json:"content,omitempty"`
	Children  []OutlineEntry `json:"children,omitempty"`
}

// OutlineResult is the answer of sightline/outline.
type OutlineResult struct {
	Outcome
	URI        string         `json:"uri,omitempty"`
	Path       string         `json:"path,omitempty"`
	Language   string         `json:"language,omitempty"`
	TotalLines int            `json:"totalLines"`
	FileHash   string         `json:"fileHash,omitempty"`
	Symbols    []OutlineEntry `json:"symbols"`
}

// outlineLineMax is the longest signature line an outline shows whole;
// a longer one is shown cut, without a ref, and is not read.
const outlineLineMax = 240

// Outline answers sightline/outline: a document's declarations, nested,
// each with its lines and signature line. It records as read exactly the
// signature lines it shows whole.
func (e *Env) Outline(ctx context.Context, p OutlineParams) (res OutlineResult, err error) {
	res = OutlineResult{Symbols: []OutlineEntry{}}
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	defer func() { res.audit(auditRow{caller: p.Caller, path: res.Path, before: res.FileHash}) }()
	pl, err := e.WS.PlaceURI(p.TextDocument.URI)
	var d workspace.Doc
	if err == nil {
		d, err = e.admit(withGrants(ctx), p.Caller, pl, readAccess)
	}
	if err != nil {
		res.Path = pl.Rel
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	res.Outcome = Outcome{OK: true}
	res.URI, res.Path, res.FileHash = d.URI, d.Rel, d.FileHash()
	res.Language = extract.Language(d.Path, d.Lang)
	res.TotalLines = d.Snap.LineCount()
	if res.Language == "" {
		res.Message = res.Path + " is in no language whose declarations sightline knows; read it by lines."
		return res, nil
	}
	syms, q := e.syms.qualified(d)
	env := redact.IsEnvFile(res.Path)
	bom, _ := hashline.StripBOM(firstContent(d.Snap))
	line := func(n int) string { return d.Snap.Line(n - 1).Content }
	var shown ledger.RangeSet
	entries := make([]OutlineEntry, 0, len(syms))
	parent := make([]int, 0, len(syms)) // index into entries of the enclosing entry; -1 at the top
	var open []int
	for i, s := range syms {
		if s.Start < 1 || s.Start > res.TotalLines {
			continue
		}
		start, end := extract.Span(res.Language, s, line)
		o := OutlineEntry{Name: q[i], Kind: s.Kind, Lines: ledger.Range{Start: start, End: min(end, res.TotalLines)}, Line: s.Start}
		c := line(s.Start)
		if s.Start == 1 && bom != "" {
			_, c = hashline.StripBOM(c)
		}
		if len(c) <= outlineLineMax {
			// The line as a read shows it (the admission is a read's):
			// shown whole, it is read.
			o.Ref = hashline.Ref{Line: s.Start, Hash: lineHash(d.Snap, s.Start)}.String()
			o.Content, o.Signature = c, s.Signature
			shown.Add(ledger.Range{Start: s.Start, End: s.Start})
		} else {
			o.Signature = redact.String(s.Signature, env)
		}
		for len(open) > 0 && !(entries[open[len(open)-1]].Lines.End >= o.Line && entries[open[len(open)-1]].Line < o.Line) {
			open = open[:len(open)-1]
		}
		up := -1
		if len(open) > 0 {
			up = open[len(open)-1]
		}
		entries = append(entries, o)
		parent = append(parent, up)
		open = append(open, len(entries)-1)
	}
	// Children were appended after their parents: nest them bottom up.
	for i := len(entries) - 1; i >= 0; i-- {
		if up := parent[i]; up >= 0 {
			entries[up].Children = append([]OutlineEntry{entries[i]}, entries[up].Children...)
		}
	}
	for i, o := range entries {
		if parent[i] < 0 {
			res.Symbols = append(res.Symbols, o)
		}
	}
	if rs := shown.Ranges(); len(rs) > 0 {
		e.Ledger.RecordShownRanges(ledger.KindRead, p.SessionOr(), p.Agent, ledger.DocKey(d.Key), d.Rev, rs, sumOf(d.Snap))
		e.WS.Pin(d.Key, d.Rev)
	}
	return res, nil
}
