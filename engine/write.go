package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sightline-lsp/sightline/confine"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// MaxWriteSize bounds what a write may produce.
const MaxWriteSize = 16 << 20

// WriteModes are sightline/write's modes.
var WriteModes = []string{"create", "edit", "append", "overwrite"}

// WriteParams are the params of sightline/write (PROTOCOL section 6).
type WriteParams struct {
	Caller
	TextDocument    TextDocument `json:"textDocument"`
	Mode            string       `json:"mode"`
	Content         *string      `json:"content"`
	OldText         *string      `json:"old_text,omitempty"`
	ExpectedVersion string       `json:"expectedVersion,omitempty"`
	DryRun          bool         `json:"dryRun,omitempty"`
}

// WriteResult is the answer of sightline/write.
type WriteResult struct {
	Outcome
	URI      string     `json:"uri,omitempty"`
	Path     string     `json:"path,omitempty"`
	Mode     string     `json:"mode,omitempty"`
	Applied  bool       `json:"applied"`
	DryRun   bool       `json:"dryRun,omitempty"`
	Diff     string     `json:"diff"`
	FileHash string     `json:"fileHash,omitempty"`
	Version  *int32     `json:"version"`
	Ledger   *DocLedger `json:"ledger,omitempty"`
	// no_match: the lines nearest to old_text, annotated (they count as read).
	Nearest []string `json:"nearest,omitempty"`
	// ambiguous_match: the first line of every match.
	Matches []int `json:"matches,omitempty"`
	GuardRefusal
}

