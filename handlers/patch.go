package handlers

import (
	"context"
	"fmt"
	"strings"
	"time"

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
	for i, f := range files {
		r := &res.Files[i]
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
		plan, placed, fail := patch.Plan(d.Snap, f, d.Snap.Dominant())
		if fail != nil {
			r.Hunk, r.Line = fail.Hunk+1, fail.Line
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
	}
	return k, err
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
