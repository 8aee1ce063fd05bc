package engine

import (
	"context"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/redact"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// SummaryParams are the params of sightline/summary.
type SummaryParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
	MaxChars     int          `json:"maxChars,omitempty"`
}

// SummaryResult is the answer of sightline/summary: the declarations and the
// head of the document.
type SummaryResult struct {
	Outcome
	URI          string           `json:"uri,omitempty"`
	Path         string           `json:"path,omitempty"`
	Language     string           `json:"language,omitempty"`
	TotalLines   int              `json:"totalLines"`
	Symbols      []extract.Symbol `json:"symbols"`
	Excerpt      string           `json:"excerpt"`
	ExcerptRange *ledger.Range    `json:"excerptRange"`
	// Redacted are the excerpt's lines whose secrets were masked: they do
	// not count as read (the agent did not see them as they are).
	Redacted []ledger.Range `json:"redacted,omitempty"`
}

// defaultExcerpt bounds the excerpt when maxChars is not given.
const defaultExcerpt = 2000

// Summary answers sightline/summary. The excerpt lines were shown, so they
// count as read.
func (e *Env) Summary(ctx context.Context, p SummaryParams) (res SummaryResult, err error) {
	res = SummaryResult{Symbols: []extract.Symbol{}}
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	if p.MaxChars < 0 {
		return res, result.Errorf(result.InvalidParams, "maxChars must not be negative")
	}
	max := p.MaxChars
	if max == 0 {
		max = defaultExcerpt
	}
	defer func() { res.audit(auditRow{caller: p.Caller, path: res.Path}) }()
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
	res.URI, res.Path = d.URI, d.Rel
	res.Language = extract.Language(d.Path, d.Lang)
	res.TotalLines = d.Snap.LineCount()
	env := redact.IsEnvFile(res.Path)
	if syms := e.syms.of(d); syms != nil {
		res.Symbols = make([]extract.Symbol, len(syms))
		for i, s := range syms {
			s.Signature = redact.String(s.Signature, env)
			res.Symbols[i] = s
		}
	}
	// Summaries are shown without asking, so secrets are masked, in every
	// file: a summary is an overview, never a way to read credentials.
	rd := redact.Redactor{Env: env}
	var buf []byte
	last := 0
	var masked []int
	for i := 1; i <= res.TotalLines; i++ {
		c := d.Snap.Line(i - 1).Content
		if i == 1 {
			_, c = hashline.StripBOM(c)
		}
		shown, changed := rd.Line(c)
		if utf8.RuneCount(buf)+utf8.RuneCountInString(shown)+1 > max {
			break
		}
		buf = append(append(buf, shown...), '\n')
		last = i
		if changed {
			masked = append(masked, i)
		}
	}
	res.Excerpt = string(buf)
	if last > 0 {
		r := ledger.Range{Start: 1, End: last}
		res.ExcerptRange = &r
		// Only the lines shown as they are count as read.
		from := 1
		for _, m := range append(masked, last+1) {
			if m > from {
				e.recordRead(p.SessionOr(), p.Agent, d, ledger.Range{Start: from, End: m - 1})
			}
			from = m + 1
		}
		for _, m := range masked {
			if n := len(res.Redacted); n > 0 && res.Redacted[n-1].End == m-1 {
				res.Redacted[n-1].End = m
			} else {
				res.Redacted = append(res.Redacted, ledger.Range{Start: m, End: m})
			}
		}
	}
	return res, nil
}

// OutlineSymbol is one declaration of the editor's outline: its lines
// (1-based, inclusive; the declaration starts on the first), the extractor's
// kind ("func", "class", ...), and the declarations it contains.
type OutlineSymbol struct {
	Name      string
	Kind      string
	Signature string
	Lines     ledger.Range
	Children  []OutlineSymbol
}

// DocumentSymbols is the editor's outline: declarations nested under their
// containers.
func (e *Env) DocumentSymbols(d workspace.Doc) []OutlineSymbol {
	syms := e.syms.of(d)
	out := []OutlineSymbol{}
	byName := map[string]int{} // container name → index in out
	n := d.Snap.LineCount()
	for _, s := range syms {
		if s.Start < 1 || s.Start > n {
			continue
		}
		end := s.End
		if end < s.Start || end > n {
			end = s.Start
		}
		o := OutlineSymbol{Name: s.Name, Kind: s.Kind, Signature: s.Signature, Lines: ledger.Range{Start: s.Start, End: end}}
		if i, ok := byName[s.Container]; ok && s.Container != "" {
			out[i].Children = append(out[i].Children, o)
			continue
		}
		byName[s.Name] = len(out)
		out = append(out, o)
	}
	return out
}
