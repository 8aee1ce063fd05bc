// Package route is the router: it runs every operation of the table
// (ops.Table) where it belongs: on a running language server of the
// workspace, through its local socket (package bridge), so that the call
// meets the editor's buffers and its live ledger; else on the workspace's
// daemon when it serves the caller; else on the engines over the files on
// disk, which it assembles itself. The doors that hold no engine (the CLI,
// `sightline mcp`, the hooks, the ACP proxy) call through it, with the
// operations' own params and results. Its invariant: a call that may write
// is refused, never run on the disk, when a server that may hold its
// documents does not answer; a call the bridge cannot carry (text that is
// not UTF-8) is never taken for a server gone.
package route

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/workspace"
)

// Options configure a Router.
type Options struct {
	// Root is the workspace root.
	Root string
	// StateDir is the state folder; "" means store.Dir(Root). The sockets
	// of the workspace's servers are found from it.
	StateDir string
	// NoBridge works on disk only.
	NoBridge bool
	// OpenLocal assembles the engines over the disk (nil: as every caller
	// of its own does, openDisk). It is called at most
	// once, for the first call no server takes.
	OpenLocal func(ctx context.Context) (*engine.Env, error)
	// Exits: the process exits right after its calls (a command, FlushEvery
	// 0), so the engines over the disk leave their database to the exit.
	Exits bool
	// Wait bounds each liveness probe of a server (0: bridge.DefaultWait):
	// a server that does not answer one in time is stopped or wedged.
	Wait time.Duration
	// FlushEvery, when set, writes the local ledger to its database at this
	// interval (a long-lived caller such as `sightline mcp`), so a server
	// started later, or a caller killed, loses little.
	FlushEvery time.Duration
	// Daemon, when set, lets the calls go to the workspace's daemon (package
	// daemon): one found running is used when it serves this caller (Hello:
	// its build, root and configuration), asked to exit when it does not or
	// when an editor's server runs (whose buffers win); and StartDaemon, when
	// set, is called at Close when the calls ran on disk with no server
	// running, so that the next call finds one. Without it, daemons are not
	// seen.
	Daemon      *bridge.HelloParams
	StartDaemon func(sockDir string)
	// Approver answers a daemon's approval requests for this caller's calls:
	// the approver the engines over the disk would be given (nil: nobody to
	// ask, refused as there).
	Approver engine.Approver
}

// Router routes calls. It is safe for concurrent use.
type Router struct {
	o  Options
	ws *workspace.Workspace // paths only: resolving them needs no engines

	mu      sync.Mutex
	sockDir string
	sockErr error
	clients map[string]*bridge.Client
	// daemons are the daemons' connections that said they serve this
	// caller (Hello): a connection, not a socket, since a daemon serves
	// nothing on a connection before its own hello (a new connection to the
	// same daemon says it again).
	daemons map[*bridge.Client]bool
	bridged bool // the last call went to a server
	// served: a server (or a daemon) was found running; no daemon is
	// started then.
	served bool
	// gate releases the daemon's gate (bridge.EnterGate), held by a
	// one-call caller from its first look for servers until its calls on
	// disk are written or handed over to a server.
	gate    func()
	env     *engine.Env
	envErr  error
	stop    context.CancelFunc // ends the flush loop
	notices []string
	// progress is the progress report of the call under way on a server
	// (engine.WithProgress), told what the server sends; one at a time: a
	// command makes its calls one after another.
	progress engine.Progress
}

// New makes a Router; nothing is opened until the first call.
func New(o Options) *Router {
	return &Router{o: o, ws: workspace.New([]string{o.Root}, workspace.Options{}), clients: map[string]*bridge.Client{}, daemons: map[*bridge.Client]bool{}}
}

// Root is the workspace root.
func (b *Router) Root() string { return b.ws.Root() }

