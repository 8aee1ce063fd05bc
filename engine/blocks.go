package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sightline-lsp/sightline/editblock"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// BlocksParams are the params of sightline/applyBlocks; dry_run is the
// sightline_apply_blocks tool's spelling of dryRun.
type BlocksParams struct {
	Caller
	Text      string `json:"text"`
	DryRun    bool   `json:"dryRun,omitempty"`
	DryRunAlt bool   `json:"dry_run,omitempty"`
	// Stage runs `git add` on written files (off by default).
	Stage bool `json:"stage,omitempty"`
}

// BlockDiagnostic says why a block failed.
type BlockDiagnostic struct {
	Kind string `json:"kind"`
	Line int    `json:"line,omitempty"`
}

// BlockResult is one block's outcome.
type BlockResult struct {
	Index      int              `json:"index"`
	Path       string           `json:"path"`
	Status     string           `json:"status"` // applied, validated, failed, skipped
	Message    string           `json:"message"`
	Error      result.Kind      `json:"error,omitempty"`
	Diagnostic *BlockDiagnostic `json:"diagnostic,omitempty"`
	Diff       string           `json:"diff,omitempty"`
	Expanded   string           `json:"expanded,omitempty"`

	done string // the message once written
}

// BlocksResult is the answer of sightline/applyBlocks.
type BlocksResult struct {
	Outcome
	Blocks []BlockResult `json:"blocks"`
}

// Blocks applies edit blocks all or none: each is checked as soon as it
// arrives, in output order, against the file as the previous ones leave it;
// when the output ends and every block checked, all of them are written in
// one multi-file write transaction (commitWrites). It is the streaming
// engine behind sightline/applyBlocks and `sightline apply`.
type Blocks struct {
	e       *Env
	caller  Caller
	dryRun  bool
	stage   bool
	parser  *editblock.Parser
	scratch map[workspace.Key]*textdoc.Snapshot // each file as the earlier blocks leave it
	files   map[workspace.Key]*blockFile        // what the blocks write, by file
	order   []workspace.Key                     // files in the order blocks first name them
	results []BlockResult
	// overflow is set when the block being read outgrew MaxBlockBuffer: the
	// rest of the output is not read.
	overflow *BlockResult
}

// MaxBlockBuffer bounds what one unfinished edit block may hold in memory:
// both halves of a block at the largest write (MaxWriteSize each) fit. Past
// it the output is refused rather than buffered without end.
const MaxBlockBuffer = 3 * MaxWriteSize

// NewBlocks starts a run.
func (e *Env) NewBlocks(c Caller, dryRun, stage bool) *Blocks {
	e.Serve(c.SessionOr())
	b := &Blocks{e: e, caller: c, dryRun: dryRun, stage: stage, parser: editblock.NewParser(), scratch: map[workspace.Key]*textdoc.Snapshot{}, files: map[workspace.Key]*blockFile{}}
	b.parser.Exists = b.exists
	return b
}

// exists reports whether name is a file of the workspace (or one an earlier
// block of this output creates): a bare name without '/' or extension
// before a block is its path only then.
func (b *Blocks) exists(name string) bool {
	k, err := b.e.WS.Resolve(name)
	if err != nil {
		return false
	}
	if _, ok := b.scratch[k]; ok {
		return true
	}
	_, err = b.e.get(k)
	return err == nil
}

// blockFile is one file the blocks write: its text before the first block
// (none for a file a block creates) and after the last.
type blockFile struct {
	rel    string
	before workspace.Doc
	next   *textdoc.Snapshot
	plan   *hashline.Plan // the one block's plan; nil after several
	create bool
	blocks []int // results' positions of the blocks that change it
}

// Write feeds model output; every block it completes is applied at once and
// its result returned.
func (b *Blocks) Write(ctx context.Context, chunk []byte) []BlockResult {
	if b.overflow != nil {
		return nil
	}
	var out []BlockResult
	for _, blk := range b.parser.Write(chunk) {
		r := b.apply(ctx, blk)
		b.results = append(b.results, r)
		out = append(out, r)
	}
	if n := b.parser.Buffered(); n > MaxBlockBuffer {
		r := BlockResult{Status: "skipped", Error: result.TooLarge, Index: -1}
		if pd := b.parser.Pending(); pd != nil {
			r.Index, r.Path = pd.Index, pd.Path
			r.Message = fmt.Sprintf("The edit block starting at line %d holds over %d MiB without its >>>> EDIT END: refused, and the output after it was not read. Split the change into smaller blocks.", pd.Line, MaxBlockBuffer>>20)
		} else {
			r.Message = fmt.Sprintf("A line of the output is over %d MiB: refused, and the output after it was not read.", MaxBlockBuffer>>20)
		}
		b.overflow = &r
		b.parser = editblock.NewParser() // release what it held
		out = append(out, r)
	}
	return out
}

