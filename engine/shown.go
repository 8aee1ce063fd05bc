package engine

import (
	"context"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/linediff"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// ShownLine is one line an agent's own tool showed it (or wrote), as the
// tool had it.
type ShownLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// ShownBlock is consecutive lines shown from line Start: Text holds them,
// each ended by "\n" (the last may not be); a "\r" before a "\n" is the
// line break's, not the line's. An empty Text is no line.
type ShownBlock struct {
	Start int    `json:"start"`
	Text  string `json:"text"`
}

// lines are the block's lines, numbered.
func (b ShownBlock) lines() []ShownLine {
	if b.Text == "" {
		return nil
	}
	text := strings.TrimSuffix(b.Text, "\n")
	out := make([]ShownLine, 0, strings.Count(text, "\n")+1)
	for i := b.Start; ; i++ {
		l, rest, more := strings.Cut(text, "\n")
		out = append(out, ShownLine{Line: i, Text: strings.TrimSuffix(l, "\r")})
		if !more {
			return out
		}
		text = rest
	}
}

// ShownParams are the params of sightline/shown: lines the agent's own
// tools (Claude Code's Read, a shell command's output) showed it, or wrote.
type ShownParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
	Lines        []ShownLine  `json:"lines,omitempty"`
	// Block is consecutive lines shown, as one text: what a tool that
	// shows a run of lines (a read) showed, carried and decoded as one
	// string rather than an object per line.
	Block *ShownBlock `json:"block,omitempty"`
	// Anchored: the lines are placed by the first of them (a command's
	// output, numbered by its place in the file): none counts unless the
	// first is the document's line where it was placed.
	Anchored bool `json:"anchored,omitempty"`
	// Range is lines shown without their text (the tool's answer did not
	// carry it): they count but for those longer than Cut characters, which
	// the tool showed cut short.
	Range *ledger.Range `json:"range,omitempty"`
	Cut   int           `json:"cut,omitempty"`
	// Authored: the agent's own tool wrote these lines.
	Authored bool `json:"authored,omitempty"`
	// Created: the agent's own tool created the document.
	Created bool `json:"created,omitempty"`
	// Hunks are a patch's hunks the agent's tool applied (with Authored):
	// each hunk's new side is found in the current text, and its added
	// lines count as written.
	Hunks []CheckHunk `json:"hunks,omitempty"`
	// Tool names the agent's tool, for the audit.
	Tool string `json:"tool,omitempty"`
}

// ShownResult is the answer of sightline/shown.
type ShownResult struct {
	Outcome
	Path string `json:"path,omitempty"`
	// Recorded are the lines now counted (read, or authored).
	Recorded []ledger.Range `json:"recorded"`
	// Skipped are lines the tool showed otherwise than the document holds
	// them (cut short, or changed since): they do not count.
	Skipped []ledger.Range `json:"skipped,omitempty"`
	Ledger  *DocLedger     `json:"ledger,omitempty"`
}