// Resolve turns a path relative to the workspace root (or absolute) into a
// document URI, refusing paths outside the workspace (denied) and paths
// ending in a separator, which name a folder (cleaning the path would make
// "newdir/" a file named newdir).
func (b *Router) Resolve(path string) (workspace.Key, error) {
	if workspace.NamesFolder(path) {
		return "", workspace.FolderError(path)
	}
	return b.ws.Resolve(path)
}

// Key turns a path relative to the workspace root (or absolute) into a
// document URI without judging it: the call's admission step refuses (and
// audits) what is outside the workspace.
func (b *Router) Key(path string) workspace.Key { return b.ws.KeyOf(path) }

// Rel names a document relative to the workspace root.
func (b *Router) Rel(k workspace.Key) string { return b.ws.Rel(k) }

// Notices returns, and forgets, what the caller should tell about where the
// last calls ran (a server that went away).
func (b *Router) Notices() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.notices
	b.notices = nil
	return n
}

func (b *Router) notice(s string) {
	b.mu.Lock()
	b.notices = append(b.notices, s)
	b.mu.Unlock()
}

// Local returns the engines over the disk, assembling them on first use.
func (b *Router) Local(ctx context.Context) (*engine.Env, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.env == nil && b.envErr == nil {
		open := b.o.OpenLocal
		if open == nil {
			open = b.openDisk
		}
		b.env, b.envErr = open(ctx)
		if b.env != nil && b.o.FlushEvery > 0 {
			bg, stop := context.WithCancel(context.WithoutCancel(ctx))
			b.stop = stop
			go b.env.RunPersistence(bg, b.o.FlushEvery)
		}
	}
	return b.env, b.envErr
}

// openDisk assembles the engines over the disk for the calls no server
// takes: the configuration read from the root (again before each call by
// a caller that lives on, FlushEvery set; once by a command, whose memory
// ends with it), the answers warned of a root no marker chose.
func (b *Router) openDisk(ctx context.Context) (*engine.Env, error) {
	root := b.o.Root
	var reload func() config.Config
	if b.o.FlushEvery > 0 {
		reload = func() config.Config { return config.Load(root) }
	}
	var notices []string
	if n := workspace.RootNotice(root); n != "" {
		notices = []string{n}
	}
	oneCall := b.o.FlushEvery == 0
	return engine.Setup(ctx, engine.Options{Roots: []string{root}, Config: config.Load(root), StateDir: b.o.StateDir,
		Ephemeral: oneCall, Exits: oneCall && b.o.Exits, Approver: b.o.Approver, Reload: reload, Notices: notices}), nil
}

// Close hangs up on the servers and flushes the local ledger, if any; then,
// when the calls ran on disk with no server running, starts a daemon
// (Options.StartDaemon) for the next calls. It starts after the ledger is
// written, so that it finds this process's calls in the database.
func (b *Router) Close(ctx context.Context) error {
	defer b.ws.Close()
	b.mu.Lock()
	clients, env, stop, sockDir := b.clients, b.env, b.stop, b.sockDir
	b.clients = map[string]*bridge.Client{}
	start := b.o.StartDaemon != nil && b.o.Daemon != nil && env != nil && !b.served && sockDir != ""
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, c := range clients {
		_ = c.Close()
	}
	var err error
	if env != nil {
		err = env.Close(ctx)
	}
	b.leaveGate()
	if start && err == nil {
		b.o.StartDaemon(sockDir)
	}
	return err
}

// leaveGate releases the daemon's gate if this caller holds it.
func (b *Router) leaveGate() {
	b.mu.Lock()
	release := b.gate
	b.gate = nil
	b.mu.Unlock()
	if release != nil {
		release()
	}
}

// handOver readies a call for a server: the calls that ran here before are
// written, for it to read from the database, and the daemon's gate is
// left, which a daemon just started waits for before it serves the call.
func (b *Router) handOver(ctx context.Context) {
	b.mu.Lock()
	env := b.env
	b.mu.Unlock()
	if env != nil {
		_ = env.Flush(ctx)
	}
	b.leaveGate()
}

