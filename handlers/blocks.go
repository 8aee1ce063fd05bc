package handlers

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
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
}

// BlocksResult is the answer of sightline/applyBlocks.
type BlocksResult struct {
	Outcome
	Blocks []BlockResult `json:"blocks"`
}

// Blocks applies edit blocks one at a time, in output order; each sees the
// file as the previous ones left it. It is the streaming engine behind
// sightline/applyBlocks and `sightline apply`.
type Blocks struct {
	e       *Env
	caller  Caller
	dryRun  bool
	stage   bool
	parser  *editblock.Parser
	scratch map[workspace.Key]*textdoc.Snapshot // dry run: each file as the earlier blocks would leave it
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
	return &Blocks{e: e, caller: c, dryRun: dryRun, stage: stage, parser: editblock.NewParser(), scratch: map[workspace.Key]*textdoc.Snapshot{}}
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
// as skipped. It returns every result in output order.
func (b *Blocks) Close() BlocksResult {
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
	all := append(append([]BlockResult(nil), b.results...), extra...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Index < all[j].Index })
	res := BlocksResult{Outcome: Outcome{OK: true}, Blocks: all}
	if all == nil {
		res.Blocks = []BlockResult{}
	}
	counts := map[string]int{}
	for _, r := range all {
		counts[r.Status]++
	}
	if counts["failed"] > 0 {
		res.OK, res.Error = false, result.NoMatch
	}
	if b.overflow != nil {
		res.OK, res.Error = false, result.TooLarge
	}
	res.Message = fmt.Sprintf("%d %s: %d applied, %d validated, %d failed, %d skipped.", len(all), plural(len(all), "block", "blocks"), counts["applied"], counts["validated"], counts["failed"], counts["skipped"])
	if len(all) == 0 {
		res.Message = "No edit blocks found: a block is a path line, then <<<< EDIT, the old lines, ==== REPLACE, the new lines, >>>> EDIT END."
	}
	b.e.annotate(&res)
	return res
}

// ApplyBlocks answers sightline/applyBlocks.
func (e *Env) ApplyBlocks(ctx context.Context, p BlocksParams) (BlocksResult, error) {
	run := e.NewBlocks(p.Caller, p.DryRun || p.DryRunAlt, p.Stage)
	run.Write(withGrants(ctx), []byte(p.Text))
	res := run.Close()
	return res, nil
}

func (b *Blocks) apply(ctx context.Context, blk editblock.Block) (r BlockResult) {
	e := b.e
	start := time.Now()
	r = BlockResult{Index: blk.Index, Path: blk.Path}
	var out writeOut
	if !b.dryRun {
		// Every block is audited however it ended: refused by the admission
		// step, a create, or through the write transaction.
		defer func() {
			o := Outcome{OK: r.Status == "applied"}
			if !o.OK {
				o.Error = r.Error
			}
			e.audit(ctx, "sightline/applyBlocks", b.caller, r.Path, o, out.before.FileHashIfKnown(), out.after.FileHashIfKnown(), out.verdict.Name, time.Since(start), []byte(blk.Path))
		}()
	}
	fail := func(err error) BlockResult {
		r.Status, r.Message, r.Error = "failed", result.Message(err), result.KindOf(err)
		return r
	}
	// The path is the admission step's to judge (in the transaction, or
	// create's), like any door's.
	k := e.WS.KeyOf(blk.Path)
	r.Path = e.WS.Rel(k)
	if blk.IsCreate() {
		unlock := e.locks.lock(k)
		defer unlock()
		return b.create(ctx, blk, k, r)
	}
	if err := echoRefusal(blk.New, blk.Old); err != nil {
		return fail(err)
	}
	var m editblock.Match
	var err error
	out, err = e.transact(ctx, writeReq{caller: b.caller, method: "sightline/applyBlocks", uri: string(k), dryRun: b.dryRun, scratch: b.scratch[k],
		plan: func(d workspace.Doc) (hashline.Plan, []ledger.Range, error) {
			var diag *editblock.Diagnostic
			m, diag = editblock.MatchBlock(d.Snap, blk, d.Snap.Dominant())
			if diag != nil {
				r.Diagnostic = &BlockDiagnostic{Kind: diag.Kind, Line: diag.Line}
				return hashline.Plan{}, nil, diag.Err()
			}
			return m.Plan, []ledger.Range{{Start: m.Start, End: m.End}}, nil
		}})
	if err != nil {
		if result.KindOf(err) == result.Binary {
			r.Status, r.Message, r.Error = "skipped", result.Message(err), result.Binary
			return r
		}
		r.Expanded = out.verdict.Expanded
		return fail(err)
	}
	r.Diff = out.diff
	switch {
	case out.noop:
		r.Status, r.Message = statusOK(b.dryRun), fmt.Sprintf("The block for %s changes nothing (both halves are the same).", r.Path)
	case b.dryRun:
		b.scratch[k] = out.next
		r.Status, r.Message = "validated", fmt.Sprintf("The block for %s matches lines %d-%d and would apply.", r.Path, m.Start, m.End)
	default:
		b.stageFile(out.after.Path)
		r.Status, r.Message = "applied", fmt.Sprintf("Applied to %s at lines %d-%d.", r.Path, m.Start, m.End)
	}
	return r
}

func (b *Blocks) create(ctx context.Context, blk editblock.Block, k workspace.Key, r BlockResult) BlockResult {
	e := b.e
	var content string
	for _, l := range blk.New {
		content += l + "\n"
	}
	if _, err := e.WS.Get(k); err == nil || result.KindOf(err) != result.NotFound {
		if err == nil {
			err = result.Errorf(result.Exists, "%s already exists: a block with an empty EDIT half creates a file; to change this one, put the lines to replace in the EDIT half.", r.Path)
		}
		r.Status, r.Message, r.Error = "failed", result.Message(err), result.KindOf(err)
		return r
	}
	if _, ok := b.scratch[k]; ok && b.dryRun {
		r.Status, r.Message, r.Error = "failed", fmt.Sprintf("An earlier block already creates %s.", r.Path), result.Exists
		return r
	}
	wr, err := e.create(ctx, b.caller.SessionOr(), k, content, WriteParams{Caller: b.caller, DryRun: b.dryRun}, WriteResult{Path: r.Path})
	if err != nil {
		r.Status, r.Message, r.Error = "failed", err.Error(), "internal"
		return r
	}
	if !wr.OK {
		r.Status, r.Message, r.Error = "failed", wr.Message, wr.Error
		return r
	}
	r.Diff = wr.Diff
	if b.dryRun {
		b.scratch[k] = textdoc.New(content)
		r.Status, r.Message = "validated", fmt.Sprintf("%s would be created.", r.Path)
		return r
	}
	if p, ok := k.Path(); ok {
		b.stageFile(p)
	}
	r.Status, r.Message = "applied", fmt.Sprintf("Created %s.", r.Path)
	return r
}

// stageFile runs `git add` on a written file when staging was asked for;
// failures are not the block's: the file is written.
func (b *Blocks) stageFile(path string) {
	if !b.stage || path == "" {
		return
	}
	cmd := exec.Command("git", "add", "--", filepath.Base(path))
	cmd.Dir = filepath.Dir(path)
	_ = cmd.Run()
}

func statusOK(dry bool) string {
	if dry {
		return "validated"
	}
	return "applied"
}
