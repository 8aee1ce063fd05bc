package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sightline-lsp/sightline/editblock"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/result"
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
	Status  string      `json:"status"` // applied, validated, unchanged, failed, skipped
	Message string      `json:"message"`
	Error   result.Kind `json:"error,omitempty"`
	// Hunk is the 1-based hunk that failed and Line the closest line of the
	// file, when known.
	Hunk int `json:"hunk,omitempty"`
	Line int `json:"line,omitempty"`
	// Diagnostic says why the hunk does not apply, as for edit blocks:
	// whitespace_mismatch, near_match, not_found, ambiguous.
	Diagnostic *BlockDiagnostic `json:"diagnostic,omitempty"`
	Diff       string           `json:"diff,omitempty"`
	Expanded   string           `json:"expanded,omitempty"`
	// FreshRefs are the current lines around a hunk that does not apply (the
	// closest match, the merged place, or the header's line), as hashline
	// refs, counted as read.
	FreshRefs []string `json:"freshRefs,omitempty"`
	// Merge is the diff of a clean three-way merge of the hunks that no
	// longer apply: a proposal, written only with the user's approval.
	Merge string `json:"merge,omitempty"`

	kind   string // the failed hunk's diagnosis
	merged bool   // the merge plan is what gets written
	// unchanged: the section's hunks change nothing, and it renames and
	// sets the mode of nothing.
	unchanged bool
	done      string // the message once written
	// placed says where V4A chunks whose lines occur at several places
	// went (the first after the chunk before), for the message.
	placed string
}

// PatchResult is the answer of sightline/applyPatch.
type PatchResult struct {
	Outcome
	Files []PatchFileResult `json:"files"`
}

// ApplyPatch applies a patch exactly or not at all: every file is checked
// (every rule, every section of a file in sequence, the guard) before any
// is written, and then all of them are written in one multi-file write
// transaction (commitWrites).
func (e *Env) ApplyPatch(ctx context.Context, p PatchParams) (PatchResult, error) {
	res, warnings := e.applyPatch(withGrants(ctx), p)
	for _, w := range warnings {
		res.addWarning(w)
	}
	auditPatch(p, &res)
	return res, nil
}

// applyPatch is ApplyPatch but its audit, which every way out shares; the
// warnings are the write transaction's.
func (e *Env) applyPatch(ctx context.Context, p PatchParams) (res PatchResult, warnings []string) {
	res = PatchResult{Files: []PatchFileResult{}}
	dry := p.DryRun || p.DryRunAlt
	files, err := patch.Parse(p.Text)
	if err != nil {
		var pe *patch.Error
		if errors.As(err, &pe) && pe.Binary {
			res.Outcome = Refusal(result.Errorf(result.Binary, "%v: nothing was written. Change binary files with git or another tool.", err))
		} else {
			res.Outcome = Refusal(result.Errorf(result.InvalidEdit, "The patch cannot be applied: %v. Send a unified diff (--- a/file, +++ b/file, @@ hunks) or a *** Begin Patch … *** End Patch envelope that changes at least one file.", err))
		}
		return res, nil
	}
	for _, f := range files {
		res.Files = append(res.Files, PatchFileResult{Path: f.Path, NewPath: f.NewPath, Kind: string(f.Kind)})
	}
	writes, failed := e.patchWrites(ctx, p.Caller, files, res.Files)
	if failed && mergeable(res.Files) {
		diffs := mergeDiffs(res.Files)
		if !p.Merge || dry {
			return proposeMerge(res, "Run it again with merge to apply it once the user approves; or read the fresh refs and send a new patch."), nil
		}
		ap := e.approverOf(ctx)
		if ap == nil {
			return proposeMerge(res, "Nobody can approve it here (no editor to ask, no terminal, no --yes); nothing was written."), nil
		}
		dec, err := ap.Approve(ctx, Approval{Session: p.SessionOr(), Agent: p.Agent, Path: mergePaths(res.Files), Op: "merge", Detail: diffs})
		if err != nil || dec == Deny {
			why := "The user refused the merge; nothing was written."
			if err != nil {
				why = fmt.Sprintf("The merge was not approved (%v); nothing was written.", err)
			}
			res := proposeMerge(res, why)
			res.Error = result.ApprovalRefused
			return res, nil
		}
		// What is written is what was approved: the patch is checked again
		// with the merges, and a file that moved on while the user looked is
		// refused.
		again := make([]PatchFileResult, len(res.Files))
		for i, r := range res.Files {
			again[i] = PatchFileResult{Path: r.Path, NewPath: r.NewPath, Kind: r.Kind, merged: r.merged}
		}
		writes, failed = e.patchWrites(ctx, p.Caller, files, again)
		for i := range again {
			if failed || again[i].merged && again[i].Diff != res.Files[i].Merge {
				res.Outcome = Outcome{OK: false, Error: result.FileChanged, Message: res.Files[i].Path + " changed while the merge was being approved; nothing was written. Send the patch again."}
				return res, nil
			}
		}
		for i := range again {
			if again[i].merged {
				again[i].Message = "The three-way merge was approved."
			}
		}
		res.Files = again
	}
	if failed {
		for i := range res.Files {
			if res.Files[i].Status == "validated" {
				res.Files[i].Status, res.Files[i].Message = "skipped", "Not written: another file of the patch does not apply."
			}
		}
		res.Outcome = Outcome{OK: false, Error: firstError(res.Files), Message: "The patch does not apply; nothing was written. " + firstMessage(res.Files)}
		return res, nil
	}
	changed := 0
	for i := range res.Files {
		if r := &res.Files[i]; r.unchanged {
			r.Status, r.Message = "unchanged", r.done
		} else {
			changed++
		}
	}
	if changed == 0 {
		res.Outcome = Outcome{OK: true, Message: "The patch changes nothing: every line it writes is already the file's; no file was touched."}
		return res, nil
	}
	same := ""
	if n := len(files) - changed; n > 0 {
		same = fmt.Sprintf(" (%d more %s nothing)", n, plural(n, "section changes", "sections change"))
	}
	if dry {
		res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Dry run: the patch applies to %d %s%s; nothing was written.", changed, plural(changed, "file", "files"), same)}
		return res, nil
	}
	warnings, err = e.commitWrites(ctx, p.Caller, writes)
	if err != nil {
		o := Refusal(err)
		for i := range res.Files {
			res.Files[i].Status, res.Files[i].Message, res.Files[i].Error = "failed", o.Message, o.Error
		}
		if o.Error == result.IOError && strings.Contains(o.Message, "was decided") {
			res.Outcome = Outcome{OK: false, Error: o.Error, Message: o.Message}
		} else {
			res.Outcome = Outcome{OK: false, Error: o.Error, Message: "The patch was not applied; nothing was written. " + o.Message}
		}
		return res, warnings
	}
	for i := range res.Files {
		r := &res.Files[i]
		if r.unchanged {
			continue
		}
		r.Status = "applied"
		if r.Message == "" || r.Message == "validated" || r.Message == r.placed {
			r.Message = strings.TrimSpace(r.done + " " + r.placed)
		}
	}
	res.Outcome = Outcome{OK: true, Message: fmt.Sprintf("Applied the patch to %d %s%s.", changed, plural(changed, "file", "files"), same)}
	return res, warnings
}