// Shown records lines an agent's own tool showed it (or wrote): exactly
// those whose text is the document's current line, whole; a line the tool
// cut short, or that changed since, does not count.
func (e *Env) Shown(ctx context.Context, p ShownParams) (res ShownResult, err error) {
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	pl, err := e.WS.PlaceURI(p.TextDocument.URI)
	var d workspace.Doc
	if err == nil {
		d, err = e.admit(withGrants(ctx), p.Caller, pl, readAccess)
	}
	if err != nil {
		o, err := refusalOr(err)
		res = ShownResult{Outcome: o, Path: pl.Rel, Recorded: []ledger.Range{}}
		if err == nil {
			res.audit(auditRow{caller: p.Caller, path: res.Path})
		}
		return res, err
	}
	session := p.SessionOr()
	res = ShownResult{Outcome: Outcome{OK: true}, Path: d.Rel}
	if p.Created {
		e.Ledger.MarkCreated(session, ledger.DocKey(d.Key))
	}
	bom, _ := hashline.StripBOM(firstContent(d.Snap))
	total := d.Snap.LineCount()
	var got, skipped ledger.RangeSet
	if p.Block != nil {
		p.Lines = append(p.Lines, p.Block.lines()...)
	}
	if len(p.Hunks) > 0 {
		p.Lines = append(p.Lines, added(d.Snap, p.Hunks)...)
	}
	matches := func(l ShownLine) bool {
		return l.Line >= 1 && l.Line <= total && shownContent(d.Snap, l.Line, bom) == l.Text
	}
	misplaced := p.Anchored && len(p.Lines) > 0 && !matches(p.Lines[0])
	for _, l := range p.Lines {
		if l.Line < 1 {
			continue
		}
		r := ledger.Range{Start: l.Line, End: l.Line}
		if !misplaced && matches(l) {
			got.Add(r)
		} else {
			skipped.Add(r)
		}
	}
	if r := p.Range; r != nil && r.Start >= 1 {
		for i := r.Start; i <= min(r.End, total); i++ {
			if p.Cut > 0 && utf8.RuneCountInString(shownContent(d.Snap, i, bom)) > p.Cut {
				skipped.Add(ledger.Range{Start: i, End: i})
			} else {
				got.Add(ledger.Range{Start: i, End: i})
			}
		}
	}
	if total == 0 && len(p.Lines) == 0 && !p.Authored {
		// An empty document: showing it is showing all of it.
		e.recordRead(session, p.Agent, d, ledger.Range{Start: 1, End: 0})
	}
	for _, r := range got.Ranges() {
		if p.Authored {
			e.Ledger.RecordShown(ledger.KindAuthored, session, p.Agent, ledger.DocKey(d.Key), d.Rev, r, sumOf(d.Snap))
			e.WS.Pin(d.Key, d.Rev)
		} else {
			e.recordRead(session, p.Agent, d, r)
		}
	}
	res.Recorded = nonNil(got.Ranges())
	res.Skipped = skipped.Ranges()
	kind := "read"
	if p.Authored {
		kind = "authored"
	}
	res.Message = fmt.Sprintf("%s: %s counted as %s.", res.Path, rangesOrNone(res.Recorded), kind)
	if len(res.Skipped) > 0 {
		res.Message += fmt.Sprintf(" %s did not match the file (cut short, or changed since) and did not count.", ledger.List(res.Skipped))
	}
	res.Ledger = e.docLedger(session, d)
	res.audit(auditRow{caller: p.Caller, path: res.Path, before: d.FileHash(), guard: kind, args: []byte(p.Tool)})
	return res, nil
}

// added finds each hunk's new side in the current text and returns its
// added lines (those a diff of its old side and its new side inserts),
// numbered as they are now; a hunk whose new side is not there exactly once
// gives none.
func added(s *textdoc.Snapshot, hunks []CheckHunk) []ShownLine {
	text := s.Text()
	var out []ShownLine
	for _, h := range hunks {
		if len(h.New) == 0 {
			continue
		}
		rs := spans(s, text, OldText{Text: strings.Join(h.New, "\n")})
		if len(rs) != 1 {
			continue
		}
		sum := func(ls []string) []uint32 {
			out := make([]uint32, len(ls))
			for i, l := range ls {
				out[i] = crc32.ChecksumIEEE([]byte(l))
			}
			return out
		}
		for _, d := range linediff.Diff(sum(h.Old), sum(h.New)) {
			for i := d.B; i < d.B+d.Ins; i++ {
				out = append(out, ShownLine{Line: rs[0].Start + i, Text: h.New[i]})
			}
		}
	}
	return out
}

func rangesOrNone(rs []ledger.Range) string {
	if len(rs) == 0 {
		return "no line"
	}
	return "lines " + ledger.List(rs)
}

// OldText is a text a proposed change replaces.
type OldText struct {
	Text string `json:"text"`
	// All: every occurrence is replaced; else the text must occur exactly
	// once.
	All bool `json:"all,omitempty"`
	// New, when given, is the text replacing it: the targets are then only
	// the lines a line diff of the two changes (an insertion counts the line
	// above it), not every line the old text spans.
	New *string `json:"new,omitempty"`
}

