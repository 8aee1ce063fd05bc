package handlers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/editblock"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// PatchParams are the params of sightline/applyPatch: a unified diff or a
// V4A patch, possibly inside other model output.
type PatchParams struct {
	Caller
	Text      string `json:"text"`
	DryRun    bool   `json:"dryRun,omitempty"`
	DryRunAlt bool   `json:"dry_run,omitempty"`
	// Merge asks to apply a clean three-way merge of hunks that no longer
	// apply, once the user approves it (never without).
	Merge bool `json:"merge,omitempty"`
}

// PatchFileResult is one file's outcome.
type PatchFileResult struct {
	Path    string      `json:"path"`
	NewPath string      `json:"newPath,omitempty"`
	Kind    string      `json:"kind"`   // modify, add, delete
	Status  string      `json:"status"` // applied, validated, failed, skipped
	Message string      `json:"message"`
	Error   result.Kind `json:"error,omitempty"`
	// Hunk is the 1-based hunk that failed and Line the closest line of the
	// file, when known.
	Hunk     int    `json:"hunk,omitempty"`
	Line     int    `json:"line,omitempty"`
	Diff     string `json:"diff,omitempty"`
	Expanded string `json:"expanded,omitempty"`
	// FreshRefs are the current lines around a hunk that does not apply (the
	// closest match, the merged place, or the header's line), as hashline
	// refs, counted as read.
	FreshRefs []string `json:"freshRefs,omitempty"`
	// Merge is the diff of a clean three-way merge of the hunks that no
	// longer apply: a proposal, written only with the user's approval.
	Merge string `json:"merge,omitempty"`

	kind   string // the failed hunk's diagnosis
	merged bool   // the merge plan is what gets written
}

// PatchResult is the answer of sightline/applyPatch.
type PatchResult struct {
	Outcome
	Files []PatchFileResult `json:"files"`
}

