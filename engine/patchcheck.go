package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path/filepath"

	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/linediff"
	"github.com/sightline-lsp/sightline/lines"
	"github.com/sightline-lsp/sightline/patch"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// patchWrites checks every file of a patch, in order, without writing, and
// returns the writes that make it: one per file of the workspace, however
// many sections of the patch change it (each applies to the text the
// earlier ones leave). Every rule is checked here, before anything is
// written: the policy and version control folders for every name, folders
// that are files, links deleted or renamed, each hunk's lines, the guard.
// rs gets each file's outcome; failed says whether any does not apply.
func (e *Env) patchWrites(ctx context.Context, c Caller, files []patch.File, rs []PatchFileResult) (ws []fileWrite, failed bool) {
	cur := map[workspace.Key]int{}      // a file's write so far, by name now
	gone := map[workspace.Key]string{}  // names an earlier section deleted or renamed away
	sections := map[workspace.Key]int{} // sections that changed a file's text
	for i, f := range files {
		r := &rs[i]
		err := e.patchFile(ctx, c, i, f, r, &ws, cur, gone, sections)
		if err != nil {
			r.Status, r.Message, r.Error = "failed", result.Message(err), result.KindOf(err)
			if r.Error == "" {
				r.Error = "internal"
			}
			failed = true
			continue
		}
		r.Status, r.Message = "validated", r.placed
	}
	if failed {
		return nil, true
	}
	// A file several sections changed: one plan from its first text to its
	// last, guarded as a whole (the lines it changes must be known).
	for i := range ws {
		w := &ws[i]
		if w.op == opCreate || w.op == opDelete || sections[w.key] < 2 && sections[w.to] < 2 {
			continue
		}
		p, targets := diffPlan(w.before.Snap, w.next)
		w.plan = &p
		if v := e.guard(c.SessionOr(), c.Agent, w.before, targets); v.Err != nil {
			r := &rs[w.rank]
			r.Status, r.Message, r.Error, r.Expanded = "failed", result.Message(v.Err), result.KindOf(v.Err), v.Expanded
			failed = true
		}
	}
	if failed {
		return nil, true
	}
	return ws, false
}

