package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// EditParams are the params of sightline/edit (PROTOCOL section 6).
type EditParams struct {
	Caller
	TextDocument TextDocument    `json:"textDocument"`
	FileHash     string          `json:"fileHash,omitempty"`
	Edits        json.RawMessage `json:"edits"`
	DryRun       bool            `json:"dryRun,omitempty"`
	FullRefresh  bool            `json:"fullRefresh,omitempty"`
}

// Remap reports a ref that resolved to another line than the one it names.
type Remap struct {
	Ref  string `json:"ref"`
	Line int    `json:"line"`
}

// EditResult is the answer of sightline/edit.
type EditResult struct {
	Outcome
	URI      string `json:"uri,omitempty"`
	Path     string `json:"path,omitempty"`
	Version  *int32 `json:"version"`
	FileHash string `json:"fileHash,omitempty"`
	Applied  bool   `json:"applied"`
	DryRun   bool   `json:"dryRun,omitempty"`
	// Window is the edited region ±5 lines of the new text, hashline-annotated.
	Window      string        `json:"window,omitempty"`
	WindowRange *ledger.Range `json:"windowRange,omitempty"`
	Diff        string        `json:"diff,omitempty"`
	Remapped    []Remap       `json:"remapped"`
	Ledger      *DocLedger    `json:"ledger,omitempty"`

	// stale_ref and ambiguous_ref
	FailingEditIndex *int     `json:"failing_edit_index,omitempty"`
	FailingRef       string   `json:"failing_ref,omitempty"`
	ExpectedHash     string   `json:"expected_hash,omitempty"`
	ActualHash       string   `json:"actual_hash,omitempty"`
	Candidates       []int    `json:"candidates,omitempty"`
	FreshRefs        []string `json:"fresh_refs,omitempty"`

	GuardRefusal
}

// windowContext is how many lines around an edit the answer shows.
const windowContext = 5