// socketDir finds the folder of the workspace's sockets. "" with a nil
// error is no bridge (turned off, or no state folder); an error is a folder
// that cannot be used (another user's, say), with which a running server of
// the workspace cannot be reached either.
func (b *Router) socketDir() (string, error) {
	if b.o.NoBridge {
		return "", nil
	}
	if b.sockDir != "" || b.sockErr != nil {
		return b.sockDir, b.sockErr
	}
	dir := b.o.StateDir
	if dir == "" {
		d, err := store.Dir(b.Root())
		if err != nil {
			return "", nil
		}
		dir = d
	}
	b.sockDir, b.sockErr = bridge.Dir(dir)
	return b.sockDir, b.sockErr
}

// servers connects to every live server of the workspace (keeping the
// connections of earlier calls) and forgets the dead ones. A server that
// does not accept within the dial's bound is returned as wedged.
func (b *Router) servers(ctx context.Context, writes bool) (live []*bridge.Client, wedged []*bridge.NoAnswerError, err error) {
	dir, err := b.socketDir()
	if dir == "" {
		return nil, nil, err
	}
	if b.o.FlushEvery == 0 && b.o.Daemon != nil && b.gate == nil {
		// Before the sockets are listed: see bridge.EnterGate. Without
		// it (not taken in its bound) the call goes on.
		if release, err := bridge.EnterGate(ctx, dir); err == nil {
			b.gate = release
		}
	}
	paths := bridge.Sockets(dir)
	keep := make(map[string]*bridge.Client, len(paths))
	for _, p := range paths {
		c := b.clients[p]
		if c != nil && !c.Alive() {
			_ = c.Close()
			delete(b.daemons, c)
			c = nil
		}
		if bridge.IsDaemon(p) && b.o.Daemon == nil {
			continue
		}
		if c == nil {
			var err error
			if c, err = bridge.DialWith(ctx, p, bridge.CallerOptions{Wait: b.o.Wait, Serve: b.serveDaemon, OneCall: b.o.FlushEvery == 0}); err != nil {
				var na *bridge.NoAnswerError
				if errors.As(err, &na) {
					wedged = append(wedged, na)
				}
				continue // a stale socket (Dial removed it) or not ours
			}
		}
		keep[p] = c
		live = append(live, c)
	}
	for p, c := range b.clients {
		if keep[p] == nil {
			_ = c.Close()
			delete(b.daemons, c)
		}
	}
	b.clients = keep
	live, silent := b.withDaemon(ctx, live, writes)
	wedged = append(wedged, silent...)
	if len(live) > 0 || len(wedged) > 0 {
		b.served = true
	}
	return live, wedged, nil
}

// withDaemon keeps the workspace's daemon among the live servers only when
// no editor's server runs (an editor's buffers win, and the daemon's memory
// of the sessions would fall behind the editor's server: it is asked to
// exit) and when it serves this caller (else asked to exit too, and the
// call runs on disk).
//
// A daemon that does not answer its hello (stopped, wedged) is returned as
// silent, as a server that does not answer: its memory of the sessions
// would fall behind calls run on disk meanwhile.
//
// Before a call that may write, the hello is awaited (its answer is also
// the proof that the daemon is not stopped); before a read, it is sent as
// a notification ahead of the call, and a daemon that does not serve the
// caller refuses the call (bridge.CodeNotServed): one round trip, not two.
func (b *Router) withDaemon(ctx context.Context, live []*bridge.Client, writes bool) (out []*bridge.Client, silent []*bridge.NoAnswerError) {
	editors := 0
	for _, c := range live {
		if !bridge.IsDaemon(c.Path) {
			editors++
		}
	}
	for _, c := range live {
		if !bridge.IsDaemon(c.Path) {
			out = append(out, c)
			continue
		}
		if editors > 0 {
			b.stopDaemon(ctx, c)
			continue
		}
		switch serves, err := b.hello(ctx, c, writes); {
		case serves:
			out = append(out, c)
		case errors.As(err, new(*bridge.NoAnswerError)):
			var na *bridge.NoAnswerError
			errors.As(err, &na)
			silent = append(silent, na)
			_ = c.Close()
			delete(b.clients, c.Path)
			delete(b.daemons, c)
		default:
			b.stopDaemon(ctx, c)
		}
	}
	return out, silent
}