// Write serves the str_replace-style write modes: create, edit, append,
// overwrite. Each goes through the same guard and apply path as hashline
// edits; refusals are results with ok=false.
func (e *Env) Write(ctx context.Context, p WriteParams) (res WriteResult, err error) {
	ctx = withGrants(ctx)
	session := p.SessionOr()
	var before, guard string
	defer func() {
		res.audit(auditRow{caller: p.Caller, path: res.Path, before: before, after: res.FileHash, guard: guard, args: []byte(p.Mode)})
	}()
	res.Mode = p.Mode
	if p.TextDocument.URI == "" {
		return res, result.Errorf(result.InvalidParams, "textDocument.uri is required")
	}
	if p.Content == nil {
		return res, result.Errorf(result.InvalidParams, "content is required (use \"\" for an empty file)")
	}
	content := *p.Content
	switch {
	case slices.Contains(WriteModes, p.Mode):
	case p.Mode == "":
		return res, result.Errorf(result.InvalidParams, "mode is required: create, edit, append or overwrite")
	default:
		return res, result.Errorf(result.InvalidParams, "mode %q is not one of create, edit, append, overwrite", p.Mode)
	}
	if len(content) > MaxWriteSize {
		res.Outcome = Refusal(result.Errorf(result.TooLarge, "content is %d bytes, over the %d-byte limit.", len(content), MaxWriteSize))
		return res, nil
	}
	if strings.IndexByte(content, 0) >= 0 {
		res.Outcome = Refusal(result.Errorf(result.Binary, "content holds NUL bytes; sightline writes text files only."))
		return res, nil
	}
	k, err := workspace.NormalizeDoc(p.TextDocument.URI)
	if err != nil {
		if result.KindOf(err) != "" {
			res.Outcome = Refusal(err) // denied (a NUL byte)
			return res, nil
		}
		return res, result.Wrap(result.InvalidParams, err, err.Error())
	}
	res.URI, res.Path = p.TextDocument.URI, e.WS.Rel(k)

	if p.Mode == "create" {
		if path, ok := k.Path(); ok && !e.WS.Inside(path) {
			res.Outcome = Refusal(result.Errorf(result.Denied, "%s is outside the workspace (%s).", path, e.WS.Root()))
			return res, nil
		}
		if _, err := e.admit(ctx, p.Caller, e.WS.Place(k), createAccess); err != nil {
			res.Outcome, err = refusalOr(err)
			return res, err
		}
		unlock := e.locks.lock(k)
		defer unlock()
		return e.create(ctx, session, k, e.newFileText(k, lines.Split(content)), p, res)
	}
	if p.Mode == "edit" && p.OldText == nil {
		res.Outcome = Refusal(result.Errorf(result.InvalidEdit,
			"edit mode requires old_text: the exact text to replace. To add to the end of the file use mode \"append\"; to replace the whole file use mode \"overwrite\"."))
		return res, nil
	}
	if p.Mode == "edit" {
		if err := echoRefusal(strings.Split(content, "\n"), strings.Split(*p.OldText, "\n")); err != nil {
			res.Outcome = Refusal(err)
			return res, nil
		}
	}
	input := []string{content}
	if p.OldText != nil {
		input = append(input, *p.OldText)
	}
	out, err := e.transact(ctx, writeReq{caller: p.Caller, uri: p.TextDocument.URI, dryRun: p.DryRun, wantHash: p.ExpectedVersion, input: input, what: "The text",
		plan: func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
			var splice hashline.Splice
			var targets []ledger.Range
			dom := d.Snap.Dominant()
			n := d.Snap.LineCount()
			switch p.Mode {
			case "edit":
				var err error
				splice, targets, err = e.editSplice(session, p.Agent, d, *p.OldText, content, dom, &res)
				if err != nil {
					return hashline.Plan{}, nil, err
				}
				if newN := n - splice.Old + len(splice.New); n >= 20 && newN*3 < n {
					return hashline.Plan{}, nil, result.Errorf(result.DramaticReduction,
						"This edit would cut %s from %d lines to %d. If you mean to replace the whole file use mode \"overwrite\"; otherwise make old_text exactly the text to replace.", res.Path, n, newN)
				}
			case "append":
				splice = appendSplice(d, content, dom)
				if n > 0 {
					targets = []ledger.Range{{Start: n, End: n}}
				}
			case "overwrite":
				if st := e.Ledger.Summarize(session, ledger.DocKey(d.Key)); st.State != ledger.FullyRead && st.State != ledger.ModelAuthored && n > 0 {
					// Overwrite replaces every line: all of them must be known.
					targets = []ledger.Range{{Start: 1, End: n}}
				}
				splice = hashline.Splice{Start: 0, Old: n, New: contentLines(content, dom, true)}
			}
			tr := make([]hashline.LineRange, len(targets))
			for i, t := range targets {
				tr[i] = hashline.LineRange{Start: t.Start, End: t.End}
			}
			return hashline.NewPlan(n, []hashline.Splice{splice}, tr), targets, nil
		}})
	guard = out.verdict.Name
	before = out.before.FileHashIfKnown()
	if out.before.Snap != nil {
		res.URI = out.before.URI
	}
	if len(out.warnings) > 0 {
		res.Warnings = append(res.Warnings, out.warnings...)
	}
	if err != nil {
		switch result.KindOf(err) {
		case result.NotFound:
			err = result.Errorf(result.NotFound, "%s does not exist; use mode \"create\" for a new file.", res.Path)
		case result.FileChanged:
			res.FileHash = out.before.FileHash()
		}
		res.GuardRefusal = out.verdict.GuardRefusal
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	res.Diff = out.diff
	switch {
	case out.noop:
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("The %s changes nothing in %s; the file was not touched.", p.Mode, res.Path)}
		res.FileHash, res.Version = out.before.FileHash(), versionOf(out.before)
		return res, nil
	case p.DryRun:
		res.DryRun = true
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Dry run: the %s would change %s as the diff shows; nothing was written.", p.Mode, res.Path)}
		return res, nil
	}
	after := out.after
	res.Applied = true
	res.FileHash, res.Version = after.FileHash(), versionOf(after)
	res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("%s: %s.", strings.ToUpper(p.Mode[:1])+p.Mode[1:], res.Path)}
	res.Ledger = e.docLedger(session, after)
	return res, nil
}

