package ops

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/result"
)

// MethodBlockRun streams edit blocks into one run (BlockChunk), so that
// `sightline apply` applies each block as soon as it completes: the one
// call the bridge's servers serve outside the envelope, beside the table.
const MethodBlockRun = "sightline/bridge/applyBlocks"

// BlockChunk feeds one run of edit blocks: chunks of model output, in
// order, then close. A run belongs to its connection and ends with it.
type BlockChunk struct {
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
	// Run names the run; the first chunk of a new name starts it.
	Run    string `json:"run"`
	Chunk  string `json:"chunk,omitempty"`
	Close  bool   `json:"close,omitempty"`
	DryRun bool   `json:"dryRun,omitempty"`
	Stage  bool   `json:"stage,omitempty"`
}

// BlockRuns are the streamed edit-block runs of one bridge connection
// (MethodBlockRun): each server of the bridge, the editor's and the
// daemon, serves them alike.
type BlockRuns struct {
	mu sync.Mutex
	m  map[string]*engine.Blocks
}

// NewBlockRuns holds the runs of one connection.
func NewBlockRuns() *BlockRuns { return &BlockRuns{m: map[string]*engine.Blocks{}} }

// Feed applies a chunk's completed blocks at once (one run's chunks arrive
// in order, one call at a time) and returns them; close ends the run and
// returns its engine.BlocksResult.
func (r *BlockRuns) Feed(ctx context.Context, c *Call, p BlockChunk) any {
	// Streamed, so outside the operation's envelope: its approver and its
	// audit are as the envelope's would be.
	ctx = engine.WithMethod(c.context(ctx), ApplyBlocks.Method())
	r.mu.Lock()
	run := r.m[p.Run]
	if run == nil {
		run = c.Env.NewBlocks(engine.Caller{Session: p.Session, Agent: p.Agent}, p.DryRun, p.Stage)
		r.m[p.Run] = run
	}
	if p.Close {
		delete(r.m, p.Run)
	}
	r.mu.Unlock()
	var out []engine.BlockResult
	if p.Chunk != "" {
		out = run.Write(ctx, []byte(p.Chunk))
	}
	if p.Close {
		return run.Close(ctx)
	}
	if out == nil {
		out = []engine.BlockResult{}
	}
	return struct {
		Blocks []engine.BlockResult `json:"blocks"`
	}{out}
}

// Serve is Feed of a call's raw params, answered in the encoding of every
// answer (result.Marshal); params that do not decode are an invalid-params
// error (result.InvalidParams), as an operation's are.
func (r *BlockRuns) Serve(ctx context.Context, c *Call, raw json.RawMessage) ([]byte, error) {
	var p BlockChunk
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, result.Errorf(result.InvalidParams, "invalid params: %v", err)
	}
	return result.Marshal(r.Feed(ctx, c, p))
}

// Drop forgets the runs: their connection ended.
func (r *BlockRuns) Drop() {
	r.mu.Lock()
	clear(r.m)
	r.mu.Unlock()
}