// patchFile checks one section of a patch and folds it into the writes.
func (e *Env) patchFile(ctx context.Context, c Caller, at int, f patch.File, r *PatchFileResult, ws *[]fileWrite, cur map[workspace.Key]int, gone map[workspace.Key]string, sections map[workspace.Key]int) error {
	k, err := e.writable(ctx, c, f.Path)
	if err != nil {
		return err
	}
	r.Path = e.WS.Rel(k)
	if why, ok := gone[k]; ok {
		return result.Errorf(result.NotFound, "%s: an earlier section of the patch %s it; a patch changes each file in one place. Nothing was written.", r.Path, why)
	}
	mode, err := gitMode(f.Mode, r.Path)
	if err != nil {
		return err
	}
	j, seen := cur[k]
	switch f.Kind {
	case patch.Add:
		if seen {
			return result.Errorf(result.Exists, "%s is added by the patch but an earlier section already changes it; nothing was written.", r.Path)
		}
		if _, err := e.get(k); err == nil {
			// As Codex does, adding a file that exists replaces it; but only
			// what write's overwrite mode allows: the whole file read and
			// unchanged since. The file keeps its line breaks.
			w, err := e.replaceExisting(ctx, c, k, r, f.Text("\n"), "adds it as a new file")
			if err != nil {
				return err
			}
			w.rank, w.mode = at, mode
			r.done = "Replaced " + r.Path + "."
			cur[k] = len(*ws)
			*ws = append(*ws, w)
			return nil
		} else if result.KindOf(err) != result.NotFound {
			return err
		}
		if mode == 0 {
			mode = 0o644
		}
		root, rel, err := e.WS.Locate(k)
		if err != nil {
			return err
		}
		// The patch's line breaks, else the ones .editorconfig declares.
		eol := workspace.DeclaredEOL(root, filepath.ToSlash(rel))
		if eol == "" {
			eol = "\n"
		}
		content := f.Text(eol)
		if _, err := newFileDoc(root, rel, k, r.Path, "The patch", textdoc.New(content)); err != nil {
			return err
		}
		if content != "" { // an empty file has no hunk to show
			r.Diff = hashline.UnifiedDiff(r.Path, hashline.TextSource(""), []hashline.Splice{{Start: 0, Old: 0, New: lines.Split(content)}}, 3)
		}
		r.done = "Created " + r.Path + "."
		cur[k] = len(*ws)
		*ws = append(*ws, fileWrite{op: opCreate, key: k, rel: r.Path, rank: at, next: textdoc.New(content), mode: mode})
		return nil
	case patch.Delete:
		if err := e.notLink(k, r.Path, "delete"); err != nil {
			return err
		}
		var d workspace.Doc
		if seen {
			w := (*ws)[j]
			if w.op != opModify {
				return result.Errorf(result.InvalidEdit, "%s is deleted by the patch after an earlier section creates or renames it; nothing was written.", r.Path)
			}
			d = workspace.Doc{Key: k, Rel: w.rel, Snap: w.next}
		} else {
			if d, _, err = e.document(string(k)); err != nil {
				return err
			}
			if d.Open {
				return result.Errorf(result.Denied, "%s is open in the editor: close it before a patch deletes it.", r.Path)
			}
		}
		if err := deletesAll(f, d.Snap, r.Path); err != nil {
			return err
		}
		if !seen {
			// Deleting a file drops every line: all of them must be known.
			if v := e.guard(c.SessionOr(), c.Agent, d, []ledger.Range{{Start: 1, End: d.Snap.LineCount()}}); v.Err != nil && d.Snap.LineCount() > 0 {
				r.Expanded = v.Expanded
				return v.Err
			}
		}
		if d.Snap.LineCount() > 0 {
			r.Diff = hashline.UnifiedDiff(r.Path, d.Snap, []hashline.Splice{{Start: 0, Old: d.Snap.LineCount()}}, 3)
		}
		r.done = "Deleted " + r.Path + "."
		gone[k] = "deletes"
		delete(cur, k)
		if seen {
			w := &(*ws)[j]
			w.op, w.next, w.plan, w.rank = opDelete, nil, nil, at
			return nil
		}
		*ws = append(*ws, fileWrite{op: opDelete, key: k, rel: r.Path, rank: at, before: d})
		return nil
	}
	// A modify: hunks, a mode, a rename, or all of them.
	var w fileWrite
	if seen {
		w = (*ws)[j]
	} else {
		d, _, err := e.document(string(k))
		if result.KindOf(err) == result.NotFound {
			// Codex writes the sections before this one; sightline writes
			// nothing, so the whole patch can be sent again corrected.
			return result.Wrap(result.NotFound, err, fmt.Sprintf("%s does not exist, so the patch cannot update it. Check the path, or add it as a new file (*** Add File: %s, or --- /dev/null), and send the whole patch again.", r.Path, r.Path))
		}
		if err != nil {
			return err
		}
		w = fileWrite{op: opModify, key: k, rel: r.Path, before: d, next: d.Snap}
	}
	if len(f.Hunks) > 0 {
		req := writeReq{caller: c, uri: string(k), dryRun: true, plan: patchPlanner(f, r), input: hunkLines(f), what: "The patch"}
		if seen {
			req.scratch = w.next
		}
		out, err := e.transact(ctx, req)
		r.Diff = out.diff
		if err != nil {
			r.Expanded = out.verdict.Expanded
			if conflictKind(r.kind) && out.before.Snap != nil {
				e.patchConflict(ctx, c, f, k, out.before, r)
			}
			return err
		}
		if !seen {
			w.before = out.before
			plan := out.plan
			w.plan = &plan
		}
		w.next = out.next
		sections[k]++
	}
	if mode != 0 {
		w.mode = mode
	}
	r.done = "Patched " + r.Path + "."
	if f.Mode != 0 {
		r.done = fmt.Sprintf("Patched %s (mode %o).", r.Path, f.Mode)
	}
	if f.NewPath != "" {
		if seen && w.op != opModify {
			return result.Errorf(result.InvalidEdit, "%s is renamed by the patch after an earlier section creates or renames it; nothing was written.", r.Path)
		}
		if err := e.notLink(k, r.Path, "rename"); err != nil {
			return err
		}
		if w.before.Open {
			return result.Errorf(result.Denied, "%s is open in the editor: close it before a patch renames it.", r.Path)
		}
		nk, err := e.writable(ctx, c, f.NewPath)
		if err != nil {
			return err
		}
		r.NewPath = e.WS.Rel(nk)
		if _, taken := cur[nk]; taken || nk == k {
			return result.Errorf(result.Exists, "%s is changed by another section of the patch: the patch would rename %s over it.", r.NewPath, r.Path)
		}
		if why, ok := gone[nk]; ok {
			return result.Errorf(result.Exists, "%s: an earlier section of the patch %s it; the patch would move %s onto it. A patch changes each file in one place. Nothing was written.", r.NewPath, why, r.Path)
		}
		if _, err := e.get(nk); err == nil {
			// Moving onto a file replaces it (as Codex does) when write's
			// overwrite mode would: the file at the new name becomes the
			// moved text, and the old name is deleted.
			if seen {
				return result.Errorf(result.Exists, "%s already exists: the patch would move %s, which an earlier section changes, over it. Send one section per file.", r.NewPath, r.Path)
			}
			if err := e.notLink(nk, r.NewPath, "replace"); err != nil {
				return err
			}
			dst, err := e.replaceExisting(ctx, c, nk, &PatchFileResult{Path: r.NewPath}, w.next.Text(), "moves "+r.Path+" onto it")
			if err != nil {
				return err
			}
			dst.rank, dst.mode = at, w.mode
			r.done = fmt.Sprintf("Moved %s onto %s, which it replaced.", r.Path, r.NewPath)
			gone[k] = "moves"
			delete(cur, k)
			cur[nk] = len(*ws)
			*ws = append(*ws, dst, fileWrite{op: opDelete, key: k, rel: r.Path, rank: at, before: w.before})
			sections[nk]++
			return nil
		} else if result.KindOf(err) != result.NotFound {
			return err
		}
		w.op, w.to = opRename, nk
		sections[nk] = sections[k]
		gone[k] = "renames"
		delete(cur, k)
		if len(f.Hunks) > 0 {
			r.done = fmt.Sprintf("Patched %s and renamed it to %s.", r.Path, r.NewPath)
		} else {
			r.done = fmt.Sprintf("Renamed %s to %s.", r.Path, r.NewPath)
		}
		if seen {
			(*ws)[j] = w
			cur[nk] = j
			return nil
		}
		w.rank = at
		cur[nk] = len(*ws)
		*ws = append(*ws, w)
		return nil
	}
	if seen {
		(*ws)[j] = w
		return nil
	}
	w.rank = at
	cur[k] = len(*ws)
	*ws = append(*ws, w)
	return nil
}

