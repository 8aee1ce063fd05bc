// Package daemon is a workspace's headless server: the engines over the
// files on disk behind the bridge's socket, with no editor. The CLI starts
// one on demand (Start) and hands it its calls through package route, as
// it would to an editor's server, so that a one-call command does not open
// the state database and read its files again: the daemon holds them
// between calls. The package owns the daemon's whole lifecycle: one per
// state folder (a lock held for its life), exit when idle, when its folders
// are removed, when asked (a caller of another build) or on SIGTERM and
// SIGINT, always writing its ledger to the database first. It serves the
// folder it opened, not its path: a root moved or replaced under it makes
// it refuse the calls and exit (see sameRoot).
package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/pathlock"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/version"
)

// DefaultIdle is how long a daemon waits for a call before it exits.
const DefaultIdle = 10 * time.Minute

// gateWait bounds a daemon's wait for the commands under way in their own
// process when it starts (see bridge.PassGate): one that takes longer (a
// patch of thousands of files) is not waited for.
const gateWait = 10 * time.Second

// flushEvery is how often a daemon writes its ledger to the database
// behind its answers (as sightline mcp does): a process that reads the
// database meanwhile (an editor's server starting) misses little.
const flushEvery = 500 * time.Millisecond

// ErrRunning is a daemon of the same state folder already running.
var ErrRunning = errors.New("a daemon of this workspace is already running")

// DefaultMax is how many daemons of one user may run at once (Options.Max):
// a test suite that runs the CLI in hundreds of folders does not leave
// hundreds of daemons behind it.
const DefaultMax = 8

// ErrTooMany is a daemon that found Max daemons of the user running.
var ErrTooMany = errors.New("the most daemons of this user already run; this workspace's calls run in their own process")

// youngSignal: a daemon ended by a signal within this long of its start did
// not last (see startedFile).
const youngSignal = time.Minute

// takeSlot holds one of the user's max daemon slots for the daemon's life;
// ErrTooMany when all are held.
func takeSlot(ctx context.Context, max int) (release func(), err error) {
	if max <= 0 {
		max = DefaultMax
	}
	locks := pathlock.New(store.LockDir())
	for i := range max {
		release, err := locks.Lock(ctx, fmt.Sprintf("daemon slot %d", i), 0)
		if err == nil {
			return release, nil
		}
		if !errors.Is(err, pathlock.ErrTimeout) {
			return nil, fmt.Errorf("daemon: %w", err)
		}
	}
	return nil, fmt.Errorf("%w (%d)", ErrTooMany, max)
}

// Options configure a daemon.
type Options struct {
	// Root is the workspace root.
	Root string
	// StateDir is the state folder; "" means store.Dir(Root).
	StateDir string
	// Idle: exit after this long without a call (0: DefaultIdle).
	Idle time.Duration
	// Max: at most this many daemons of the user at once (0: DefaultMax).
	Max int
	Log *zap.Logger
	// Ready, when set, is told the socket's path once the daemon listens.
	Ready func(socket string)
	// Stall: a caller that sends nothing for this long in the middle of a
	// message is hung up on (0: bridge.DefaultStall).
	Stall time.Duration
	// LogFile is where Log writes, for `sightline daemon status` to say.
	LogFile string
}

// Build names this build: a daemon serves callers of its own build only
// (the version, and the executable's path, size and time, which a rebuild
// or an upgrade changes).
func Build() string {
	exe, err := os.Executable()
	if err != nil {
		return version.String()
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return version.String() + " " + exe
	}
	return fmt.Sprintf("%s %s %d %d", version.String(), exe, fi.Size(), fi.ModTime().UnixNano())
}

