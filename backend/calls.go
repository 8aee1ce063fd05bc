package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sightline-lsp/sightline/patch"
	"strconv"
	"time"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/editblock"
	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/result"
)

// refused turns an agent-facing error of the routing itself (a server gone
// mid-call) into the call's refusal; other errors stay errors.
func refused[R any](res R, err error, mk func(handlers.Outcome) R) (R, error) {
	if err == nil {
		return res, nil
	}
	if k := result.KindOf(err); k != "" && k != result.InvalidParams {
		return mk(handlers.Refusal(err)), nil
	}
	return res, err
}

// Read answers sightline/read.
func (b *Backend) Read(ctx context.Context, p handlers.ReadParams) (handlers.ReadResult, error) {
	return do(ctx, b, "sightline/read", p, []string{p.TextDocument.URI}, false,
		func(e *handlers.Env) (handlers.ReadResult, error) { return e.ReadDisk(ctx, p) })
}

// Edit answers sightline/edit.
func (b *Backend) Edit(ctx context.Context, p handlers.EditParams) (handlers.EditResult, error) {
	res, err := do(ctx, b, "sightline/edit", p, []string{p.TextDocument.URI}, !p.DryRun,
		func(e *handlers.Env) (handlers.EditResult, error) { return e.Edit(ctx, p) })
	return refused(res, err, func(o handlers.Outcome) handlers.EditResult {
		return handlers.EditResult{Outcome: o, URI: p.TextDocument.URI, Remapped: []handlers.Remap{}, Warnings: []string{}}
	})
}

// Write answers sightline/write.
func (b *Backend) Write(ctx context.Context, p handlers.WriteParams) (handlers.WriteResult, error) {
	res, err := do(ctx, b, "sightline/write", p, []string{p.TextDocument.URI}, !p.DryRun,
		func(e *handlers.Env) (handlers.WriteResult, error) { return e.Write(ctx, p) })
	return refused(res, err, func(o handlers.Outcome) handlers.WriteResult {
		return handlers.WriteResult{Outcome: o, URI: p.TextDocument.URI, Mode: p.Mode}
	})
}

// ApplyBlocks answers sightline/applyBlocks.
func (b *Backend) ApplyBlocks(ctx context.Context, p handlers.BlocksParams) (handlers.BlocksResult, error) {
	res, err := do(ctx, b, "sightline/applyBlocks", p, b.blockURIs(p.Text), !(p.DryRun || p.DryRunAlt),
		func(e *handlers.Env) (handlers.BlocksResult, error) { return e.ApplyBlocks(ctx, p) })
	return refused(res, err, func(o handlers.Outcome) handlers.BlocksResult {
		return handlers.BlocksResult{Outcome: o, Blocks: []handlers.BlockResult{}}
	})
}

// Ledger answers sightline/ledger. Without a document, a local report first
// restores every document the database holds for the session.
func (b *Backend) Ledger(ctx context.Context, p handlers.LedgerParams) (handlers.LedgerResult, error) {
	var uris []string
	if p.TextDocument != nil {
		uris = []string{p.TextDocument.URI}
	}
	return do(ctx, b, "sightline/ledger", p, uris, false,
		func(e *handlers.Env) (handlers.LedgerResult, error) {
			if p.TextDocument == nil {
				e.LoadSession(ctx, p.SessionOr())
			}
			return e.LedgerReport(ctx, p)
		})
}

// Summary answers sightline/summary.
func (b *Backend) Summary(ctx context.Context, p handlers.SummaryParams) (handlers.SummaryResult, error) {
	return do(ctx, b, "sightline/summary", p, []string{p.TextDocument.URI}, false,
		func(e *handlers.Env) (handlers.SummaryResult, error) { return e.Summary(ctx, p) })
}

// Stats answers sightline/stats.
func (b *Backend) Stats(ctx context.Context, p handlers.StatsParams) (handlers.StatsResult, error) {
	return do(ctx, b, "sightline/stats", p, nil, false,
		func(e *handlers.Env) (handlers.StatsResult, error) { return e.Stats(ctx, p) })
}

// blockURIs are the documents edit blocks name, for choosing a server.
func (b *Backend) blockURIs(text string) []string {
	p := editblock.NewParser()
	var uris []string
	for _, blk := range p.Write([]byte(text)) {
		if k, err := b.Resolve(blk.Path); err == nil {
			uris = append(uris, string(k))
		}
	}
	return uris
}