// ApplyPatch applies a patch exactly or not at all: every file is checked
// (matched, guarded) before any is written, and every write goes through
// the one write transaction.
func (e *Env) ApplyPatch(ctx context.Context, p PatchParams) (PatchResult, error) {
	start := time.Now()
	ctx = withGrants(ctx)
	res := PatchResult{Files: []PatchFileResult{}}
	dry := p.DryRun || p.DryRunAlt
	files, err := patch.Parse(p.Text)
	if err != nil {
		res.Outcome = Refusal(result.Errorf(result.InvalidEdit, "The patch cannot be read: %v. Send a unified diff (--- a/file, +++ b/file, @@ hunks) or a *** Begin Patch … *** End Patch envelope.", err))
		return res, nil
	}
	keys := make([]workspace.Key, len(files))
	failed := false
	// Check every file first: nothing is written unless all of them apply.
	for i, f := range files {
		r := PatchFileResult{Path: f.Path, NewPath: f.NewPath, Kind: string(f.Kind)}
		k, err := e.patchCheck(ctx, p.Caller, f, &r)
		keys[i] = k
		if err != nil {
			r.Status, r.Message, r.Error = "failed", result.Message(err), result.KindOf(err)
			if r.Error == "" {
				r.Error = "internal"
			}
			failed = true
		} else {
			r.Status = "validated"
		}
		res.Files = append(res.Files, r)
	}
	if failed && mergeable(res.Files) {
		diffs := mergeDiffs(res.Files)
		if !p.Merge || dry {
			return e.proposeMerge(ctx, p, res, start, "Run it again with merge to apply it once the user approves; or read the fresh refs and send a new patch."), nil
		}
		if e.approver == nil {
			return e.proposeMerge(ctx, p, res, start, "Nobody can approve it here (no editor to ask, no terminal, no --yes); nothing was written."), nil
		}
		dec, err := e.approver.Approve(ctx, Approval{Session: p.SessionOr(), Agent: p.Agent, Path: mergePaths(res.Files), Op: "merge", Detail: diffs})
		if err != nil || dec == Deny {
			why := "The user refused the merge; nothing was written."
			if err != nil {
				why = fmt.Sprintf("The merge was not approved (%v); nothing was written.", err)
			}
			res := e.proposeMerge(ctx, p, res, start, why)
			res.Error = result.ApprovalRefused
			return res, nil
		}
		for i := range res.Files {
			r := &res.Files[i]
			if !r.merged {
				continue
			}
			// What is written is what was approved: a file that moved on
			// while the user looked is refused.
			m := *r
			out, err := e.transact(ctx, writeReq{caller: p.Caller, method: "sightline/applyPatch", uri: string(keys[i]), dryRun: true, plan: patchPlanner(files[i], &m)})
			if err != nil || out.diff != r.Merge {
				res.Outcome = Outcome{OK: false, Error: result.FileChanged, Message: r.Path + " changed while the merge was being approved; nothing was written. Send the patch again."}
				e.auditPatch(ctx, p, res, start)
				return res, nil
			}
			r.Status, r.Message, r.Error = "validated", "The three-way merge was approved.", ""
		}
		failed = false
	}
	if failed {
		for i := range res.Files {
			if res.Files[i].Status == "validated" {
				res.Files[i].Status, res.Files[i].Message = "skipped", "Not written: another file of the patch does not apply."
			}
		}
		res.Outcome = Outcome{OK: false, Error: firstError(res.Files), Message: "The patch does not apply; nothing was written. " + firstMessage(res.Files)}
		e.auditPatch(ctx, p, res, start)
		return res, nil
	}
	if dry {
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Dry run: the patch applies to %d %s; nothing was written.", len(files), plural(len(files), "file", "files"))}
		return res, nil
	}
	// Open documents change together: one workspace/applyEdit carries them
	// all, before any file on disk is written.
	together := e.openTogether(files, keys)
	if len(together) > 1 {
		if err := e.patchCommitOpen(ctx, p.Caller, files, keys, together, res.Files); err != nil {
			for i := range res.Files {
				res.Files[i].Status, res.Files[i].Message = "skipped", "Not written: the editor did not apply the open documents' edit."
			}
			for _, i := range together {
				res.Files[i].Status, res.Files[i].Message, res.Files[i].Error = "failed", result.Message(err), result.KindOf(err)
			}
			res.Outcome = Outcome{OK: false, Error: result.KindOf(err), Message: "The patch was not applied; nothing was written. " + result.Message(err)}
			e.auditPatch(ctx, p, res, start)
			return res, nil
		}
	}
	for i, f := range files {
		r := &res.Files[i]
		if r.Status == "applied" {
			continue
		}
		if err := e.patchCommit(ctx, p.Caller, f, keys[i], r); err != nil {
			r.Status, r.Message, r.Error = "failed", result.Message(err), result.KindOf(err)
			res.Outcome = Outcome{OK: false, Error: r.Error, Message: fmt.Sprintf("%s changed while the patch was being written: %s The files before it were written; read them again.", r.Path, r.Message)}
			for j := i + 1; j < len(files); j++ {
				res.Files[j].Status, res.Files[j].Message = "skipped", "Not written: an earlier file failed."
			}
			e.auditPatch(ctx, p, res, start)
			return res, nil
		}
	}
	res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Applied the patch to %d %s.", len(files), plural(len(files), "file", "files"))}
	e.auditPatch(ctx, p, res, start)
	return res, nil
}

func (e *Env) auditPatch(ctx context.Context, p PatchParams, res PatchResult, start time.Time) {
	for _, f := range res.Files {
		o := Outcome{OK: f.Status == "applied" || f.Status == "validated"}
		if !o.OK {
			o.Error = f.Error
		}
		e.audit(ctx, "sightline/applyPatch", p.Caller, f.Path, o, "", "", "", time.Since(start), []byte(p.Text))
	}
}

// patchPlanner plans one file patch against the document.
func patchPlanner(f patch.File, r *PatchFileResult) planner {
	return func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
		var plan hashline.Plan
		var placed []patch.Placed
		var fail *patch.Failure
		if r.merged {
			plan, placed, _, fail = patch.MergePlan(d.Snap, f, d.Snap.Dominant())
		} else {
			plan, placed, fail = patch.Plan(d.Snap, f, d.Snap.Dominant())
		}
		if fail != nil {
			r.Hunk, r.Line, r.kind = fail.Hunk+1, fail.Line, fail.Kind
			return hashline.Plan{}, nil, fail.Err
		}
		targets := make([]ledger.Range, len(placed))
		for i, pl := range placed {
			targets[i] = ledger.Range{Start: pl.Start, End: pl.End}
		}
		return plan, targets, nil
	}
}