// hunkLines are the lines of a file patch's hunks, old and new.
func hunkLines(f patch.File) []string {
	var ls []string
	for _, h := range f.Hunks {
		ls = append(append(ls, h.Old...), h.New...)
	}
	return ls
}

// replaceExisting plans the replacement of the existing file k by content,
// guarded as write's overwrite mode is: every line of the file must have
// been read and be unchanged (or the file written by the model). what says
// what the patch does to it, for the refusal.
func (e *Env) replaceExisting(ctx context.Context, c Caller, k workspace.Key, r *PatchFileResult, content, what string) (fileWrite, error) {
	session := c.SessionOr()
	plan := func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
		n := d.Snap.LineCount()
		var targets []ledger.Range
		if st := e.Ledger.Summarize(session, ledger.DocKey(d.Key)); st.State != ledger.FullyRead && st.State != ledger.ModelAuthored && n > 0 {
			targets = []ledger.Range{{Start: 1, End: n}}
		}
		tr := make([]hashline.LineRange, len(targets))
		for i, t := range targets {
			tr[i] = hashline.LineRange{Start: t.Start, End: t.End}
		}
		sp := hashline.Splice{Start: 0, Old: n, New: contentLines(content, d.Snap.Dominant(), true)}
		return hashline.NewPlan(n, []hashline.Splice{sp}, tr), targets, nil
	}
	out, err := e.transact(ctx, writeReq{caller: c, uri: string(k), dryRun: true, plan: plan, input: []string{content}, what: "The patch"})
	r.Diff = out.diff
	if err != nil {
		r.Expanded = out.verdict.Expanded
		if out.verdict.Err != nil {
			return fileWrite{}, result.Wrap(result.KindOf(err), err, fmt.Sprintf("%s already exists and the patch %s, which replaces it: read all of %s first (it must be unchanged since), then send the patch again.", r.Path, what, r.Path))
		}
		return fileWrite{}, err
	}
	p := out.plan
	return fileWrite{op: opModify, key: k, rel: r.Path, before: out.before, next: out.next, plan: &p}, nil
}