// BlockRun applies streamed edit blocks, each as soon as it completes: on a
// server when one runs, else on the disk.
type BlockRun struct {
	b      *Backend
	ctx    context.Context
	caller handlers.Caller
	dryRun bool
	stage  bool

	remote *bridge.Client
	// refusal refuses every write of the run: the server that may hold its
	// documents cannot be reached.
	refusal error
	id      string
	local   *handlers.Blocks
	sent    bool // a chunk reached the server: the run is the server's
}

// NewBlocks starts a streamed run. The server is chosen once, at the start:
// the blocks of one run see each other's effects.
func (b *Backend) NewBlocks(ctx context.Context, c handlers.Caller, dryRun, stage bool) *BlockRun {
	r := &BlockRun{b: b, ctx: ctx, caller: c, dryRun: dryRun, stage: stage, id: strconv.FormatInt(time.Now().UnixNano(), 36)}
	rt := b.pick(ctx, nil)
	r.remote = rt.c
	switch {
	case rt.unusable != nil && !dryRun:
		r.refusal = unreachableWrite(rt.unusable)
	case rt.unusable != nil:
		b.notice(unreachableRead(rt.unusable))
	case rt.wedged != nil && !dryRun:
		r.refusal = silentWrite(rt.wedged)
	case rt.wedged != nil:
		b.notice(silentRead(rt.wedged))
	}
	if r.remote != nil {
		b.mu.Lock()
		b.bridged = true
		b.mu.Unlock()
	}
	return r
}

// Write feeds model output and returns the blocks it completed.
func (r *BlockRun) Write(chunk []byte) ([]handlers.BlockResult, error) {
	if r.refusal != nil {
		return nil, r.refusal
	}
	if r.remote != nil {
		var out struct {
			Blocks []handlers.BlockResult `json:"blocks"`
		}
		if err := r.call(bridge.BlocksParams{Chunk: string(chunk)}, &out); err == nil {
			return out.Blocks, nil
		} else if r.remote != nil {
			return nil, err
		}
		// The server went away before any block was sent: go on locally.
	}
	if err := r.ensureLocal(); err != nil {
		return nil, err
	}
	return r.local.Write(r.ctx, chunk), nil
}

// Close ends the output and returns every block's result.
func (r *BlockRun) Close() (handlers.BlocksResult, error) {
	if r.refusal != nil {
		return handlers.BlocksResult{}, r.refusal
	}
	if r.remote != nil {
		var res handlers.BlocksResult
		err := r.call(bridge.BlocksParams{Close: true}, &res)
		if err == nil || r.remote != nil {
			return res, err
		}
	}
	if err := r.ensureLocal(); err != nil {
		return handlers.BlocksResult{}, err
	}
	return r.local.Close(r.ctx), nil
}

func (r *BlockRun) ensureLocal() error {
	if r.local != nil {
		return nil
	}
	env, err := r.b.Local(r.ctx)
	if err != nil {
		return fmt.Errorf("open the workspace: %w", err)
	}
	r.local = env.NewBlocks(r.caller, r.dryRun, r.stage)
	return nil
}

// call sends one chunk (or the close) of the run. A server gone before the
// run's first chunk reached it drops r.remote so the run goes on disk; one
// gone after leaves the run's outcome unknown.
func (r *BlockRun) call(p bridge.BlocksParams, out any) error {
	p.Session, p.Agent, p.Run, p.DryRun, p.Stage = r.caller.Session, r.caller.Agent, r.id, r.dryRun, r.stage
	raw, err := r.remote.Call(r.ctx, bridge.MethodBlocks, p)
	if err != nil {
		var na *bridge.NoAnswerError
		if errors.As(err, &na) {
			if r.dryRun {
				return fmt.Errorf("language server: %w", err)
			}
			r.refusal = silentWrite(&bridge.NoAnswerError{Path: na.Path, PID: na.PID, Wait: na.Wait, Sent: na.Sent || r.sent})
			return r.refusal
		}
		if errors.Is(err, bridge.ErrGone) && !r.sent {
			r.b.notice("The language server went away; the edit blocks were applied to the files on disk.")
			r.remote = nil
			return err
		}
		return fmt.Errorf("language server: %w", err)
	}
	r.sent = true
	return json.Unmarshal(raw, out)
}

// Overflowed reports whether a local run cut the output off at an oversized
// block (the server's run refuses it in its answer).
func (r *BlockRun) Overflowed() bool { return r.local != nil && r.local.Overflowed() }

// ApplyPatch answers sightline/applyPatch, on the server holding the first
// of the patch's documents open when one does.
func (b *Backend) ApplyPatch(ctx context.Context, p handlers.PatchParams) (handlers.PatchResult, error) {
	res, err := do(ctx, b, "sightline/applyPatch", p, b.patchURIs(p.Text), !(p.DryRun || p.DryRunAlt),
		func(e *handlers.Env) (handlers.PatchResult, error) { return e.ApplyPatch(ctx, p) })
	return refused(res, err, func(o handlers.Outcome) handlers.PatchResult {
		return handlers.PatchResult{Outcome: o, Files: []handlers.PatchFileResult{}}
	})
}