// Overflowed reports whether the output was cut off at an oversized block.
func (b *Blocks) Overflowed() bool { return b.overflow != nil }

// Close ends the output: blocks the parser could not complete are reported
// as skipped. Then, unless it is a dry run, the blocks are written if every
// one of them checked, else none is. It returns every result in output
// order.
func (b *Blocks) Close(ctx context.Context) BlocksResult {
	ctx = withGrants(ctx)
	start := time.Now()
	var extra []BlockResult
	// Close first: the end of the output can still turn an open block into
	// an orphan.
	if p := b.parser.Close(); p != nil {
		extra = append(extra, BlockResult{Index: p.Index, Path: p.Path, Status: "skipped", Message: p.Message, Error: result.InvalidEdit})
	}
	for _, o := range b.parser.Orphans() {
		extra = append(extra, BlockResult{Index: o.Index, Path: o.Path, Status: "skipped", Message: o.Message, Error: result.InvalidEdit})
	}
	if b.overflow != nil {
		extra = append(extra, *b.overflow)
	}
	for _, r := range extra {
		b.e.audit(ctx, b.caller, r.Path, Refusal(result.Errorf(r.Error, "%s", r.Message)), "", "", "", time.Since(start), []byte(r.Path))
	}
	all := append(append([]BlockResult(nil), b.results...), extra...)
	res := BlocksResult{Outcome: Outcome{OK: true}, Blocks: all}
	var bad *BlockResult
	for i := range all {
		if all[i].Status == "failed" || all[i].Status == "skipped" {
			if bad == nil || all[i].Index < bad.Index {
				bad = &all[i]
			}
		}
	}
	switch {
	case bad != nil:
		res.OK, res.Error = false, bad.Error
		if bad.Status == "failed" {
			res.Error = result.NoMatch
		}
		if b.overflow != nil {
			res.Error = result.TooLarge
		}
		if !b.dryRun {
			for i := range all {
				if all[i].Status == "validated" {
					all[i].Status, all[i].Message = "skipped", fmt.Sprintf("Not written: block %d was not applied, and the blocks of one output are written all or none.", bad.Index+1)
				}
			}
		}
	case !b.dryRun:
		b.commit(ctx, all, &res, start)
	default: // a dry run's verdicts are audited as a patch's are
		b.auditAll(ctx, all, start)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Index < all[j].Index })
	res.Blocks = all
	if all == nil {
		res.Blocks = []BlockResult{}
	}
	counts := map[string]int{}
	for _, r := range all {
		counts[r.Status]++
	}
	res.Message = fmt.Sprintf("%d %s: %d applied, %d validated, %d failed, %d skipped.", len(all), plural(len(all), "block", "blocks"), counts["applied"], counts["validated"], counts["failed"], counts["skipped"])
	if bad != nil {
		where := bad.Path
		if where == "" {
			where = "no file named"
		}
		res.Message = fmt.Sprintf("Block %d (%s) was %s: %s", bad.Index+1, where, bad.Status, bad.Message)
		if !b.dryRun {
			res.Message += " Nothing was written."
		}
		res.Message += " " + fmt.Sprintf("%d %s: %d failed, %d skipped.", len(all), plural(len(all), "block", "blocks"), counts["failed"], counts["skipped"])
	}
	if len(all) == 0 {
		res.OK, res.Error = false, result.InvalidEdit
		res.Message = "No edit blocks found: a block is a path line, then <<<< EDIT, the old lines, ==== REPLACE, the new lines, >>>> EDIT END (or aider's <<<<<<< SEARCH, =======, >>>>>>> REPLACE)."
	}
	// A streamed run has no envelope around it: its answer carries the
	// warnings of every answer here.
	b.e.Annotate(&res.Outcome)
	return res
}