// Edit applies hashline edits: all of them, exactly where the agent meant,
// or none. Refusals are results with ok=false; the error return is for
// invalid params only.
func (e *Env) Edit(ctx context.Context, p EditParams) (res EditResult, err error) {
	ctx = withGrants(ctx)
	session := p.SessionOr()
	res = EditResult{Remapped: []Remap{}}
	var out writeOut
	defer func() {
		res.audit(auditRow{caller: p.Caller, path: res.Path, before: out.before.FileHashIfKnown(), after: res.FileHash, guard: out.verdict.Name, args: p.Edits, doc: out.before})
	}()

	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	if len(p.Edits) == 0 || string(p.Edits) == "null" {
		return res, result.Errorf(result.InvalidParams, "edits is required: a JSON array of edit operations")
	}
	res.URI = p.TextDocument.URI
	var edits []hashline.Edit
	decode := func() (err error) {
		edits, err = hashline.DecodeEdits(p.Edits)
		return err
	}
	out, err = e.transact(ctx, writeReq{caller: p.Caller, uri: p.TextDocument.URI, args: decode, dryRun: p.DryRun, wantHash: p.FileHash,
		plan: func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
			// Resolve every ref (section 7 of the protocol), then build the ops.
			ops := make([]hashline.Op, 0, len(edits))
			rs := e.newResolver(session, d)
			var decls []ledger.Range
			for i, ed := range edits {
				if ed.Symbol != "" {
					// A declaration by name: its lines are found here, and
					// the guard asks that all of them were read.
					r, err := e.declaration(d, ed.Symbol)
					if err != nil {
						return hashline.Plan{}, nil, result.Wrap(result.KindOf(err), err, fmt.Sprintf("edits[%d] (%s): %s", i, ed.Type, result.Message(err)))
					}
					op, err := ed.Op(i, r.Start, r.End)
					if err != nil {
						return hashline.Plan{}, nil, err
					}
					ops, decls = append(ops, op), append(decls, r)
					continue
				}
				refs := ed.Refs()
				lines := make([]int, len(refs))
				for j, raw := range refs {
					line, remapped, rr := rs.resolve(raw)
					if rr != nil {
						return hashline.Plan{}, nil, e.refuseRef(&res, p.Caller, d, i, raw, rr)
					}
					if remapped {
						res.Remapped = append(res.Remapped, Remap{Ref: raw, Line: line})
					}
					lines[j] = line
				}
				op, err := ed.Op(i, lines[0], lines[len(lines)-1])
				if err != nil {
					return hashline.Plan{}, nil, err
				}
				ops = append(ops, op)
			}
			bom, _ := hashline.StripBOM(firstContent(d.Snap))
			plan, err := hashline.PlanEdits(d.Snap, ops, hashline.Options{Dominant: d.Snap.Dominant(), BOM: bom != ""})
			if err != nil {
				return plan, nil, err
			}
			targets := make([]ledger.Range, len(plan.Targets))
			for i, t := range plan.Targets {
				targets[i] = ledger.Range{Start: t.Start, End: t.End}
			}
			return plan, append(targets, decls...), nil
		}})
	res.Path = out.path
	if out.before.Snap != nil {
		res.URI = out.before.URI
	}
	res.Warnings = append(res.Warnings, out.warnings...)
	if err != nil {
		res.GuardRefusal = out.verdict.GuardRefusal
		if result.KindOf(err) == result.FileChanged {
			res.FileHash = out.before.FileHash()
		}
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	n := len(edits)
	switch {
	case out.noop:
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("The %s to %s %s nothing; the file was not touched.", plural(n, "edit", "edits"), res.Path, plural(n, "changes", "change")), Warnings: res.Warnings}
		res.FileHash, res.Version = out.before.FileHash(), versionOf(out.before)
		return res, nil
	case p.DryRun:
		res.DryRun = true
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Dry run: %d %s would apply to %s; nothing was changed.", n, plural(n, "edit", "edits"), res.Path), Warnings: res.Warnings}
		res.FileHash = out.before.FileHashIfKnown()
		res.Diff = out.diff
		res.Window, res.WindowRange = e.window(out.next, out.plan, p.FullRefresh)
		return res, nil
	}
	after := out.after
	res.Applied, res.Diff = true, out.diff
	res.FileHash, res.Version = after.FileHash(), versionOf(after)
	if out.shown {
		res.Window, res.WindowRange = e.window(after.Snap, out.plan, p.FullRefresh)
		if res.WindowRange != nil {
			// The window was shown to the agent: it counts as read at this revision.
			e.recordWindow(session, p.Agent, after, *res.WindowRange)
		}
	}
	res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Applied %d %s to %s.", n, plural(n, "edit", "edits"), res.Path), Warnings: res.Warnings}
	if len(res.Remapped) > 0 {
		res.Message += " Some refs named lines that have moved: see remapped."
	}
	res.Ledger = e.docLedger(session, after)
	return res, nil
}

type refError struct {
	kind       result.Kind
	ref        hashline.Ref
	candidates []int
}

func (r *refError) Error() string { return string(r.kind) }

// refuseRef fills the fields of a stale_ref / ambiguous_ref / invalid_ref
// answer, with fresh refs around the line so the agent can retry without a
// full read (those lines count as read), and returns the refusal.
func (e *Env) refuseRef(res *EditResult, c Caller, d workspace.Doc, index int, raw string, err error) error {
	idx := index
	res.FailingEditIndex = &idx
	res.FailingRef = raw
	var re *refError
	if !errors.As(err, &re) {
		return err
	}
	n := d.Snap.LineCount()
	res.ExpectedHash = re.ref.Hash
	if re.ref.Line <= n {
		res.ActualHash = lineHash(d.Snap, re.ref.Line)
	}
	around := []int{re.ref.Line}
	if re.kind == result.AmbiguousRef {
		around = re.candidates
		res.Candidates = re.candidates
	}
	rs := make([]ledger.Range, len(around))
	for i, l := range around {
		rs[i] = ledger.Range{Start: max(1, l-windowContext), End: min(n, l+windowContext)}
		if l > n {
			rs[i] = ledger.Range{Start: max(1, n-2*windowContext), End: n}
		}
	}
	res.FreshRefs = e.freshRefs(c.SessionOr(), c.Agent, d, rs...)
	if re.kind == result.AmbiguousRef {
		return result.Errorf(result.AmbiguousRef,
			"Ref %s of edit %d could mean lines %s: they hold the same content and the document changed since you saw line %d. Use the fresh refs to name one.", raw, index, joinInts(re.candidates), re.ref.Line)
	}
	what := fmt.Sprintf("line %d now has hash %s", re.ref.Line, res.ActualHash)
	if re.ref.Line > n {
		what = fmt.Sprintf("the document has only %d lines now", n)
	}
	return result.Errorf(result.StaleRef,
		"Ref %s of edit %d is stale: %s, and the line you saw is gone or changed. Nothing was applied; use the fresh refs (lines around it, now counted as read) and retry.", raw, index, what)
}