// Run serves the workspace until the daemon has a reason to exit (see the
// package comment) or ctx ends; ErrRunning when another daemon holds the
// state folder.
func Run(ctx context.Context, o Options) error {
	log := o.Log
	if log == nil {
		log = zap.NewNop()
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return fmt.Errorf("daemon: workspace root: %w", err)
	}
	started := time.Now()
	state := o.StateDir
	if state == "" {
		if state, err = store.Dir(root); err != nil {
			return fmt.Errorf("daemon: state folder: %w", err)
		}
	}
	sockDir, err := bridge.Dir(state)
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	// One daemon per socket folder: the lock is held for the daemon's life,
	// and the kernel drops it with the process, however it ends.
	release, err := pathlock.New(sockDir).Lock(ctx, "daemon "+sockDir, 0)
	if errors.Is(err, pathlock.ErrTimeout) {
		return ErrRunning
	}
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	defer release()
	// At most Max daemons of the user at once: slots of the user's lock
	// folder, each held for a daemon's life like the lock above.
	free, err := takeSlot(ctx, o.Max)
	if err != nil {
		return err
	}
	defer free()
	idle := o.Idle
	if idle <= 0 {
		idle = DefaultIdle
	}
	d := &daemon{root: root, state: state, logFile: o.LogFile, started: started, log: log, build: Build(), userConfig: config.UserFile(), confinement: Confinement(), exit: make(chan chan struct{}, 1), answered: make(chan struct{}), ready: make(chan struct{}), moved: make(chan struct{})}
	// A root gone or replaced as the daemon starts ends it as a daemon
	// ends (its folder gone): the next command may start one at once, of
	// the folder then there.
	if d.rootID, err = folderID(root); err != nil {
		_ = os.Remove(filepath.Join(sockDir, startedFile))
		return fmt.Errorf("daemon: workspace root: %w", err)
	}
	d.hold = holder{root: root}
	d.touch()
	cfg := d.loadConfig()
	d.env = engine.Setup(ctx, engine.Options{Roots: []string{root}, Config: cfg, StateDir: o.StateDir, Log: log, Notices: rootNotices(root)})
	d.hold.set = d.env.WS.SetRoots
	// The engines opened the root between this look and the one above: the
	// same folder both times is the folder they hold.
	if !d.sameRoot() {
		_ = d.env.Close(context.WithoutCancel(ctx))
		_ = os.Remove(filepath.Join(sockDir, startedFile))
		return fmt.Errorf("daemon: workspace root %s was moved or replaced as the daemon started", root)
	}
	l, err := bridge.ListenDaemon(sockDir)
	if err != nil {
		_ = d.env.Close(context.WithoutCancel(ctx))
		return fmt.Errorf("daemon: %w", err)
	}
	l.Stall = o.Stall
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { d.env.RunPersistence(bg, flushEvery) })
	go l.Serve(bg, d.handler)
	log.Info("daemon: listening", zap.String("socket", l.Path), zap.String("root", root), zap.Duration("idle", idle))
	// Calls are served once the commands that looked for a daemon before
	// it listened have written their reads (bridge.PassGate); pings and
	// hellos are answered meanwhile, so a caller does not take it for
	// wedged.
	if err := bridge.PassGate(ctx, sockDir, gateWait); err != nil {
		log.Warn("daemon: serving before the commands under way are done", zap.Error(err))
	}
	close(d.ready)
	if o.Ready != nil {
		o.Ready(l.Path)
	}

	var asked chan struct{}
	tick := time.NewTicker(min(idle/4, 2*time.Second))
	defer tick.Stop()
	why := ""
	for why == "" {
		select {
		case <-ctx.Done():
			why = "signal"
		case asked = <-d.exit:
			why = "asked"
		case <-d.moved:
			why = "workspace root moved or replaced"
		case <-tick.C:
			if d.inFlight.Load() == 0 && time.Since(time.Unix(0, d.last.Load())) >= min(releaseAfter, idle/2) && d.hold.release() {
				log.Debug("daemon: idle: the workspace root's handles closed until the next call")
			}
			switch {
			case d.inFlight.Load() == 0 && time.Since(time.Unix(0, d.last.Load())) >= idle:
				why = "idle"
			case !d.sameRoot():
				why = "workspace root moved, replaced or removed"
			case gone(state):
				why = "folder removed"
			case gone(l.Path):
				why = "socket removed"
			}
		}
	}
	if asked == nil {
		// A caller that asked while it exited for another reason hears,
		// as one that asked first, that the ledger is written.
		select {
		case asked = <-d.exit:
		default:
		}
	}
	log.Info("daemon: exit", zap.String("why", why))
	if why != "signal" || time.Since(started) >= youngSignal {
		// It lasted: the next caller may start another. Killed by a
		// signal soon after its start (a sandbox ending what a command
		// left running), the mark stays, as if killed outright.
		_ = os.Remove(filepath.Join(sockDir, startedFile))
	}
	// No new call reaches the engines after this (a caller then runs it in
	// its own process); those under way end before the ledger is written.
	d.mu.Lock()
	d.closing = true
	d.mu.Unlock()
	d.calls.Wait()
	stop()
	wg.Wait()
	if cerr := d.env.Close(context.WithoutCancel(ctx)); cerr != nil {
		log.Warn("daemon: saving the ledger", zap.Error(cerr))
	}
	if asked != nil {
		// The caller that asked hears that the ledger is written before
		// its connection is closed.
		close(asked)
		select {
		case <-d.answered:
		case <-time.After(time.Second):
		}
	}
	// The lock is released (deferred) after the socket is gone: the next
	// daemon's socket is then the only one.
	return l.Close()
}