// hello asks a daemon, once per connection, whether it serves this caller;
// unless wait, it sends the hello and takes the answer to be yes (the
// call after it is refused if not).
func (b *Router) hello(ctx context.Context, c *bridge.Client, wait bool) (bool, error) {
	if b.daemons[c] {
		return true, nil
	}
	p := *b.o.Daemon
	p.Approves = b.o.Approver != nil
	if !wait {
		if err := c.Notify(ctx, bridge.MethodHello, p); err != nil {
			return false, err
		}
		b.daemons[c] = true
		return true, nil
	}
	raw, err := c.Query(ctx, bridge.MethodHello, p)
	if err != nil {
		return false, err
	}
	var h bridge.Hello
	if json.Unmarshal(raw, &h) != nil || !h.Serves {
		return false, nil
	}
	b.daemons[c] = true
	return true, nil
}

// stopDaemon asks a daemon to exit and waits, bounded, for it to have
// written its ledger; then forgets it.
func (b *Router) stopDaemon(ctx context.Context, c *bridge.Client) {
	cctx, cancel := context.WithTimeout(ctx, daemonExitWait)
	defer cancel()
	_, _ = c.Call(cctx, bridge.MethodExit, nil)
	_ = c.Close()
	delete(b.clients, c.Path)
	delete(b.daemons, c)
}

// forget drops a connection the caller hung up on (a server that stopped
// answering): the next call dials again, and says hello again to a daemon,
// rather than finding it closed.
func (b *Router) forget(c *bridge.Client) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = c.Close()
	if b.clients[c.Path] == c {
		delete(b.clients, c.Path)
	}
	delete(b.daemons, c)
}

// notServed asks a daemon that refused to serve this caller to exit and
// forgets it: this caller's calls run on disk, and it starts its own daemon
// as it closes unless another server runs.
func (b *Router) notServed(ctx context.Context, c *bridge.Client) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopDaemon(ctx, c)
	b.served = len(b.clients) > 0
}

// daemonExitWait bounds the wait for a daemon asked to exit: it writes its
// ledger in milliseconds.
const daemonExitWait = 5 * time.Second

// WithProgress gives the calls made with ctx a progress report, told how
// far a long call has come, whether it runs here or on a daemon.
func WithProgress(ctx context.Context, p engine.Progress) context.Context {
	return engine.WithProgress(ctx, p)
}

// serveDaemon answers a daemon's requests and notifications about a call
// it runs for this caller: approvals, progress.
func (b *Router) serveDaemon(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() == bridge.MethodProgress {
		var p bridge.ProgressParams
		b.mu.Lock()
		report := b.progress
		b.mu.Unlock()
		if report != nil && json.Unmarshal(req.Params(), &p) == nil {
			report(p.Done, p.Total)
		}
		return nil, nil
	}
	return b.approve(ctx, req)
}

// approve answers a daemon's approval request with this caller's approver.
func (b *Router) approve(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() != bridge.MethodApprove {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "%s is not a request the caller serves", req.Method())
	}
	if b.o.Approver == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "there is no one to ask here")
	}
	// The question may wait on the terminal: the connection's other
	// messages (the answers to the probes) go on meanwhile.
	jsonrpc2.Async(ctx)
	var a engine.Approval
	if err := json.Unmarshal(req.Params(), &a); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	d, err := b.o.Approver.Approve(ctx, a)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
	}
	return d, nil
}

// target is where a call goes: a live server (c), or none; wedged is a
// server that does not answer and may hold the documents open, and unusable
// a socket folder through which no server can be reached.
type target struct {
	c        *bridge.Client
	wedged   *bridge.NoAnswerError
	unusable error
}

