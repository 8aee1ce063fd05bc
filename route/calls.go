package route

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
)

// Call runs an operation of the table where it belongs: on the server
// whose editor holds its documents, else on the disk, through the same
// envelope. An agent-facing error of the routing itself (a server gone
// mid-call, one that does not answer a write) is the call's refusal;
// invalid params and faults stay errors.
func (b *Router) Call(ctx context.Context, op ops.Op, p any) (any, error) {
	res, err := do(ctx, b, op.Method(), p, op.Docs(p, b.Resolve), op.Writes(p), op.Result,
		func(e *engine.Env) (any, error) { return op.Run(ctx, &ops.Call{Env: e, Disk: true}, p) })
	if err != nil {
		if k := result.KindOf(err); k != "" && k != result.InvalidParams {
			// Audited, as every refusal is, by this process's engine.
			if env, lerr := b.Local(ctx); lerr == nil {
				return op.Refuse(ctx, &ops.Call{Env: env, Disk: true}, p, err), nil
			}
			return op.Refused(err), nil
		}
		return nil, err
	}
	return res, nil
}

// Do is Call with the operation's types.
func Do[P, R any](ctx context.Context, b *Router, d *ops.Def[P, R], p P) (R, error) {
	res, err := b.Call(ctx, d, p)
	if err != nil {
		var zero R
		return zero, err
	}
	return res.(R), nil
}

// CallHere runs an operation on this process's engines over the disk,
// whatever server runs, under the configuration as configure changes it:
// a command's own choice (another extractor than the server's) that a
// server's answer would not honour.
func CallHere[P, R any](ctx context.Context, b *Router, d *ops.Def[P, R], p P, configure func(*config.Config) error) (R, error) {
	var zero R
	env, err := b.Local(ctx)
	if err != nil {
		return zero, err
	}
	cfg := env.Config()
	if err := configure(&cfg); err != nil {
		return zero, err
	}
	env.SetConfig(cfg)
	return ops.Do(ctx, d, &ops.Call{Env: env, Disk: true}, p)
}

// BlockRun applies streamed edit blocks, each as soon as it completes: on a
// server when one runs, else on the disk.
type BlockRun struct {
	b      *Router
	ctx    context.Context
	caller engine.Caller
	dryRun bool
	stage  bool

	remote *bridge.Client
	// refusal refuses every write of the run: the server that may hold its
	// documents cannot be reached.
	refusal error
	id      string
	local   *engine.Blocks
	sent    bool // a chunk reached the server: the run is the server's
}

// NewBlocks starts a streamed run. The server is chosen once, at the start:
// the blocks of one run see each other's effects.
func (b *Router) NewBlocks(ctx context.Context, c engine.Caller, dryRun, stage bool) *BlockRun {
	// Streamed, so outside the operation's envelope: its audit names it
	// as the envelope would.
	ctx = engine.WithMethod(ctx, ops.ApplyBlocks.Method())
	r := &BlockRun{b: b, ctx: ctx, caller: c, dryRun: dryRun, stage: stage, id: strconv.FormatInt(time.Now().UnixNano(), 36)}
	rt := b.pick(ctx, nil, !dryRun)
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
		b.handOver(ctx)
		b.mu.Lock()
		b.bridged = true
		b.mu.Unlock()
	}
	return r
}

// Write feeds model output and returns the blocks it completed.
func (r *BlockRun) Write(chunk []byte) ([]engine.BlockResult, error) {
	if r.refusal != nil {
		return nil, r.refusal
	}
	if r.remote != nil {
		var out struct {
			Blocks []engine.BlockResult `json:"blocks"`
		}
		if err := r.call(ops.BlockChunk{Chunk: string(chunk)}, &out); err == nil {
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
func (r *BlockRun) Close() (engine.BlocksResult, error) {
	if r.refusal != nil {
		return engine.BlocksResult{}, r.refusal
	}
	if r.remote != nil {
		var res engine.BlocksResult
		err := r.call(ops.BlockChunk{Close: true}, &res)
		if err == nil || r.remote != nil {
			return res, err
		}
	}
	if err := r.ensureLocal(); err != nil {
		return engine.BlocksResult{}, err
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
func (r *BlockRun) call(p ops.BlockChunk, out any) error {
	p.Session, p.Agent, p.Run, p.DryRun, p.Stage = r.caller.Session, r.caller.Agent, r.id, r.dryRun, r.stage
	a, err := r.remote.Call(r.ctx, ops.MethodBlockRun, p)
	if err != nil {
		var na *bridge.NoAnswerError
		if errors.As(err, &na) {
			if r.dryRun {
				return fmt.Errorf("language server: %w", err)
			}
			r.refusal = silentWrite(&bridge.NoAnswerError{Path: na.Path, PID: na.PID, Wait: na.Wait, Sent: na.Sent || r.sent})
			return r.refusal
		}
		var re *jsonrpc2.Error
		if errors.As(err, &re) && re.Code == bridge.CodeNotServed && !r.sent {
			r.b.notServed(r.ctx, r.remote)
			r.remote = nil
			return err
		}
		if errors.Is(err, bridge.ErrGone) && !r.sent {
			r.b.notice("The language server went away; the edit blocks were applied to the files on disk.")
			r.remote = nil
			return err
		}
		return fmt.Errorf("language server: %w", err)
	}
	r.sent = true
	return json.Unmarshal(a.Result, out)
}

// Overflowed reports whether a local run cut the output off at an oversized
// block (the server's run refuses it in its answer).
func (r *BlockRun) Overflowed() bool { return r.local != nil && r.local.Overflowed() }