// patchCheck validates one file patch without writing.
func (e *Env) patchCheck(ctx context.Context, c Caller, f patch.File, r *PatchFileResult) (workspace.Key, error) {
	k, err := e.WS.Resolve(f.Path)
	if err != nil {
		return "", err
	}
	r.Path = e.WS.Rel(k)
	if err := e.admit(ctx, c, k, true); err != nil {
		return "", err
	}
	if f.NewPath != "" {
		nk, err := e.WS.Resolve(f.NewPath)
		if err != nil {
			return "", err
		}
		r.NewPath = e.WS.Rel(nk)
		if err := e.admit(ctx, c, nk, true); err != nil {
			return "", err
		}
		if _, err := e.WS.Get(nk); err == nil {
			return "", result.Errorf(result.Exists, "%s already exists: the patch would rename %s over it.", r.NewPath, r.Path)
		}
	}
	switch f.Kind {
	case patch.Add:
		if _, err := e.WS.Get(k); err == nil || result.KindOf(err) != result.NotFound {
			if err == nil {
				err = result.Errorf(result.Exists, "%s already exists: the patch adds it as a new file.", r.Path)
			}
			return "", err
		}
		return k, nil
	case patch.Delete:
		d, err := e.document(string(k))
		if err != nil {
			return "", err
		}
		if d.Open {
			return "", result.Errorf(result.Denied, "%s is open in the editor: close it before a patch deletes it.", r.Path)
		}
		// Deleting a file drops every line: all of them must be known.
		if v := e.guard(c.SessionOr(), c.Agent, d, []ledger.Range{{Start: 1, End: d.Snap.LineCount()}}); v.Err != nil && d.Snap.LineCount() > 0 {
			r.Expanded = v.Expanded
			return "", v.Err
		}
		return k, nil
	}
	out, err := e.transact(ctx, writeReq{caller: c, method: "sightline/applyPatch", uri: string(k), dryRun: true, plan: patchPlanner(f, r)})
	r.Diff = out.diff
	if err != nil {
		r.Expanded = out.verdict.Expanded
		if conflictKind(r.kind) && out.before.Snap != nil {
			e.patchConflict(ctx, c, f, k, out.before, r)
		}
	}
	return k, err
}

// conflictKind reports whether a hunk failed because the file does not hold
// its lines (as opposed to a patch that is wrong in itself).
func conflictKind(kind string) bool {
	switch kind {
	case editblock.KindNotFound, editblock.KindNear, editblock.KindWhitespace, editblock.KindAmbiguous:
		return true
	}
	return false
}

// patchConflict fills the answer of a hunk that does not apply: the current
// lines around the place it merges to, its closest match or its header's
// line, with fresh refs (counted as read); and, when a three-way merge of the
// file is clean, the merged diff as a proposal.
func (e *Env) patchConflict(ctx context.Context, c Caller, f patch.File, k workspace.Key, d workspace.Doc, r *PatchFileResult) {
	s := d.Snap
	n := s.LineCount()
	h := f.Hunks[r.Hunk-1]
	center := r.Line
	_, placed, merged, fail := patch.MergePlan(s, f, s.Dominant())
	if fail == nil && len(merged) > 0 {
		for _, p := range placed {
			if p.Hunk == r.Hunk-1 {
				center = p.Start
			}
		}
	}
	if center == 0 {
		center = h.OldStart
	}
	var rs []ledger.Range
	if fail == nil && len(merged) > 0 {
		// Every place the merge changes is shown: the user approves what the
		// agent can see.
		for _, p := range placed {
			rs = append(rs, ledger.Range{Start: max(1, p.Start-windowContext), End: min(n, p.End+windowContext)})
		}
	} else if center > 0 && n > 0 {
		center = min(center, n)
		rs = append(rs, ledger.Range{Start: max(1, center-windowContext), End: min(n, center+windowContext+len(h.Old))})
	}
	var shown ledger.RangeSet
	for _, x := range rs {
		if x.Start <= x.End {
			shown.Add(x)
		}
	}
	bom, _ := hashline.StripBOM(firstContent(s))
	for _, x := range shown.Ranges() {
		for i := x.Start; i <= x.End; i++ {
			r.FreshRefs = append(r.FreshRefs, string(hashline.AppendLine(nil, i, shownContent(s, i, bom))))
		}
		e.recordWindow(c.SessionOr(), c.Agent, d, x)
	}
	if fail != nil || len(merged) == 0 {
		return
	}
	m := *r
	m.merged = true
	out, err := e.transact(ctx, writeReq{caller: c, method: "sightline/applyPatch", uri: string(k), dryRun: true, plan: patchPlanner(f, &m)})
	if err != nil || out.noop {
		return
	}
	r.Merge, r.merged = out.diff, true
}