// writable resolves a path a patch writes and applies every rule a write
// of it must pass: the policy (denied, sensitive), version control folders,
// links out of the workspace or dangling, folders on the way that are files.
func (e *Env) writable(ctx context.Context, c Caller, path string) (workspace.Key, error) {
	k, err := e.WS.Resolve(path)
	if err != nil {
		return "", err
	}
	if err := e.admit(ctx, c, k, true); err != nil {
		return "", err
	}
	return k, nil
}

// notLink refuses to delete or rename a symbolic link: the file system
// would act on the link, but a reader of the patch means the file, and the
// link's target would be left, or (through the write path, which follows
// links) go instead.
func (e *Env) notLink(k workspace.Key, name, verb string) error {
	root, rel, err := e.WS.Locate(k)
	if err != nil {
		return err
	}
	link, err := root.IsLink(rel)
	if err != nil {
		return err
	}
	if link {
		return result.Errorf(result.Denied, "%s is a symbolic link; sightline does not %s links (nor the files they point to) by patch. Remove or move the link itself with rm or mv. Nothing was written.", name, verb)
	}
	return nil
}

// gitMode turns a patch's git mode into the file's new permission bits: a
// regular file, executable or not. Links and submodules are not files
// sightline writes.
func gitMode(m uint32, name string) (fs.FileMode, error) {
	switch m {
	case 0:
		return 0, nil
	case 0o100755:
		return 0o755, nil
	case 0o100644:
		return 0o644, nil
	}
	return 0, result.Errorf(result.InvalidEdit, "%s: the patch gives it mode %o (a symbolic link or a submodule); sightline applies modes 100644 and 100755 only. Nothing was written.", name, m)
}

// deletesAll checks a deletion's removed lines against the whole file: a
// patch that deletes a file says what it removes, and it must be the file
// exactly (line contents; terminators do not matter). A deletion without
// lines (V4A) says nothing; the guard alone applies.
func deletesAll(f patch.File, s *textdoc.Snapshot, name string) error {
	var old []string
	for _, h := range f.Hunks {
		if len(h.New) > 0 {
			return result.Errorf(result.InvalidEdit, "The patch deletes %s but a hunk of it adds lines; nothing was written.", name)
		}
		old = append(old, h.Old...)
	}
	if len(f.Hunks) == 0 {
		return nil
	}
	n := s.LineCount()
	if n > 0 && s.Line(n-1).Content == "" && s.Line(n-1).Term == "" {
		n-- // the empty remainder after a final line break
	}
	for i := 0; i < max(n, len(old)); i++ {
		if i >= n || i >= len(old) || s.Line(i).Content != old[i] {
			line := min(i+1, max(n, 1))
			return result.Errorf(result.NoMatch, "The patch deletes %s, but its removed lines are not the file (they differ from line %d on; the file has %d lines, the patch removes %d). Nothing was written; read the file and send the deletion of what it holds.", name, line, n, len(old))
		}
	}
	return nil
}

// diffPlan is the plan from before to next by a line diff, and the lines of
// before it changes (for the guard; an insertion counts the line above it).
func diffPlan(before, next *textdoc.Snapshot) (hashline.Plan, []ledger.Range) {
	hs := func(s *textdoc.Snapshot) []uint32 {
		out := make([]uint32, s.LineCount())
		for i := range out {
			h := fnv.New32a()
			l := s.Line(i)
			h.Write([]byte(l.Content))
			h.Write([]byte{0})
			h.Write([]byte(l.Term))
			out[i] = h.Sum32()
		}
		return out
	}
	var splices []hashline.Splice
	var targets []ledger.Range
	var tr []hashline.LineRange
	for _, h := range linediff.Diff(hs(before), hs(next)) {
		nl := make([]lines.Line, h.Ins)
		for i := range nl {
			nl[i] = next.Line(h.B + i)
		}
		splices = append(splices, hashline.Splice{Start: h.A, Old: h.Del, New: nl})
		r := ledger.Range{Start: h.A + 1, End: h.A + h.Del}
		if h.Del == 0 {
			r = ledger.Range{Start: max(h.A, 1), End: max(h.A, 1)}
		}
		if before.LineCount() > 0 {
			r.End = min(r.End, before.LineCount())
			targets = append(targets, r)
			tr = append(tr, hashline.LineRange{Start: r.Start, End: r.End})
		}
	}
	return hashline.NewPlan(before.LineCount(), splices, tr), targets
}