// CheckParams are the params of sightline/check: a change an agent's own
// tool is about to make, asked of the edit guard before it runs.
type CheckParams struct {
	Caller
	TextDocument TextDocument `json:"textDocument"`
	// Old are the texts the change replaces; their lines are the targets.
	Old []OldText `json:"old,omitempty"`
	// Lines are target lines given directly.
	Lines []ledger.Range `json:"lines,omitempty"`
	// Hunks are a patch's hunks of the document: each is placed in the
	// current text as sightline's own patch places it, and the lines it
	// vouches for (context and removed) are the targets.
	Hunks []CheckHunk `json:"hunks,omitempty"`
	// Whole: the change replaces the whole document (a write of an existing
	// file); a document that does not exist may be created.
	Whole bool `json:"whole,omitempty"`
	// Content is the whole new text of the document (a write of the whole
	// file): the targets are the lines of the current text that a line
	// diff with it changes; a document that does not exist may be created.
	Content *string `json:"content,omitempty"`
	// NoExpand: a refusal hands no missing line back (auto-expand off for
	// this call), for a door whose answer cannot carry them to the model.
	NoExpand bool `json:"noExpand,omitempty"`
	// Tool names the agent's tool, for the audit.
	Tool string `json:"tool,omitempty"`
	// Dialect, when given, is the agent tool whose way of placing the
	// change the check reproduces: DialectClaudeCode places Old (each with
	// its New) as Claude Code's Edit does; DialectCodex places Hunks as
	// Codex's apply_patch does (in order, from a cursor, leniently:
	// patch.PlaceCodex), each hunk's whole matched span a target, and a
	// reading of the file that is not Codex's (a lone carriage return, CRLF
	// lines Codex releases place differently, overlapping hunks) refused as
	// unjudged. Without it each old text is found as written and each hunk
	// placed alone, as sightline's own patch places it. What the tool would
	// not find is refused as unjudged.
	Dialect string `json:"dialect,omitempty"`
	// Unjudged is a door's reason for refusing a change it could not read
	// exactly as the program that carries it out will (a message it cannot
	// decode, a path it cannot resolve as that program does): the check
	// refuses it (unjudged) and audits the refusal; textDocument may then be
	// empty.
	Unjudged string `json:"unjudged,omitempty"`
	// Read: the agent's tool is about to read the document, not change it
	// (a read another program carries out, as the ACP editor does): the
	// admission of a read is asked, and nothing else.
	Read bool `json:"read,omitempty"`
}

// CheckHunk is a patch hunk: its context and removed lines in order (Old),
// its context and added lines (New), the V4A anchors before it, and
// whether it ends at the end of the file.
type CheckHunk struct {
	Old     []string `json:"old"`
	New     []string `json:"new"`
	Anchors []string `json:"anchors,omitempty"`
	EOF     bool     `json:"eof,omitempty"`
}

// CheckResult is the answer of sightline/check. A refusal's missing lines
// come in Expanded (hashline) and in Shown (as the agent's own read tool
// shows lines: the number, a tab, the line); they now count as read.
type CheckResult struct {
	Outcome
	Path    string         `json:"path,omitempty"`
	Exists  bool           `json:"exists"`
	Targets []ledger.Range `json:"targets"`
	// Unmatched are the indexes of old texts (or hunks) that the document
	// does not hold exactly once: the agent's tool reports those itself.
	Unmatched []int `json:"unmatched,omitempty"`
	// Dialect is the placement the change was given (CheckParams.Dialect),
	// so that a door can tell an answer from a server of an earlier build,
	// which ignores a dialect it does not know.
	Dialect string `json:"dialect,omitempty"`
	GuardRefusal
	Shown string `json:"shown,omitempty"`
}