// gone reports whether a path no longer exists.
func gone(p string) bool {
	_, err := os.Lstat(p)
	return errors.Is(err, os.ErrNotExist)
}

type daemon struct {
	root, build, userConfig string
	hold                    holder    // the root's handles, closed while idle
	state, logFile          string    // the state folder and the log file, for its status
	started                 time.Time // for its status
	confinement             string    // Confinement() of the daemon's process
	log                     *zap.Logger
	env                     *engine.Env

	last     atomic.Int64 // the last call's time, Unix nanoseconds
	inFlight atomic.Int64
	exit     chan chan struct{}
	answered chan struct{} // closed once the exit asked for is answered
	ready    chan struct{} // closed once calls may be served (the gate passed)

	// mu orders the calls' start with the exit: no call starts once
	// closing is set, and the exit waits for those under way (calls).
	mu      sync.Mutex
	closing bool
	calls   sync.WaitGroup

	// rootID is the root folder as the daemon opened it (device and
	// inode; on Windows the volume and file ID).
	rootID    os.FileInfo
	moved     chan struct{} // closed once the root is found moved or replaced
	movedOnce sync.Once

	cfgMu  sync.Mutex
	cfgKey [2]fileKey
}

func (d *daemon) touch() { d.last.Store(time.Now().UnixNano()) }

// folderID is the identity of the folder at path, loaded now: on Windows a
// FileInfo's file ID is otherwise read from its path when first compared,
// which would then name whatever folder is there.
func folderID(path string) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	os.SameFile(fi, fi)
	return fi, nil
}

// sameRoot reports whether the root's path still names the folder the
// daemon opened. Its engines hold that folder, not the path: after `mv
// proj proj.bak; mkdir proj` they would read and write proj.bak for a
// caller in proj, and after `rm -rf proj` and a new clone find every file
// missing. Not the same, the daemon exits (moved, in Run).
func (d *daemon) sameRoot() bool {
	fi, err := os.Stat(d.root)
	if err == nil && os.SameFile(fi, d.rootID) {
		return true
	}
	d.movedOnce.Do(func() {
		d.log.Info("daemon: the workspace root is no longer the folder it opened", zap.String("root", d.root), zap.Error(err))
		close(d.moved)
	})
	return false
}

// notHere is why a daemon whose root moved serves nobody.
const notHere = "its workspace root is no longer the folder it opened (moved, replaced or removed); it exits"

// fileKey is what says a configuration file changed: its identity and a
// hash of its bytes. Its stat alone misses a copy that keeps the size and
// time (cp -p, rsync -t, tar); the files are small, so reading them on
// each call costs microseconds (see BenchmarkCallChecks).
type fileKey struct {
	info os.FileInfo // nil: not read (err)
	sum  [sha256.Size]byte
	err  string
}

func (k fileKey) same(o fileKey) bool {
	if k.info == nil || o.info == nil {
		return k.info == nil && o.info == nil && k.err == o.err
	}
	return k.sum == o.sum && os.SameFile(k.info, o.info)
}

// maxConfig bounds what is hashed of a configuration file: one larger is
// read whole by config.Load, which refuses what it cannot use; its first
// bytes and its stat tell a change well enough.
const maxConfig = 1 << 20

// readKey reads a configuration file's key.
func readKey(p string) fileKey {
	f, err := os.Open(p)
	if err != nil {
		return fileKey{err: err.Error()}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileKey{err: err.Error()}
	}
	os.SameFile(fi, fi) // the file ID of what was opened (Windows)
	// One read: a file of its stat's size is read whole by one, and a
	// short read at worst reloads the configuration once more.
	b := make([]byte, min(fi.Size(), maxConfig)+1)
	n, err := f.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		return fileKey{err: err.Error()}
	}
	k := fileKey{info: fi, sum: sha256.Sum256(b[:n])}
	if n == len(b) {
		// Larger than its stat said, or than maxConfig: the size and time
		// join the bytes read.
		k.sum = sha256.Sum256(fmt.Appendf(b[:n], "%d %d", fi.Size(), fi.ModTime().UnixNano()))
	}
	return k
}