// patchCommit writes one checked file patch.
func (e *Env) patchCommit(ctx context.Context, c Caller, f patch.File, k workspace.Key, r *PatchFileResult) error {
	session := c.SessionOr()
	switch f.Kind {
	case patch.Add:
		content := ""
		if len(f.Hunks) > 0 {
			content = strings.Join(f.Hunks[0].New, "\n")
			if len(f.Hunks[0].New) > 0 && !f.Hunks[0].NewNoEOL {
				content += "\n"
			}
		}
		unlock := e.locks.lock(k)
		wr, err := e.create(ctx, session, k, content, WriteParams{Caller: c}, WriteResult{Path: r.Path})
		unlock()
		if err != nil {
			return err
		}
		if !wr.OK {
			return result.Errorf(wr.Error, "%s", wr.Message)
		}
		r.Status, r.Message, r.Diff = "applied", "Created "+r.Path+".", wr.Diff
		return nil
	case patch.Delete:
		unlock := e.locks.lock(k)
		defer unlock()
		root, t, release, err := e.lockTarget(ctx, k)
		if err != nil {
			return err
		}
		defer release()
		if err := root.Remove(t); err != nil {
			return err
		}
		if path, ok := k.Path(); ok {
			e.trees.changed(path, true)
		}
		e.WS.Forget(k)
		e.Ledger.Forget(ledger.DocKey(k))
		r.Status, r.Message = "applied", "Deleted "+r.Path+"."
		return nil
	}
	if len(f.Hunks) > 0 {
		out, err := e.transact(ctx, writeReq{caller: c, method: "sightline/applyPatch", uri: string(k), plan: patchPlanner(f, r)})
		if err != nil {
			return err
		}
		r.Diff = out.diff
	}
	r.Status, r.Message = "applied", "Patched "+r.Path+"."
	if f.NewPath != "" {
		nk, err := e.WS.Resolve(f.NewPath)
		if err != nil {
			return err
		}
		unlock := e.locks.lock(k)
		defer unlock()
		root, from, release, err := e.lockTarget(ctx, k)
		if err != nil {
			return err
		}
		defer release()
		_, to, releaseTo, err := e.lockTarget(ctx, nk)
		if err != nil {
			return err
		}
		defer releaseTo()
		if err := root.Rename(from, to); err != nil {
			return err
		}
		for _, key := range []workspace.Key{k, nk} {
			if path, ok := key.Path(); ok {
				e.trees.changed(path, true)
			}
		}
		e.WS.Forget(k)
		e.Ledger.Forget(ledger.DocKey(k))
		r.Message = fmt.Sprintf("Patched %s and renamed it to %s.", r.Path, r.NewPath)
	}
	return nil
}

// mergeable reports whether every file that failed has a clean merge.
func mergeable(fs []PatchFileResult) bool {
	some := false
	for _, f := range fs {
		if f.Status == "failed" {
			if !f.merged {
				return false
			}
			some = true
		}
	}
	return some
}

func mergeDiffs(fs []PatchFileResult) string {
	var b strings.Builder
	for _, f := range fs {
		if f.merged {
			b.WriteString(f.Merge)
		}
	}
	return b.String()
}

func mergePaths(fs []PatchFileResult) string {
	var ps []string
	for _, f := range fs {
		if f.merged {
			ps = append(ps, f.Path)
		}
	}
	return strings.Join(ps, ", ")
}

// proposeMerge answers with the merge as a proposal: nothing is written.
func (e *Env) proposeMerge(ctx context.Context, p PatchParams, res PatchResult, start time.Time, next string) PatchResult {
	for i := range res.Files {
		switch {
		case res.Files[i].merged:
			res.Files[i].Message += " A three-way merge with the current text is clean: see merge."
		case res.Files[i].Status == "validated":
			res.Files[i].Status, res.Files[i].Message = "skipped", "Not written: another file of the patch needs its merge approved."
		}
	}
	res.Outcome = Outcome{OK: false, Error: firstError(res.Files), Message: "The patch does not apply as written, but a three-way merge with the current text is clean (" + mergePaths(res.Files) + "). " + next}
	e.auditPatch(ctx, p, res, start)
	return res
}