// editSplice finds old_text exactly once and returns the splice that
// replaces it with content, and the lines it touches.
func (e *Env) editSplice(session, agent string, d workspace.Doc, oldText, content, dom string, res *WriteResult) (hashline.Splice, []ledger.Range, error) {
	if oldText == "" {
		return hashline.Splice{}, nil, result.Errorf(result.InvalidEdit, "old_text is empty: give the exact text to replace, or use mode \"append\".")
	}
	text := d.Snap.Text()
	// A model writes "\n"; a CRLF file holds "\r\n": match and write in the
	// file's own terminators.
	if dom != "\n" && !strings.Contains(oldText, dom) {
		oldText = strings.ReplaceAll(oldText, "\n", dom)
		content = strings.ReplaceAll(content, "\n", dom)
	}
	first := strings.Index(text, oldText)
	if first < 0 {
		res.Nearest = e.nearest(session, agent, d, oldText)
		hint := ""
		if len(res.Nearest) > 0 {
			hint = " The closest lines are in nearest (now counted as read)."
		}
		return hashline.Splice{}, nil, result.Errorf(result.NoMatch, "old_text was not found in %s; it must match the file exactly, whitespace included.%s", res.Path, hint)
	}
	if second := strings.Index(text[first+1:], oldText); second >= 0 {
		for off := first; off >= 0 && len(res.Matches) < 10; {
			res.Matches = append(res.Matches, strings.Count(text[:off], "\n")+1)
			next := strings.Index(text[off+1:], oldText)
			if next < 0 {
				break
			}
			off += 1 + next
		}
		return hashline.Splice{}, nil, result.Errorf(result.AmbiguousMatch, "old_text matches %s at lines %s; include more surrounding lines so it matches one place.", res.Path, joinInts(res.Matches))
	}
	// The lines the replacement spans: from the line holding the match's
	// start to the line holding its end. A match that ends exactly at a line
	// break replaced that break too; unless the new text ends with one, the
	// next line joins it (str_replace semantics, byte for byte).
	end := first + len(oldText)
	prefixStart := d.Snap.LineStart(lineOfOffset(d, first))
	startLine := lineOfOffset(d, first)
	endLine := d.Snap.LineCount() - 1
	if end < len(text) {
		endLine = lineOfOffset(d, end)
		joined := text[prefixStart:first] + content
		if end == d.Snap.LineStart(endLine) && (joined == "" || lines.EndsWithTerm(joined)) {
			endLine-- // the replacement ends on a line break: the next line is untouched
		}
	}
	le := d.Snap.LineStart(endLine) + d.Snap.Line(endLine).Len()
	region := text[prefixStart:first] + content + text[end:le]
	newLines := lines.Split(region)
	sp := hashline.Splice{Start: startLine, Old: endLine - startLine + 1, New: newLines}
	return sp, []ledger.Range{{Start: startLine + 1, End: endLine + 1}}, nil
}

// lineOfOffset returns the 0-based line holding byte offset off.
func lineOfOffset(d workspace.Doc, off int) int {
	lo, hi := 0, d.Snap.LineCount()-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if d.Snap.LineStart(mid) <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// nearest returns the lines around the best partial match of old_text's
// first non-blank line, annotated, and records them as read.
func (e *Env) nearest(session, agent string, d workspace.Doc, oldText string) []string {
	want := ""
	for _, l := range strings.Split(oldText, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			want = t
			break
		}
	}
	if want == "" {
		return nil
	}
	best, bestScore := -1, 0
	for i := 0; i < d.Snap.LineCount(); i++ {
		if sc := similarity(strings.TrimSpace(d.Snap.Line(i).Content), want); sc > bestScore {
			best, bestScore = i+1, sc
		}
	}
	if best < 0 || bestScore*2 < len(want) {
		return nil
	}
	return e.freshRefs(session, agent, d, ledger.Range{Start: max(1, best-3), End: min(d.Snap.LineCount(), best+3)})
}

// similarity is the length of the longest common prefix plus suffix of two
// trimmed lines: cheap, and enough to point at the line a model misremembered.
func similarity(a, b string) int {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p + s
}

// appendSplice adds content after the last line, adding the separating line
// break only when the file lacks one.
func appendSplice(d workspace.Doc, content, dom string) hashline.Splice {
	n := d.Snap.LineCount()
	add := contentLines(content, dom, true)
	if n > 0 && d.Snap.Line(n-1).Term == "" {
		last := d.Snap.Line(n - 1)
		last.Term = dom
		return hashline.Splice{Start: n - 1, Old: 1, New: append([]lines.Line{last}, add...)}
	}
	return hashline.Splice{Start: n, Old: 0, New: add}
}

// contentLines splits model-written content into lines with the file's
// terminator; the content's own final-newline state is kept.
func contentLines(content, dom string, normalise bool) []lines.Line {
	ls := lines.Split(content)
	if normalise {
		for i := range ls {
			if ls[i].Term != "" {
				ls[i].Term = dom
			}
		}
	}
	return ls
}