// configKey is the configuration files' keys.
func (d *daemon) configKey() [2]fileKey {
	return [2]fileKey{readKey(filepath.Join(d.root, config.FileName)), readKey(d.userConfig)}
}

// loadConfig reads the configuration as the CLI does for each call. The
// key is read first: a change after it is seen by the next call.
func (d *daemon) loadConfig() config.Config {
	d.cfgKey = d.configKey()
	cfg := config.Load(d.root) // its problems are in every answer
	for _, p := range cfg.Problems {
		d.log.Warn("configuration", zap.String("problem", p.String()))
	}
	return cfg
}

// reloadConfig reads the configuration again when its files changed since
// the last call (their bytes or identity): a call sees the files as they
// are, as in its own process.
func (d *daemon) reloadConfig() {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if k := d.configKey(); !k[0].same(d.cfgKey[0]) || !k[1].same(d.cfgKey[1]) {
		d.env.SetConfig(d.loadConfig())
	}
}

// handler serves one caller's connection. Nothing but the bridge's own
// methods (ping, hello, status, exit) is served before a hello the daemon
// accepts: a caller that sends anything else first is answered that it is
// not served and hung up on, and so is one whose hello names a
// confinement other than the one the kernel gives its process. A caller
// refused for what it truly is (another build, root, configuration or
// confinement) keeps its connection, to ask the daemon to exit.
func (d *daemon) handler() (jsonrpc2.Handler, func()) {
	runs := ops.NewBlockRuns()
	var approves, served atomic.Bool
	// refused is why this connection's caller is not served, as its last
	// hello showed (nil: no hello).
	var refused atomic.Pointer[string]
	// hello judges a hello; lied: its confinement is not the caller's.
	hello := func(ctx context.Context, raw []byte) (h bridge.Hello, lied bool, err error) {
		served.Store(false)
		var p bridge.HelloParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return bridge.Hello{}, false, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
		}
		kernel, kerr := bridge.PeerConfinement(ctx)
		h, lied = d.hello(p, kernel, kerr)
		approves.Store(p.Approves)
		refused.Store(&h.Why)
		served.Store(h.Serves)
		if !h.Serves {
			d.log.Info("daemon: a caller not served", zap.String("why", h.Why), zap.Bool("lied", lied))
		}
		return h, lied, nil
	}
	h := func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		method := req.Method()
		if !req.IsCall() {
			if method == bridge.MethodHello {
				// Handled before the next message is read (no Async):
				// the calls after it are judged by it.
				d.touch()
				if _, lied, err := hello(ctx, req.Params()); lied || err != nil {
					bridge.HangUp(ctx, req)
				}
			}
			return nil, nil
		}
		switch method {
		case bridge.MethodHello:
			// Before the next message is read, as the notification.
			d.touch()
			h, lied, err := hello(ctx, req.Params())
			if lied {
				bridge.HangUp(ctx, req)
			}
			if err != nil {
				return nil, err
			}
			return h, nil
		case bridge.MethodPing:
			d.touch()
			return struct{}{}, nil
		case bridge.MethodStatus:
			return d.status(), nil
		case bridge.MethodExit:
			jsonrpc2.Async(ctx)
			done := make(chan struct{})
			select {
			case d.exit <- done:
				<-done
				defer close(d.answered)
			default: // already exiting
			}
			return struct{}{}, nil
		}
		// Judged before the next message is read (no Async yet): a hello
		// sent after the call does not serve it.
		if !served.Load() {
			why := refused.Load()
			if why == nil {
				bridge.HangUp(ctx, req)
				return nil, jsonrpc2.Errorf(bridge.CodeNotServed, "this daemon serves a caller only after its hello (%s)", bridge.MethodHello)
			}
			return nil, jsonrpc2.Errorf(bridge.CodeNotServed, "this daemon does not serve the caller: %s", *why)
		}
		jsonrpc2.Async(ctx)
		d.touch()
		select {
		case <-d.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		d.mu.Lock()
		if d.closing {
			d.mu.Unlock()
			// As an editor's server shutting down: the caller runs the
			// call in its own process.
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the daemon is exiting")
		}
		d.calls.Add(1)
		d.mu.Unlock()
		d.inFlight.Add(1)
		defer func() {
			d.touch()
			d.inFlight.Add(-1)
			d.calls.Done()
		}()
		defer func() {
			if r := recover(); r != nil {
				d.log.Error("panic in daemon handler", zap.String("method", method), zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r)
			}
		}()
		start := time.Now()
		defer func() {
			d.log.Debug("daemon: call", zap.String("method", method), zap.Duration("took", time.Since(start)))
		}()
		// The root's handles, closed while the daemon was idle, are opened
		// again by its path: the check below then also says they are of
		// the folder the daemon opened.
		defer d.hold.hold()()
		// Checked on every call, before the engines are reached: they hold
		// the folder the daemon opened, which may no longer be the
		// caller's. The caller runs the call in its own process.
		if !d.sameRoot() {
			return nil, jsonrpc2.Errorf(bridge.CodeNotServed, "this daemon does not serve the caller: %s", notHere)
		}
		d.reloadConfig()
		// Disk: the daemon's memory is not all of the state (the database
		// holds what other processes recorded), as for the CLI in its own
		// process; it answers what that would, approvals asked of the
		// caller.
		c := &ops.Call{Env: d.env, Disk: true, OwnApprover: true}
		if approves.Load() {
			c.Approver = callerApprover{bridge.Peer(ctx)}
		}
		if peer := bridge.Peer(ctx); peer != nil {
			// A long call's progress goes to its caller, which shows it on
			// its terminal (or ignores it).
			c.Progress = func(done, total int) {
				peer.Notify(ctx, bridge.MethodProgress, bridge.ProgressParams{Done: done, Total: total})
			}
		}
		var b []byte
		var text string
		if method == ops.MethodBlockRun {
			b, err = runs.Serve(ctx, c, json.RawMessage(req.Params()))
		} else {
			op := ops.Lookup(method)
			if op == nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "unknown method %s", method)
			}
			b, text, err = op.ServeApart(ctx, c, json.RawMessage(req.Params()), bridge.Attaches(ctx))
		}
		switch {
		case err == nil:
			return bridge.Attached{Result: b, Attachment: text}, nil
		case result.KindOf(err) == result.InvalidParams:
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s", result.Message(err))
		case errors.Is(err, context.Canceled):
			return nil, err
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: %v", method, err)
	}
	return h, runs.Drop
}