// auditPatch audits a patch: a row per file, or one for a patch that names
// none it could read.
func auditPatch(p PatchParams, res *PatchResult) {
	text := []byte(p.Text) // one slice: the rows' digest is computed once (Finish)
	if len(res.Files) == 0 {
		res.audit(auditRow{caller: p.Caller, args: text})
		return
	}
	for _, f := range res.Files {
		o := Outcome{OK: f.Status == "applied" || f.Status == "validated" || f.Status == "unchanged"}
		if !o.OK {
			o.Error = f.Error
		}
		res.audit(auditRow{caller: p.Caller, path: f.Path, args: text, verdict: &o})
	}
}

// patchPlanner plans one file patch against the document.
func patchPlanner(f patch.File, r *PatchFileResult) planner {
	return func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
		var plan hashline.Plan
		var placed []patch.Placed
		var fail *patch.Failure
		f := marklessFile(d.Snap, f)
		if r.merged {
			plan, placed, _, fail = patch.MergePlan(d.Snap, f, d.Snap.Dominant())
		} else {
			plan, placed, fail = patch.Plan(d.Snap, f, d.Snap.Dominant())
		}
		if fail != nil {
			r.Hunk, r.Line, r.kind = fail.Hunk+1, fail.Line, fail.Kind
			if conflictKind(fail.Kind) {
				r.Diagnostic = &BlockDiagnostic{Kind: fail.Kind, Line: fail.Line}
			}
			return hashline.Plan{}, nil, fail.Err
		}
		targets := make([]ledger.Range, len(placed))
		for i, pl := range placed {
			targets[i] = ledger.Range{Start: pl.Start, End: pl.End}
		}
		r.placed = placedNote(placed)
		return plan, targets, nil
	}
}

// placedNote tells where the V4A chunks whose lines occur at several
// places went: the format puts each at the first place after the chunk
// before it, which another format would refuse as ambiguous, so the model
// is told (the diff shows it too).
func placedNote(placed []patch.Placed) string {
	var b strings.Builder
	shown, more := 0, 0
	for _, p := range placed {
		if p.Also == 0 {
			continue
		}
		if shown == 3 {
			more++
			continue
		}
		if shown == 0 {
			b.WriteString("V4A places a hunk at the first place its lines occur after the hunk and @@ lines before it: ")
		} else {
			b.WriteString("; ")
		}
		span := fmt.Sprintf("lines %d-%d", p.Start, p.End)
		if p.Start == p.End {
			span = fmt.Sprintf("line %d", p.Start)
		}
		fmt.Fprintf(&b, "hunk %d went to %s (its lines occur again at line %d)", p.Hunk+1, span, p.Also)
		shown++
	}
	if more > 0 {
		fmt.Fprintf(&b, "; and %d more %s", more, plural(more, "hunk", "hunks"))
	}
	if shown > 0 {
		b.WriteString(". Check the diff; add an @@ line or context if a hunk was meant elsewhere.")
	}
	return b.String()
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
	f = marklessFile(s, f)
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
	r.FreshRefs = e.freshRefs(c.SessionOr(), c.Agent, d, rs...)
	if fail != nil || len(merged) == 0 {
		return
	}
	m := *r
	m.merged = true
	out, err := e.transact(ctx, writeReq{caller: c, uri: string(k), dryRun: true, plan: patchPlanner(f, &m)})
	if err != nil || out.noop {
		return
	}
	r.Merge, r.merged = out.diff, true
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
func proposeMerge(res PatchResult, next string) PatchResult {
	for i := range res.Files {
		switch {
		case res.Files[i].merged:
			res.Files[i].Message += " A three-way merge with the current text is clean: see merge."
		case res.Files[i].Status == "validated":
			res.Files[i].Status, res.Files[i].Message = "skipped", "Not written: another file of the patch needs its merge approved."
		}
	}
	res.Outcome = Outcome{OK: false, Error: firstError(res.Files), Message: "The patch does not apply as written, but a three-way merge with the current text is clean (" + mergePaths(res.Files) + "). " + next}
	return res
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