// create writes a new file: refused if anything exists there; missing
// folders are made; the file is the session's own (model_authored). The
// caller holds the document's lock.
func (e *Env) create(ctx context.Context, session string, k workspace.Key, content string, p WriteParams, res WriteResult) (WriteResult, error) {
	if _, ok := k.Path(); !ok {
		res.Outcome = Refusal(result.Errorf(result.Denied, "%s is not a file path; create writes files.", k))
		return res, nil
	}
	// Every create passes the policy here, whichever front door it came
	// through (a write, a patch adding a file); a call asks only once.
	if _, err := e.admit(ctx, p.Caller, e.WS.Place(k), createAccess); err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	if d, known := e.WS.Known(k); known && d.Open {
		res.Outcome = Refusal(result.Errorf(result.Exists, "%s is open in the editor; use mode \"edit\" or \"overwrite\".", res.Path))
		return res, nil
	}
	root, rel, err := e.WS.Locate(k)
	if err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	t, err := root.Resolve(rel, confine.Write)
	if err == nil && t.Exists {
		err = result.Errorf(result.Exists, "%s already exists; read it and use mode \"edit\", \"append\" or \"overwrite\".", res.Path)
	}
	if err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	if _, err := newFileDoc(root, t.Rel, k, res.Path, "The text", textdoc.New(content)); err != nil {
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	res.Diff = hashline.UnifiedDiff(res.Path, hashline.TextSource(""), []hashline.Splice{{Start: 0, Old: 0, New: lines.Split(content)}}, 3)
	if p.DryRun {
		res.DryRun = true
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Dry run: %s would be created; nothing was written.", res.Path)}
		return res, nil
	}
	// The write transaction, as every write (the caller holds the
	// document's lock): the same file lock as every write of the path, so
	// two creates, or a create and a write through a link to this name,
	// cannot interleave.
	ws := []fileWrite{{op: opCreate, key: k, rel: res.Path, next: textdoc.New(content)}}
	if _, err := e.writeLocked(ctx, p.Caller, ws); err != nil {
		if result.KindOf(err) == result.Exists {
			err = result.Wrap(result.Exists, err, fmt.Sprintf("%s already exists; read it and use mode \"edit\", \"append\" or \"overwrite\".", res.Path))
		}
		res.Outcome, err = refusalOr(err)
		return res, err
	}
	d := ws[0].after
	res.Applied = true
	res.FileHash = d.FileHash()
	res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Created %s.", res.Path)}
	res.Ledger = e.docLedger(session, d)
	return res, nil
}

// newFileText is the text of the new file k from its lines as the call
// wrote them, whatever wrote them (a patch, an edit block, write's
// create): when a line carries a CR, every line keeps its own line break;
// otherwise they say nothing of line breaks, and every line ends as the
// workspace's .editorconfig declares for the file (end_of_line), else
// with "\n".
func (e *Env) newFileText(k workspace.Key, ls []lines.Line) string {
	eol := ""
	if root, rel, err := e.WS.Locate(k); err == nil {
		eol = workspace.DeclaredEOL(root, filepath.ToSlash(rel))
	}
	if eol == "" {
		eol = "\n"
	}
	return lines.NewText(ls, eol)
}

// newFileDoc is the document a new file at rel (in root) starts as: in the
// charset its .editorconfig declares. A text with a character that charset
// lacks is refused unrepresentable; every create checks it when planned (so
// a dry run refuses what the real run would) and again under the file's
// lock, where the declaration is read once more.
func newFileDoc(root *confine.Root, rel string, k workspace.Key, name, what string, text *textdoc.Snapshot) (workspace.Doc, error) {
	cs, _, _ := workspace.Declared(root, filepath.ToSlash(rel))
	d := workspace.Doc{Key: k, Rel: name, Charset: cs}
	if err := d.Foreign(what, []string{text.Text()}); err != nil {
		return d, err
	}
	return d, d.Encodable(wholePlan(textdoc.New(""), text), name)
}

// echoRefusal refuses replacement text holding a line copied from a read
// with its "12:a3Kf|" prefix (hashline.EchoedLine), unless the old text holds
// one too (then the file really contains such lines).
func echoRefusal(content, old []string) error {
	i := hashline.EchoedLine(content)
	if i < 0 || hashline.EchoedLine(old) >= 0 {
		return nil
	}
	return result.Errorf(result.InvalidEdit,
		"line %d of the new text starts with a hashline prefix copied from a read (%q): send the raw lines without the LINE:HASH| prefixes. Nothing was written.",
		i+1, content[i][:strings.IndexByte(content[i], '|')+1])
}