// commit writes every block's file in one transaction.
func (b *Blocks) commit(ctx context.Context, all []BlockResult, res *BlocksResult, start time.Time) {
	e := b.e
	var ws []fileWrite
	fail := func(err error) {
		o := Refusal(err)
		for i := range all {
			all[i].Status, all[i].Message, all[i].Error = "failed", o.Message, o.Error
		}
		res.OK, res.Error = false, o.Error
	}
	for _, k := range b.order {
		f := b.files[k]
		if f.create {
			ws = append(ws, fileWrite{op: opCreate, key: k, rel: f.rel, next: f.next, mode: 0o644})
			continue
		}
		if f.next == f.before.Snap {
			continue // its blocks change nothing
		}
		w := fileWrite{op: opModify, key: k, rel: f.rel, before: f.before, next: f.next, plan: f.plan}
		if len(f.blocks) > 1 {
			// Several blocks: one plan from the first text to the last,
			// guarded whole.
			p, targets := diffPlan(f.before.Snap, f.next)
			w.plan = &p
			if v := e.guard(b.caller.SessionOr(), b.caller.Agent, f.before, targets); v.Err != nil {
				fail(v.Err)
				all[f.blocks[len(f.blocks)-1]].Expanded = v.Expanded
				b.auditAll(ctx, all, start)
				return
			}
		}
		ws = append(ws, w)
	}
	warnings, err := e.commitWrites(ctx, b.caller, ws)
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil {
		fail(err)
		b.auditAll(ctx, all, start)
		return
	}
	for i := range all {
		if all[i].Status == "validated" {
			all[i].Status, all[i].Message = "applied", all[i].done
		}
	}
	for _, k := range b.order {
		if w := b.stageFile(k); w != "" {
			res.Warnings = append(res.Warnings, w)
		}
	}
	b.auditAll(ctx, all, start)
}

func (b *Blocks) auditAll(ctx context.Context, all []BlockResult, start time.Time) {
	for _, r := range all {
		o := Outcome{OK: r.Status == "applied" || r.Status == "validated"}
		if !o.OK {
			o = Refusal(result.Errorf(r.Error, "%s", r.Message))
		}
		b.e.audit(ctx, b.caller, r.Path, o, "", "", "", time.Since(start), []byte(r.Path))
	}
}

// ApplyBlocks answers sightline/applyBlocks.
func (e *Env) ApplyBlocks(ctx context.Context, p BlocksParams) (BlocksResult, error) {
	run := e.NewBlocks(p.Caller, p.DryRun || p.DryRunAlt, p.Stage)
	run.Write(withGrants(ctx), []byte(p.Text))
	res := run.Close(ctx)
	return res, nil
}

func (b *Blocks) apply(ctx context.Context, blk editblock.Block) BlockResult {
	e := b.e
	start := time.Now()
	// Named as the admission step names it (relative inside the workspace,
	// absolute outside), in the answer and the audit row alike.
	r := BlockResult{Index: blk.Index, Path: e.WS.Rel(e.WS.KeyOf(blk.Path))}
	fail := func(err error) BlockResult {
		r.Status, r.Message, r.Error = "failed", result.Message(err), result.KindOf(err)
		e.audit(ctx, b.caller, r.Path, Refusal(err), "", "", "", time.Since(start), []byte(blk.Path))
		return r
	}
	k, err := e.WS.Resolve(blk.Path)
	if err != nil {
		return fail(err)
	}
	r.Path = e.WS.Rel(k)
	if blk.IsCreate() {
		return b.create(ctx, blk, k, r, fail)
	}
	if err := echoRefusal(blk.New, blk.Old); err != nil {
		return fail(err)
	}
	var m editblock.Match
	plan := func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
		var diag *editblock.Diagnostic
		m, diag = editblock.MatchBlock(d.Snap, blk, d.Snap.Dominant())
		if diag != nil {
			r.Diagnostic = &BlockDiagnostic{Kind: diag.Kind, Line: diag.Line}
			return hashline.Plan{}, nil, diag.Err()
		}
		return m.Plan, []ledger.Range{{Start: m.Start, End: m.End}}, nil
	}
	f := b.files[k]
	var out writeOut
	if f != nil && f.create {
		// A file an earlier block creates: planned against the text it
		// will have.
		out, err = planOn(k, r.Path, f.next, plan)
	} else {
		// Checked as a write (policy, .git, the guard on the file's first
		// block), written when the output ends.
		out, err = e.transact(ctx, writeReq{caller: b.caller, uri: string(k), dryRun: true, scratch: b.scratch[k], plan: plan,
			input: append(slices.Clip(blk.Old), blk.New...), what: "The edit block"})
	}
	if err != nil {
		if result.KindOf(err) == result.Binary {
			r = fail(err)
			r.Status = "skipped"
			return r
		}
		r.Expanded = out.verdict.Expanded
		return fail(err)
	}
	r.Diff = out.diff
	if f == nil {
		f = &blockFile{rel: r.Path, before: out.before, next: out.before.Snap}
		b.files[k], b.order = f, append(b.order, k)
	}
	if !out.noop {
		b.scratch[k] = out.next
		f.next = out.next
		f.blocks = append(f.blocks, len(b.results))
		plan := out.plan
		f.plan = &plan
	}
	r.Status = "validated"
	switch {
	case out.noop:
		r.Message = fmt.Sprintf("The block for %s changes nothing (both halves are the same).", r.Path)
		r.done = r.Message
	case b.dryRun:
		r.Message = fmt.Sprintf("The block for %s matches lines %d-%d and would apply.", r.Path, m.Start, m.End)
	default:
		r.Message = fmt.Sprintf("The block for %s matches lines %d-%d; it is written with the others when the output ends (all or none).", r.Path, m.Start, m.End)
		r.done = fmt.Sprintf("Applied to %s at lines %d-%d.", r.Path, m.Start, m.End)
	}
	return r
}