// expand returns the given lines annotated, within the read budget, and
// records what it returned as read.
func (e *Env) expand(session, agent string, d workspace.Doc, rs []ledger.Range) (string, []ledger.Range) {
	budget := e.Config().ReadBudget
	bom, _ := hashline.StripBOM(firstContent(d.Snap))
	var buf []byte
	var got []ledger.Range
	used := 0
	for _, r := range rs {
		last := r.Start - 1
		for i := r.Start; i <= r.End; i++ {
			mark := len(buf)
			buf = hashline.AppendLine(buf, i, shownContent(d.Snap, i, bom))
			buf = append(buf, '\n')
			if used+len(buf)-mark > budget {
				buf = buf[:mark]
				break
			}
			used += len(buf) - mark
			last = i
		}
		if last >= r.Start {
			g := ledger.Range{Start: r.Start, End: last}
			got = append(got, g)
			e.recordWindow(session, agent, d, g)
		}
		if last < r.End {
			break
		}
	}
	return string(buf), got
}

// window returns the plan's changed regions ±5 lines of s (the new text),
// from the first to the last, annotated, within the read budget (or the
// whole text within the budget with full).
func (e *Env) window(s *textdoc.Snapshot, plan hashline.Plan, full bool) (string, *ledger.Range) {
	n := s.LineCount()
	span, ok := plan.Span()
	if n == 0 || !ok && !full {
		return "", nil
	}
	r := ledger.Range{Start: span.Start, End: min(span.End, n)}
	if full {
		r = ledger.Range{Start: 1, End: n}
	}
	bom, _ := hashline.StripBOM(firstContent(s))
	budget := e.Config().ReadBudget
	var buf []byte
	end := r.Start - 1
	for i := r.Start; i <= r.End; i++ {
		mark := len(buf)
		buf = hashline.AppendLine(buf, i, shownContent(s, i, bom))
		buf = append(buf, '\n')
		if len(buf) > budget {
			buf = buf[:mark]
			break
		}
		end = i
	}
	if end < r.Start {
		return "", nil
	}
	r.End = end
	return string(buf), &r
}

// lineHash is the hashline hash of a 1-based line as the agent sees it
// (without a leading BOM).
func lineHash(s *textdoc.Snapshot, line int) string {
	c := s.Line(line - 1).Content
	if line == 1 {
		_, c = hashline.StripBOM(c)
	}
	return hashline.Hash(c)
}

func shownContent(s *textdoc.Snapshot, line int, bom string) string {
	c := s.Line(line - 1).Content
	if line == 1 && bom != "" {
		_, c = hashline.StripBOM(c)
	}
	return c
}

func firstContent(s *textdoc.Snapshot) string {
	if s.LineCount() == 0 {
		return ""
	}
	return s.Line(0).Content
}

func thatRange(r ledger.Range) string {
	if r.Start == r.End {
		return "that line"
	}
	return "that range"
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// versionOf is the editor's version of an open document, nil for a file.
func versionOf(d workspace.Doc) *int32 {
	if !d.Open {
		return nil
	}
	v := d.Version
	return &v
}