// Check asks the edit guard about a change an agent's own tool is about to
// make: the lines each old text spans in the current text (the editor's
// buffer, else the disk), or the whole document. It refuses as a write of
// sightline's own would (unread_range, stale_range) and, with auto-expand,
// hands over the missing lines, which now count as read.
func (e *Env) Check(ctx context.Context, p CheckParams) (res CheckResult, err error) {
	if p.Unjudged != "" {
		// The door's own refusal, audited as every refusal is.
		res.Targets = []ledger.Range{}
		if p.TextDocument.URI != "" {
			if pl, err := e.WS.PlaceURI(p.TextDocument.URI); err == nil {
				res.Path = pl.Rel
			}
		}
		res.Outcome = Outcome{Error: result.Unjudged, Message: p.Unjudged}
		res.audit(auditRow{caller: p.Caller, path: res.Path, args: []byte(p.Tool)})
		return res, nil
	}
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	if p.Dialect != "" && p.Dialect != DialectClaudeCode && p.Dialect != DialectCodex {
		return res, result.Errorf(result.InvalidParams, "dialect %q: the change is placed as written (no dialect), as Claude Code's Edit places it (%q) or as Codex's apply_patch does (%q)", p.Dialect, DialectClaudeCode, DialectCodex)
	}
	res.Targets = []ledger.Range{}
	if pl, err := e.WS.PlaceURI(p.TextDocument.URI); err == nil && e.outside(pl.Key) {
		// Not a file of the workspace: sightline has no ledger of it and
		// no say; the agent's own rules decide.
		res.Path = pl.Rel
		res.Outcome = Outcome{OK: true, Message: res.Path + " is outside the workspace: sightline does not guard it."}
		return res, nil
	}
	// The agent's tool is about to write the file: the admission of a
	// write (the policy, version control folders, a sensitive file's
	// approval to write), not of a read; or, for a read, that of a read.
	a := toolWriteAccess
	if p.Read {
		a = readAccess
	}
	pl, err := e.WS.PlaceURI(p.TextDocument.URI)
	var d workspace.Doc
	if err == nil {
		d, err = e.admit(withGrants(ctx), p.Caller, pl, a)
	}
	if err != nil {
		res.Path = pl.Rel
		if result.KindOf(err) == result.NotFound {
			// A new document: nothing in it to have read; nothing to read
			// either (the reader answers that itself).
			res.Outcome = Outcome{OK: true, Message: res.Path + " does not exist: a new file needs no read."}
			res.audit(auditRow{caller: p.Caller, path: res.Path, args: []byte(p.Tool)})
			return res, nil
		}
		o, err := refusalOr(err)
		res.Outcome = o
		if err == nil {
			res.audit(auditRow{caller: p.Caller, path: res.Path, args: []byte(p.Tool)})
		}
		return res, err
	}
	res.Exists = true
	res.Path = d.Rel
	if p.Read {
		res.Outcome = Outcome{OK: true, Message: res.Path + " may be read."}
		res.audit(auditRow{caller: p.Caller, path: res.Path, before: d.FileHash(), args: []byte(p.Tool)})
		return res, nil
	}
	total := d.Snap.LineCount()
	var targets ledger.RangeSet
	if p.Whole && total > 0 {
		targets.Add(ledger.Range{Start: 1, End: total})
	}
	for _, r := range p.Lines {
		if r.Start >= 1 && r.End >= r.Start {
			targets.Add(r.Clamp(total))
		}
	}
	switch {
	case p.Dialect == DialectClaudeCode:
		ts, un := claudeTargets(d.Snap, d.Rel, p.Old)
		targets.AddAll(ts)
		res.Unmatched = append(res.Unmatched, un...)
	case len(p.Old) > 0:
		text := d.Snap.Text()
		for i, o := range p.Old {
			rs := spans(d.Snap, text, o)
			if len(rs) == 0 {
				res.Unmatched = append(res.Unmatched, i)
			}
			if o.New == nil {
				targets.AddAll(rs)
				continue
			}
			for _, r := range rs {
				targets.AddAll(changedLines(o.Text, *o.New, r.Start, r.End))
			}
		}
	}
	if p.Content != nil && total > 0 {
		targets.AddAll(changedLines(d.Snap.Text(), *p.Content, 1, total))
	}
	res.Dialect = p.Dialect
	if p.Dialect == DialectCodex && len(p.Hunks) > 0 {
		rs, unmatched, why := codexTargets(d.Snap, p.Hunks)
		if why != "" {
			res.Outcome = Outcome{Error: result.Unjudged, Message: why}
			res.audit(auditRow{caller: p.Caller, path: res.Path, before: d.FileHash(), args: []byte(p.Tool)})
			return res, nil
		}
		targets.AddAll(rs)
		res.Unmatched = append(res.Unmatched, unmatched...)
		p.Hunks = nil
	}
	for i, h := range p.Hunks {
		f := patch.File{Kind: patch.Modify, Hunks: []patch.Hunk{{Old: h.Old, New: h.New, Anchors: h.Anchors, EOF: h.EOF}}}
		_, placed, fail := patch.Plan(d.Snap, f, d.Snap.Dominant())
		if fail != nil {
			res.Unmatched = append(res.Unmatched, i)
			continue
		}
		for _, pl := range placed {
			if pl.End >= pl.Start {
				targets.Add(ledger.Range{Start: pl.Start, End: pl.End})
			}
		}
	}
	res.Targets = nonNil(targets.Ranges())
	if p.Dialect != "" && len(res.Unmatched) > 0 {
		// The tool would look for the text otherwise than as written, or
		// fail: what it would change cannot be told, so it is refused (and
		// audited as such), whatever the lines before it.
		res.Outcome = Outcome{Error: result.Unjudged, Message: unplaced(p.Dialect, res.Unmatched[0])}
		res.audit(auditRow{caller: p.Caller, path: res.Path, before: d.FileHash(), args: []byte(p.Tool)})
		return res, nil
	}
	session := p.SessionOr()
	v := e.guardExpand(session, p.Agent, d, res.Targets, !p.NoExpand)
	res.Outcome = Outcome{OK: true, Warnings: v.Warnings}
	if v.Err != nil {
		res.Outcome = Refusal(v.Err)
		res.Warnings = v.Warnings
		res.GuardRefusal = v.GuardRefusal
		res.Shown = catN(d.Snap, v.ExpandedRanges)
	} else {
		res.Message = fmt.Sprintf("%s: the change may proceed.", res.Path)
	}
	res.audit(auditRow{caller: p.Caller, path: res.Path, before: d.FileHash(), guard: v.Name, args: []byte(p.Tool)})
	return res, nil
}