// patchURIs are the documents a patch names, as the server would resolve
// them (an unreadable patch names none: the answer will say why).
func (b *Backend) patchURIs(text string) []string {
	files, err := patch.Parse(text)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range files {
		if k, err := b.Resolve(f.Path); err == nil {
			out = append(out, string(k))
		}
	}
	return out
}

// Files answers sightline/files (on a running server, whose ledger is live).
func (b *Backend) Files(ctx context.Context, p handlers.FilesParams) (handlers.FilesResult, error) {
	return do(ctx, b, "sightline/files", p, nil, false,
		func(e *handlers.Env) (handlers.FilesResult, error) {
			e.LoadSession(ctx, p.SessionOr()) // ledger states of files not loaded yet
			return e.Files(ctx, p)
		})
}

// History answers sightline/history.
func (b *Backend) History(ctx context.Context, p handlers.HistoryParams) (handlers.HistoryResult, error) {
	return do(ctx, b, "sightline/history", p, []string{p.TextDocument.URI}, false,
		func(e *handlers.Env) (handlers.HistoryResult, error) { return e.History(ctx, p) })
}

// Diff answers sightline/diff.
func (b *Backend) Diff(ctx context.Context, p handlers.DiffParams) (handlers.DiffResult, error) {
	return do(ctx, b, "sightline/diff", p, []string{p.TextDocument.URI}, false,
		func(e *handlers.Env) (handlers.DiffResult, error) { return e.Diff(ctx, p) })
}

// Rollback answers sightline/rollback: through the server holding the
// document open, so an open buffer is rolled back by the editor.
func (b *Backend) Rollback(ctx context.Context, p handlers.RollbackParams) (handlers.RollbackResult, error) {
	return do(ctx, b, "sightline/rollback", p, []string{p.TextDocument.URI}, true,
		func(e *handlers.Env) (handlers.RollbackResult, error) { return e.Rollback(ctx, p) })
}

// Open answers sightline/open: only a running server's editor can show a
// document; on disk the answer says there is none.
func (b *Backend) Open(ctx context.Context, p handlers.OpenParams) (handlers.OpenResult, error) {
	return do(ctx, b, "sightline/open", p, []string{p.TextDocument.URI}, false,
		func(e *handlers.Env) (handlers.OpenResult, error) { return e.Open(ctx, p, nil) })
}

// Reset answers sightline/session/reset: on a running server, whose ledger
// (and its editor's coverage) the reset must reach, else on the database.
// A server that does not answer refuses it: its ledger would stay as it is.
func (b *Backend) Reset(ctx context.Context, p handlers.ResetParams) (handlers.Outcome, error) {
	res, err := do(ctx, b, "sightline/session/reset", p, nil, true,
		func(e *handlers.Env) (handlers.Outcome, error) {
			e.LoadSession(ctx, p.SessionOr())
			o, _ := e.Reset(ctx, p)
			return o, nil
		})
	return refused(res, err, func(o handlers.Outcome) handlers.Outcome { return o })
}

// Approvals answers sightline/approvals; a revocation is a change, refused
// when a server holding the approvals does not answer.
func (b *Backend) Approvals(ctx context.Context, p handlers.ApprovalsParams) (handlers.ApprovalsResult, error) {
	res, err := do(ctx, b, "sightline/approvals", p, nil, p.Revoke != "",
		func(e *handlers.Env) (handlers.ApprovalsResult, error) { return e.Approvals(ctx, p) })
	return refused(res, err, func(o handlers.Outcome) handlers.ApprovalsResult {
		return handlers.ApprovalsResult{Outcome: o, Approvals: []handlers.ApprovalInfo{}}
	})
}

// Audit answers the audit log: a running server's, with the rows it has not
// written yet, else the database's.
func (b *Backend) Audit(ctx context.Context, p handlers.AuditParams) (handlers.AuditResult, error) {
	return do(ctx, b, bridge.MethodAudit, p, nil, false,
		func(e *handlers.Env) (handlers.AuditResult, error) { return e.Audit(ctx, p) })
}

// Sessions lists the sessions: a running server's, else the database's.
func (b *Backend) Sessions(ctx context.Context) (handlers.SessionsResult, error) {
	return do(ctx, b, bridge.MethodSessions, nil, nil, false,
		func(e *handlers.Env) (handlers.SessionsResult, error) { return e.Sessions(ctx) })
}