// planOn plans a block against a text no file holds yet.
func planOn(k workspace.Key, rel string, s *textdoc.Snapshot, plan planner) (writeOut, error) {
	d := workspace.Doc{Key: k, Rel: rel, Snap: s}
	out := writeOut{before: d, after: d}
	p, _, err := plan(d)
	if err != nil {
		return out, err
	}
	_, err = out.apply(rel, s, p)
	return out, err
}

func (b *Blocks) create(ctx context.Context, blk editblock.Block, k workspace.Key, r BlockResult, fail func(error) BlockResult) BlockResult {
	e := b.e
	var content string
	for _, l := range blk.New {
		content += l + "\n"
	}
	if _, ok := b.files[k]; ok {
		return fail(result.Errorf(result.Exists, "An earlier block already writes %s: a block with an empty EDIT half creates a file.", r.Path))
	}
	if _, err := e.get(k); err == nil || result.KindOf(err) != result.NotFound {
		if err == nil {
			err = result.Errorf(result.Exists, "%s already exists: a block with an empty EDIT half creates a file; to change this one, put the lines to replace in the EDIT half.", r.Path)
		}
		return fail(err)
	}
	wr, err := e.create(ctx, b.caller.SessionOr(), k, content, WriteParams{Caller: b.caller, DryRun: true}, WriteResult{Path: r.Path})
	if err != nil {
		return fail(err)
	}
	if !wr.OK {
		return fail(result.Errorf(wr.Error, "%s", wr.Message))
	}
	r.Diff = wr.Diff
	next := textdoc.New(content)
	b.scratch[k] = next
	b.files[k] = &blockFile{rel: r.Path, next: next, create: true, blocks: []int{len(b.results)}}
	b.order = append(b.order, k)
	r.Status = "validated"
	if b.dryRun {
		r.Message = fmt.Sprintf("%s would be created.", r.Path)
	} else {
		r.Message = fmt.Sprintf("%s is created with the other blocks' files when the output ends (all or none).", r.Path)
		r.done = fmt.Sprintf("Created %s.", r.Path)
	}
	return r
}

// stageFile runs `git add` on a written file when staging was asked for,
// in the workspace's own repository (the folder holding the workspace's
// .git), with hooks and the file system monitor off: nothing the files
// written could configure runs. A file inside a nested repository is not
// staged. What was not staged is a warning, not the block's failure: the
// file is written.
func (b *Blocks) stageFile(k workspace.Key) string {
	path, ok := k.Path()
	if !b.stage || !ok {
		return ""
	}
	root, rel, err := b.e.WS.Locate(k)
	if err != nil {
		return ""
	}
	top := root.Dir()
	rel = filepath.ToSlash(rel)
	gitDir := filepath.Join(top, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return fmt.Sprintf("%s was not staged: the workspace (%s) is not the top of a git repository.", rel, top)
	}
	for dir := filepath.Dir(path); dir != top && strings.HasPrefix(dir, top); dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return fmt.Sprintf("%s was not staged: it is inside another repository (%s), which sightline does not run git in.", rel, dir)
		}
	}
	cmd := exec.Command("git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "add", "--", rel)
	cmd.Dir = top
	cmd.Env = append(os.Environ(), "GIT_DIR="+gitDir, "GIT_WORK_TREE="+top)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("%s was written but not staged: git add: %v %s", rel, err, strings.TrimSpace(string(out)))
	}
	return ""
}