// pick chooses the server for a call about uris: the one whose editor has one
// of them open, else any that answers. A server that does not answer is
// skipped, and reported when no answering one has the documents open.
func (b *Router) pick(ctx context.Context, uris []string, writes bool) target {
	b.mu.Lock()
	live, wedged, dirErr := b.servers(ctx, writes)
	if len(live) == 0 && len(wedged) == 0 && b.bridged {
		b.bridged = false
		b.notices = append(b.notices, "The language server that answered earlier calls is gone: this answer and the next come from the files on disk (unsaved editor changes are not seen).")
	}
	b.mu.Unlock()
	if dirErr != nil {
		return target{unusable: dirErr}
	}
	if len(live) == 0 || (len(live) == 1 && len(wedged) == 0) || (len(uris) == 0 && len(wedged) == 0) {
		r := target{}
		if len(live) > 0 {
			r.c = live[0]
		} else if len(wedged) > 0 {
			r.wedged = wedged[0]
		}
		return r
	}
	// Several editor windows on one workspace: ask each which documents it has
	// open, at once.
	open := make([]bool, len(live))
	answered := make([]bool, len(live))
	silent := make([]*bridge.NoAnswerError, len(live))
	var wg sync.WaitGroup
	for i, c := range live {
		wg.Go(func() {
			a, err := c.Call(ctx, bridge.MethodStatus, nil)
			if errors.As(err, &silent[i]) {
				return
			}
			var st bridge.Status
			if err != nil || json.Unmarshal(a.Result, &st) != nil {
				return
			}
			answered[i] = true
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
			return target{c: c}
		}
		if silent[i] != nil {
			wedged = append(wedged, silent[i])
		}
	}
	if len(wedged) > 0 {
		// A server that does not answer may be the one holding them.
		return target{wedged: wedged[0]}
	}
	for i, c := range live {
		if answered[i] {
			return target{c: c}
		}
	}
	return target{c: live[0]}
}

// errGoneMidCall refuses a write whose server vanished before answering.
var errGoneMidCall = result.Errorf(result.Timeout, "The language server went away before answering: nothing is known to be applied. Read the lines again; the next call works on the files on disk.")

// silentRead is the warning of a read that a server did not answer.
func silentRead(na *bridge.NoAnswerError) string {
	return fmt.Sprintf("The language server (pid %d) did not answer within %v: it is stopped (Ctrl-Z) or stuck. This answer comes from the files on disk; unsaved editor changes are not seen. Resume it (fg in its terminal, or kill -CONT %d) or quit it.",
		na.PID, na.Wait, na.PID)
}

// silentWrite refuses a write that a server did not answer: a write must
// not go to the disk under an editor buffer the server may hold.
func silentWrite(na *bridge.NoAnswerError) error {
	if na.Sent {
		return result.Errorf(result.Timeout, "The language server (pid %d) stopped answering after the change was sent (within %v): whether it was applied is not known, and a stopped server applies it when it resumes. Resume it (fg in its terminal, or kill -CONT %d), then read the lines again before changing them.",
			na.PID, na.Wait, na.PID)
	}
	return result.Errorf(result.Timeout, "The language server (pid %d) did not answer within %v, so nothing was written: it is stopped (Ctrl-Z) or stuck, and its editor may hold unsaved changes the disk does not have. Resume it (fg in its terminal, or kill -CONT %d) and retry, or quit it to work on the disk.",
		na.PID, na.Wait, na.PID)
}

// unreachableRead is the warning of a read whose server, if any, cannot be
// reached: the socket folder is unusable.
func unreachableRead(err error) string {
	return fmt.Sprintf("A running language server of this workspace cannot be reached (%v): this answer comes from the files on disk; unsaved editor changes are not seen. %s", err, fixSockets)
}

// unreachableWrite refuses a write when the socket folder is unusable: an
// editor may hold the file, and its server cannot be asked.
func unreachableWrite(err error) error {
	return result.Errorf(result.IOError, "Nothing was written: a running language server of this workspace cannot be reached (%v), and its editor may hold unsaved changes of the file. %s Or, when no editor has the workspace open, set SIGHTLINE_NO_BRIDGE=1 to write the disk.", err, fixSockets)
}

const fixSockets = "The socket folder must be a folder of yours that only you can enter: remove it or change its owner, or set XDG_RUNTIME_DIR to a folder of yours (restart the editor's language server after)."

// do runs method on the server that should take it, else on the disk. A
// server that is gone before the call is sent is the same as none; one that
// goes away during a call that writes leaves the outcome unknown, which is
// answered as such rather than risking the edit twice. A server that does
// not answer (stopped, wedged) is skipped by reads, which say so, and
// refuses writes, which must not go to the disk under its editor's buffers.
func do[R any](ctx context.Context, b *Router, method string, params any, uris []string, writes bool,
	decode func(b []byte, text string) (R, error), local func(*engine.Env) (R, error)) (R, error) {
	var zero R
	r := b.pick(ctx, uris, writes)
	switch {
	case r.unusable != nil && writes:
		return zero, unreachableWrite(r.unusable)
	case r.unusable != nil:
		b.notice(unreachableRead(r.unusable))
	case r.wedged != nil && writes:
		return zero, silentWrite(r.wedged)
	case r.wedged != nil:
		b.notice(silentRead(r.wedged))
	}
	for c := r.c; c != nil; c = nil {
		b.handOver(ctx)
		call := c.Call
		if bridge.IsDaemon(c.Path) && !writes {
			call = c.CallUnprobed // a daemon has no editor: a read it gets late changes nothing
		}
		if report := engine.ProgressOf(ctx); report != nil {
			b.mu.Lock()
			b.progress = report
			b.mu.Unlock()
		}
		a, err := call(ctx, method, params)
		b.mu.Lock()
		b.progress = nil
		b.mu.Unlock()
		if err == nil {
			r, err := decode(a.Result, a.Attachment)
			if err != nil {
				return zero, fmt.Errorf("bridge: decode the %s answer: %w", method, err)
			}
			b.mu.Lock()
			b.bridged = true
			b.mu.Unlock()
			return r, nil
		}
		var re *jsonrpc2.Error
		var na *bridge.NoAnswerError
		switch {
		case errors.Is(err, bridge.ErrUnsent) && bridge.IsDaemon(c.Path):
			// The daemon answers as the disk does: the disk takes the call,
			// whose text keeps its bytes there (and is judged by them).
		case errors.Is(err, bridge.ErrUnsent):
			return zero, result.Errorf(result.InvalidEdit, "The call holds text that is not UTF-8, and the editor's language server, which holds the documents, takes UTF-8 text only: send the text in UTF-8, as sightline shows it. Nothing was written.")
		case errors.As(err, &re) && re.Code == bridge.CodeNotServed:
			// A daemon of another build (or root, or configuration): it
			// did not run the call, which runs here; this caller starts
			// its own daemon as it closes.
			b.notServed(ctx, c)
		case errors.As(err, &re) && re.Code == jsonrpc2.InvalidParams:
			return zero, result.Errorf(result.InvalidParams, "%s", re.Message)
		case errors.As(err, &re) && (re.Code == jsonrpc2.MethodNotFound || re.Code == jsonrpc2.InvalidRequest):
			// An older server, or one shutting down: the disk takes the call.
		case errors.As(err, &re):
			return zero, fmt.Errorf("language server: %s", re.Message)
		case ctx.Err() != nil:
			return zero, ctx.Err()
		case errors.As(err, &na) && writes:
			b.forget(c)
			return zero, silentWrite(na)
		case errors.As(err, &na):
			b.forget(c)
			b.notice(silentRead(na))
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
	return local(env)
}