// openTogether lists the files of the patch whose edits go to open
// documents through the editor: those change in one workspace edit.
func (e *Env) openTogether(files []patch.File, keys []workspace.Key) []int {
	if e.editor == nil || e.Config().ApplyVia == "disk" {
		return nil
	}
	var idx []int
	for i, f := range files {
		if f.Kind != patch.Modify || f.NewPath != "" || len(f.Hunks) == 0 {
			continue
		}
		if d, err := e.document(string(keys[i])); err == nil && d.Open {
			idx = append(idx, i)
		}
	}
	return idx
}

// patchCommitOpen writes the patches of several open documents as one
// workspace edit: every document is locked (in key order), planned, guarded
// and diffed, then the editor is asked once; it applies all of them or none.
func (e *Env) patchCommitOpen(ctx context.Context, c Caller, files []patch.File, keys []workspace.Key, idx []int, rs []PatchFileResult) error {
	session := c.SessionOr()
	order := slices.Clone(idx)
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(string(keys[a]), string(keys[b])) })
	for _, i := range order {
		unlock := e.locks.lock(keys[i])
		defer unlock()
	}
	type one struct {
		i    int
		d    workspace.Doc
		plan hashline.Plan
		next *textdoc.Snapshot
		diff string
	}
	var docs []one
	var edits []DocEdit
	for _, i := range idx {
		d, err := e.document(string(keys[i]))
		if err != nil {
			return err
		}
		if err := e.checkInSync(d); err != nil {
			return err
		}
		plan, targets, err := patchPlanner(files[i], &rs[i])(d)
		if err != nil {
			return err
		}
		if plan.Identity(d.Snap) {
			continue
		}
		next, _, err := plan.Apply(d.Snap)
		if err != nil {
			return fmt.Errorf("plan of %s does not apply: %w", e.WS.Rel(d.Key), err)
		}
		if v := e.guard(session, c.Agent, d, targets); v.Err != nil {
			rs[i].Expanded = v.Expanded
			return v.Err
		}
		docs = append(docs, one{i, d, plan, next, hashline.UnifiedDiff(e.WS.Rel(d.Key), d.Snap, plan.Splices, 3)})
		edits = append(edits, DocEdit{URI: d.URI, Version: d.Version, Changes: plan.Changes(d.Snap, e.editor.Encoding())})
	}
	limit := time.Duration(e.Config().ApplyTimeoutMs) * time.Millisecond
	deadline := time.Now().Add(limit)
	for _, o := range docs {
		regions := o.plan.Regions()
		spans := make([][2]int, len(regions))
		for j, r := range regions {
			spans[j] = [2]int{r.Start - 1, r.End}
		}
		e.WS.ExpectEdit(o.d.Key, o.d.Version, o.next, spans, session)
	}
	cctx, cancel := context.WithDeadline(ctx, deadline)
	applied, reason, err := e.editor.ApplyEdits(cctx, edits)
	cancel()
	if err != nil || !applied {
		for _, o := range docs {
			e.WS.CancelExpect(o.d.Key)
		}
		if err != nil {
			return result.Wrap(result.VersionConflict, err, fmt.Sprintf("The editor did not apply the patch's edit of %d open documents (%v); nothing changed. Read them again and retry.", len(docs), err))
		}
		if reason == "" {
			reason = "no reason given"
		}
		return result.Errorf(result.VersionConflict, "The editor refused the patch's edit of %d open documents (%s): a buffer probably changed. Nothing was applied; read them again and retry.", len(docs), reason)
	}
	for _, o := range docs {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(min(editSettle, time.Until(deadline)), 0))
		_, err := e.WS.WaitVersion(wctx, o.d.Key, o.d.Version)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		e.record(ctx, "sightline/applyPatch", c, o.d.Key, written{before: o.d, after: workspace.Doc{Snap: o.next}, plan: &o.plan})
		r := &rs[o.i]
		r.Status, r.Message, r.Diff = "applied", "Patched "+r.Path+" (open in the editor, in one edit with the patch's other open documents).", o.diff
	}
	for _, i := range idx {
		if rs[i].Status != "applied" {
			rs[i].Status, rs[i].Message = "applied", "Patched "+rs[i].Path+" (no change)."
		}
	}
	return nil
}

func firstError(fs []PatchFileResult) result.Kind {
	for _, f := range fs {
		if f.Status == "failed" {
			return f.Error
		}
	}
	return ""
}

func firstMessage(fs []PatchFileResult) string {
	for _, f := range fs {
		if f.Status == "failed" {
			return f.Path + ": " + f.Message
		}
	}
	return ""
}