// outside reports whether a file lies under none of the workspace roots,
// as named (one that leads out through a link is inside, and refused).
func (e *Env) outside(k workspace.Key) bool {
	path, ok := k.Path()
	if !ok {
		return false
	}
	for _, root := range e.WS.Roots() {
		if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
	}
	return true
}

// spans returns the lines an old text spans in the document: its one
// occurrence, or every occurrence with All; none when it is empty, absent,
// or (without All) not unique.
func spans(s *textdoc.Snapshot, text string, o OldText) []ledger.Range {
	if o.Text == "" {
		return nil
	}
	n := strings.Count(text, o.Text)
	if n == 0 || n > 1 && !o.All {
		return nil
	}
	var out []ledger.Range
	from := 0
	for {
		i := strings.Index(text[from:], o.Text)
		if i < 0 {
			return out
		}
		at := from + i
		first := int(s.PosAt(at, textdoc.UTF8).Line) + 1
		end := at + len(o.Text)
		// A text that ends with its line's terminator spans no more of the
		// next line.
		last := int(s.PosAt(max(end-1, at), textdoc.UTF8).Line) + 1
		out = append(out, ledger.Range{Start: first, End: min(last, s.LineCount())})
		from = end
	}
}

// changedLines returns the lines of old that a line diff with new changes,
// numbered from first (old's first line) and clamped to last: a replaced or
// deleted line is its own target, an insertion targets the line above it
// (the first line for an insertion at the top). Lines are compared without
// their terminators: a change of line endings alone changes no line.
func changedLines(old, new string, first, last int) []ledger.Range {
	sum := func(s string) []uint32 {
		ls := lines.Split(s)
		out := make([]uint32, len(ls))
		for i, l := range ls {
			out[i] = crc32.ChecksumIEEE([]byte(l.Content))
		}
		return out
	}
	var out []ledger.Range
	for _, h := range linediff.Diff(sum(old), sum(new)) {
		r := ledger.Range{Start: first + h.A, End: first + h.A + h.Del - 1}
		if h.Del == 0 {
			at := first + max(h.A-1, 0)
			r = ledger.Range{Start: at, End: at}
		}
		r.Start, r.End = min(r.Start, last), min(r.End, last)
		out = append(out, r)
	}
	return out
}

// catN renders lines as the agents' own read tools show them (Claude
// Code's Read): the line number, a tab, the line.
func catN(s *textdoc.Snapshot, rs []ledger.Range) string {
	var b strings.Builder
	bom, _ := hashline.StripBOM(firstContent(s))
	for _, r := range rs {
		for i := r.Start; i <= min(r.End, s.LineCount()); i++ {
			fmt.Fprintf(&b, "%d\t%s\n", i, shownContent(s, i, bom))
		}
	}
	return b.String()
}
