package engine

import (
	"context"
	"fmt"
	"iter"
	"unicode/utf8"
	"unsafe"

	"github.com/sightline-lsp/sightline/extract"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/internal/hugepage"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// ReadParams are the params of sightline/read (PROTOCOL section 6).
type ReadParams struct {
	Caller
	TextDocument TextDocument  `json:"textDocument"`
	Range        *ledger.Range `json:"range,omitempty"`
	// Symbol reads a declaration instead of a range: its name, qualified
	// by its containers where needed ("Name", "Class.method").
	Symbol   string `json:"symbol,omitempty"`
	Annotate *bool  `json:"annotate,omitempty"`
	Budget   *struct {
		Chars int `json:"chars"`
	} `json:"budget,omitempty"`
}

// ReadResult is the answer of sightline/read.
type ReadResult struct {
	Outcome
	URI        string        `json:"uri,omitempty"`
	Path       string        `json:"path,omitempty"`
	Content    string        `json:"content"`
	Range      *ledger.Range `json:"range"` // the lines returned; null when none
	TotalLines int           `json:"totalLines"`
	Version    *int32        `json:"version"` // the editor buffer's version; null for a file on disk
	FileHash   string        `json:"fileHash,omitempty"`
	Truncated  bool          `json:"truncated"`
	Notice     string        `json:"notice,omitempty"`
	Ledger     *DocLedger    `json:"ledger,omitempty"`
}

// SplitText lets result.Write quote the content of a whole-file read
// straight to its writer.
func (r ReadResult) SplitText() (rest any, name, text string) {
	text, r.Content = r.Content, ""
	return r, "content", text
}

// JoinText takes the content back (result.UnmarshalApart): a whole-file
// read through the bridge carries it apart from its JSON.
func (r *ReadResult) JoinText(text string) { r.Content = text }

// maxHints bounds how many declarations a notice or diagnostic names.
const maxHints = 8

// Read returns whole lines of a document, hashline-annotated by default,
// within a character budget, and records in the ledger exactly the lines it
// returned. A refusal is a result with ok=false, not an error; the error
// return is for invalid params only.
func (e *Env) Read(ctx context.Context, p ReadParams) (res ReadResult, err error) {
	budget, annotate, err := e.readOptions(p)
	if err != nil {
		return ReadResult{}, err
	}
	session := p.SessionOr()
	var d workspace.Doc
	defer func() { res.audit(auditRow{caller: p.Caller, path: res.Path, before: res.FileHash, doc: d}) }()

	pl, err := e.WS.PlaceURI(p.TextDocument.URI)
	if err == nil {
		d, err = e.admit(withGrants(ctx), p.Caller, pl, readAccess)
	}
	if err != nil {
		o, err := refusalOr(err)
		return ReadResult{Outcome: o, URI: p.TextDocument.URI, Path: pl.Rel}, err
	}
	total := d.Snap.LineCount()
	res = ReadResult{
		Outcome:    Outcome{OK: true},
		URI:        d.URI,
		Path:       d.Rel,
		TotalLines: total,
		FileHash:   d.FileHash(),
	}
	if d.Open {
		v := d.Version
		res.Version = &v
	}

	want := ledger.Range{Start: 1, End: total}
	if p.Range != nil {
		want = *p.Range
		if want.End > total {
			want.End = total
		}
	}
	if p.Symbol != "" {
		if want, err = e.declaration(d, p.Symbol); err != nil {
			// Several declarations or none: the answer names them, and
			// nothing is read.
			res.Outcome = Refusal(err)
			res.Ledger = e.docLedger(session, d)
			return res, nil
		}
	}
	if total == 0 || want.Start > total {
		if total > 0 {
			res.OK = false
			res.Error = result.InvalidParams
			res.Message = fmt.Sprintf("Line %d is past the end: %s has %d lines.", p.Range.Start, res.Path, total)
			return res, nil
		}
		// An empty document: reading it is reading all of it.
		e.recordRead(session, p.Agent, d, ledger.Range{Start: 1, End: 0})
		res.Message = fmt.Sprintf("%s is empty.", res.Path)
		res.Ledger = e.docLedger(session, d)
		return res, nil
	}

	buf, last, err := fillRead(ctx, want, budget, annotate, min(budget+64, renderSize(d.Snap, want, annotate)), e.health.ephemeral,
		snapLines(d.Snap, want))
	if err != nil {
		return ReadResult{}, err
	}
	// buf is never written again: share it instead of copying a read that
	// may be the whole budget (the copy showed in the read's tail latency).
	res.Content = unsafe.String(unsafe.SliceData(buf), len(buf))
	if last >= want.Start {
		got := ledger.Range{Start: want.Start, End: last}
		res.Range = &got
		e.recordRead(session, p.Agent, d, got)
	}
	if last < want.End {
		res.Truncated = true
		cut := ledger.Range{Start: last + 1, End: want.End}
		res.Notice = e.notice(d, cut, budget)
	}
	res.Ledger = e.docLedger(session, d)
	return res, nil
}

// readOptions checks a read's params: the budget in characters and whether
// lines are annotated.
func (e *Env) readOptions(p ReadParams) (budget int, annotate bool, err error) {
	if p.TextDocument.URI == "" {
		return 0, false, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	budget = e.Config().ReadBudget
	if p.Budget != nil {
		if p.Budget.Chars <= 0 {
			return 0, false, result.Errorf(result.InvalidParams, "budget.chars must be positive, not %d", p.Budget.Chars)
		}
		budget = p.Budget.Chars
	}
	if p.Range != nil && p.Symbol != "" {
		return 0, false, result.Errorf(result.InvalidParams, "give range or symbol, not both")
	}
	if p.Range != nil && (p.Range.Start < 1 || p.Range.End < p.Range.Start) {
		return 0, false, result.Errorf(result.InvalidParams, "range must be 1-based with start <= end, not %d-%d", p.Range.Start, p.Range.End)
	}
	return budget, p.Annotate == nil || *p.Annotate, nil
}

// fillRead renders lines want.Start..want.End, whose contents the sequence
// yields in order, as a read shows them, within budget characters; last is
// the last line rendered (want.Start-1 when none fit; short of want.End
// also when the sequence ends early). sizeHint is the room the output is
// likely to take. Every read path renders through it, so what is shown and
// recorded never differs by path.
func fillRead(ctx context.Context, want ledger.Range, budget int, annotate bool, sizeHint int, huge bool, contents iter.Seq[string]) (buf []byte, last int, err error) {
	buf = hugepage.Bytes(sizeHint, huge)
	w := hashline.NewLineWriter(want.Start)
	// The budget counts characters. Bytes bound characters from above, so
	// until the bytes reach the budget nothing needs counting; from then on
	// characters are counted line by line.
	used, last, counting := 0, want.Start-1, false
	i := want.Start
	for content := range contents {
		if i > want.End {
			break
		}
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		if i == 1 {
			// A byte order mark is not content: not shown, not hashed.
			_, content = hashline.StripBOM(content)
		}
		mark := len(buf)
		if annotate {
			buf = w.Append(buf, content)
		} else {
			buf = append(append(buf, content...), '\n')
		}
		if !counting && len(buf) > budget {
			counting, used = true, utf8.RuneCount(buf[:mark])
		}
		if counting {
			n := utf8.RuneCount(buf[mark:])
			if used+n > budget {
				buf = buf[:mark]
				break
			}
			used += n
		}
		last = i
		i++
	}
	return buf, last, nil
}

// snapLines yields the contents of lines want.Start..want.End of s, which
// holds them: one walk down the tree, not a lookup per line.
func snapLines(s *textdoc.Snapshot, want ledger.Range) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, l := range s.Lines(want.Start-1, want.End) {
			if !yield(l.Content) {
				return
			}
		}
	}
}

// renderSize is the room lines want.Start..want.End of s take rendered: at
// most their bytes (a terminator becomes one '\n', the last line may gain
// one), plus the annotations.
func renderSize(s *textdoc.Snapshot, want ledger.Range, annotate bool) int {
	n := s.LineStart(want.End) - s.LineStart(want.Start-1) + 1
	if annotate {
		n += hashline.Overhead(want.Start, want.End)
	}
	return n
}

// notice describes lines a read did not return: which, and what they contain.
func (e *Env) notice(d workspace.Doc, cut ledger.Range, budget int) string {
	what := fmt.Sprintf("Lines %d-%d truncated", cut.Start, cut.End)
	if cut.Start == cut.End {
		what = fmt.Sprintf("Line %d truncated", cut.Start)
	}
	if hint := extract.Summary(e.syms.in(d, cut), maxHints); hint != "" {
		what += " — contains: " + hint
	}
	first := utf8.RuneCountInString(d.Snap.Line(cut.Start - 1).Content)
	if first+16 > budget {
		what += fmt.Sprintf("; line %d alone is %d characters, over the %d-character budget: read it with a larger budget", cut.Start, first, budget)
	} else {
		what += "; " + cut.NextHint()
	}
	return "[" + what + "]"
}
