// Package backend runs an agent's calls (read, edit, write, edit blocks,
// ledger, summary, stats) where they belong: on a running language server of
// the workspace, through its local socket (package bridge), so that they meet
// the editor's buffers and its live ledger; else on the engines over the
// files on disk, as the CLI always could. The CLI and `sightline mcp` both
// use it, with the same params and results as the LSP methods.
package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// Options configure a Backend.
type Options struct {
	// Root is the workspace root.
	Root string
	// StateDir is the state folder; "" means store.Dir(Root). The sockets
	// of the workspace's servers are found from it.
	StateDir string
	// NoBridge works on disk only.
	NoBridge bool
	// OpenLocal assembles the engines over the disk. It is called at most
	// once, for the first call no server takes.
	OpenLocal func(ctx context.Context) (*handlers.Env, error)
	// FlushEvery, when set, writes the local ledger to its database at this
	// interval (a long-lived caller such as `sightline mcp`), so a server
	// started later, or a caller killed, loses little.
	FlushEvery time.Duration
}

// Backend routes calls. It is safe for concurrent use.
type Backend struct {
	o  Options
	ws *workspace.Workspace // paths only: resolving them needs no engines

	mu      sync.Mutex
	sockDir string
	clients map[string]*bridge.Client
	bridged bool // the last call went to a server
	via     string
	env     *handlers.Env
	envErr  error
	stop    context.CancelFunc // ends the flush loop
	notices []string
}

// New makes a Backend; nothing is opened until the first call.
func New(o Options) *Backend {
	return &Backend{o: o, ws: workspace.New([]string{o.Root}, workspace.Options{}), clients: map[string]*bridge.Client{}}
}

// Root is the workspace root.
func (b *Backend) Root() string { return b.ws.Root() }

// Resolve turns a path relative to the workspace root (or absolute) into a
// document URI, refusing paths outside the workspace (denied).
func (b *Backend) Resolve(path string) (workspace.Key, error) { return b.ws.Resolve(path) }

// Key turns a path relative to the workspace root (or absolute) into a
// document URI without judging it: the call's admission step refuses (and
// audits) what is outside the workspace.
func (b *Backend) Key(path string) workspace.Key { return b.ws.KeyOf(path) }

// Rel names a document relative to the workspace root.
func (b *Backend) Rel(k workspace.Key) string { return b.ws.Rel(k) }

// Notices returns, and forgets, what the caller should tell about where the
// last calls ran (a server that went away).
func (b *Backend) Notices() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.notices
	b.notices = nil
	return n
}

// Via says where the last call ran: the socket of the server, or "disk".
func (b *Backend) Via() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.via
}

func (b *Backend) notice(s string) {
	b.mu.Lock()
	b.notices = append(b.notices, s)
	b.mu.Unlock()
}

// Local returns the engines over the disk, assembling them on first use.
func (b *Backend) Local(ctx context.Context) (*handlers.Env, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.env == nil && b.envErr == nil {
		b.env, b.envErr = b.o.OpenLocal(ctx)
		if b.env != nil && b.o.FlushEvery > 0 {
			bg, stop := context.WithCancel(context.WithoutCancel(ctx))
			b.stop = stop
			go b.env.RunPersistence(bg, b.o.FlushEvery)
		}
	}
	return b.env, b.envErr
}

// Close hangs up on the servers and flushes the local ledger, if any.
func (b *Backend) Close(ctx context.Context) error {
	b.mu.Lock()
	clients, env, stop := b.clients, b.env, b.stop
	b.clients = map[string]*bridge.Client{}
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, c := range clients {
		_ = c.Close()
	}
	if env != nil {
		return env.Close(ctx)
	}
	return nil
}

// socketDir finds the folder of the workspace's sockets ("" when none).
func (b *Backend) socketDir() string {
	if b.o.NoBridge {
		return ""
	}
	if b.sockDir != "" {
		return b.sockDir
	}
	dir := b.o.StateDir
	if dir == "" {
		d, err := store.Dir(b.Root())
		if err != nil {
			return ""
		}
		dir = d
	}
	if s, err := bridge.Dir(dir); err == nil {
		b.sockDir = s
	}
	return b.sockDir
}