// hello says whether the daemon serves a caller: one of another build, root,
// user configuration or confinement would get other answers than in its own
// process. The caller's confinement is the kernel's (kernel, or kerr when
// it cannot be read): a hello that names another lied.
func (d *daemon) hello(p bridge.HelloParams, kernel string, kerr error) (h bridge.Hello, lied bool) {
	h = bridge.Hello{PID: os.Getpid(), Serves: true}
	lied = kerr == nil && p.Confinement != "" && p.Confinement != kernel
	switch {
	case kerr != nil:
		h.Serves, h.Why = false, "the kernel does not tell the caller's confinement ("+kerr.Error()+")"
	case lied:
		h.Serves, h.Why = false, "the hello names a confinement that is not the caller's (the kernel's: "+kernel+")"
	case kernel != d.confinement:
		h.Serves, h.Why = false, "it is of another confinement (a sandbox, or none: "+d.confinement+")"
	case p.Confinement != kernel:
		h.Serves, h.Why = false, "the hello names no confinement"
	case p.Build != d.build:
		h.Serves, h.Why = false, "it is of another build ("+d.build+")"
	case p.Root != d.root:
		h.Serves, h.Why = false, "it is of another workspace ("+d.root+")"
	case p.Config != d.userConfig:
		h.Serves, h.Why = false, "it is of another user configuration ("+d.userConfig+")"
	case !d.sameRoot():
		h.Serves, h.Why = false, notHere
	}
	return h, lied
}

// callerApprover asks the caller of a call (its --yes, its terminal),
// through the call's connection.
type callerApprover struct{ conn jsonrpc2.Conn }

// approveWait bounds the caller's answer: its own question on the terminal
// waits at most a minute.
const approveWait = 2 * time.Minute

func (a callerApprover) Approve(ctx context.Context, req engine.Approval) (engine.Decision, error) {
	if a.conn == nil {
		return engine.Deny, errors.New("the command that made the call cannot be asked")
	}
	cctx, cancel := context.WithTimeout(ctx, approveWait)
	defer cancel()
	var d engine.Decision
	if _, err := a.conn.Call(cctx, bridge.MethodApprove, req, &d); err != nil {
		var re *jsonrpc2.Error
		if errors.As(err, &re) {
			return engine.Deny, errors.New(re.Message)
		}
		return engine.Deny, fmt.Errorf("the command that made the call did not answer: %w", err)
	}
	return d, nil
}