// servers connects to every live server of the workspace (keeping the
// connections of earlier calls) and forgets the dead ones.
func (b *Backend) servers(ctx context.Context) []*bridge.Client {
	dir := b.socketDir()
	if dir == "" {
		return nil
	}
	paths := bridge.Sockets(dir)
	keep := make(map[string]*bridge.Client, len(paths))
	var live []*bridge.Client
	for _, p := range paths {
		c := b.clients[p]
		if c != nil && !c.Alive() {
			_ = c.Close()
			c = nil
		}
		if c == nil {
			var err error
			if c, err = bridge.Dial(ctx, p); err != nil {
				continue // a stale socket (Dial removed it) or not ours
			}
		}
		keep[p] = c
		live = append(live, c)
	}
	for p, c := range b.clients {
		if keep[p] == nil {
			_ = c.Close()
		}
	}
	b.clients = keep
	return live
}

// pick chooses the server for a call about uris: the one whose editor has one
// of them open, else any. nil means no server runs.
func (b *Backend) pick(ctx context.Context, uris []string) *bridge.Client {
	b.mu.Lock()
	live := b.servers(ctx)
	if len(live) == 0 && b.bridged {
		b.bridged = false
		b.notices = append(b.notices, "The language server that answered earlier calls is gone: this answer and the next come from the files on disk (unsaved editor changes are not seen).")
	}
	b.mu.Unlock()
	if len(live) <= 1 || len(uris) == 0 {
		if len(live) == 0 {
			return nil
		}
		return live[0]
	}
	// Several editor windows on one workspace: ask each which documents it has
	// open, at once.
	open := make([]bool, len(live))
	var wg sync.WaitGroup
	for i, c := range live {
		wg.Go(func() {
			raw, err := c.Call(ctx, bridge.MethodStatus, nil)
			if err != nil {
				return
			}
			var st bridge.Status
			if json.Unmarshal(raw, &st) != nil {
				return
			}
			for _, u := range st.Open {
				for _, want := range uris {
					if u == want {
						open[i] = true
					}
				}
			}
		})
	}
	wg.Wait()
	for i, c := range live {
		if open[i] {
			return c
		}
	}
	return live[0]
}

// errGoneMidCall refuses a write whose server vanished before answering.
var errGoneMidCall = result.Errorf(result.Timeout, "The language server went away before answering: nothing is known to be applied. Read the lines again; the next call works on the files on disk.")

// do runs method on the server that should take it, else on the disk. A
// server that is gone before the call is sent is the same as none; one that
// goes away during a call that writes leaves the outcome unknown, which is
// answered as such rather than risking the edit twice.
func do[R any](ctx context.Context, b *Backend, method string, params any, uris []string, writes bool,
	local func(*handlers.Env) (R, error)) (R, error) {
	var zero R
	for c := b.pick(ctx, uris); c != nil; c = nil {
		raw, err := c.Call(ctx, method, params)
		if err == nil {
			var r R
			if err := json.Unmarshal(raw, &r); err != nil {
				return zero, fmt.Errorf("bridge: decode the %s answer: %w", method, err)
			}
			b.mu.Lock()
			b.bridged, b.via = true, c.Path
			b.mu.Unlock()
			return r, nil
		}
		var re *jsonrpc2.Error
		switch {
		case errors.As(err, &re) && re.Code == jsonrpc2.InvalidParams:
			return zero, result.Errorf(result.InvalidParams, "%s", re.Message)
		case errors.As(err, &re) && (re.Code == jsonrpc2.MethodNotFound || re.Code == jsonrpc2.InvalidRequest):
			// An older server, or one shutting down: the disk takes the call.
		case errors.As(err, &re):
			return zero, fmt.Errorf("language server: %s", re.Message)
		case ctx.Err() != nil:
			return zero, ctx.Err()
		case errors.Is(err, bridge.ErrGone) || !writes:
			b.notice("The language server went away; this answer comes from the files on disk (unsaved editor changes are not seen).")
		default:
			b.notice("The language server went away during the call.")
			return zero, errGoneMidCall
		}
	}
	env, err := b.Local(ctx)
	if err != nil {
		return zero, fmt.Errorf("open the workspace: %w", err)
	}
	b.mu.Lock()
	b.via = "disk"
	b.mu.Unlock()
	return local(env)
}
