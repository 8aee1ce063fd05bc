// Package server is sightline's LSP connection: lifecycle state machine,
// capabilities, document sync, the sightline/* router, and publishing what the
// editor shows. Features live in package engine; this package adapts them
// to LSP.
package server

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/workspace"
)

// state is the lifecycle state (LSP "Lifecycle Messages").
type state int

const (
	stateNew          state = iota // waiting for initialize
	stateInitializing              // initialize answered, waiting for initialized
	stateRunning
	stateShutdown // shutdown answered: only exit is accepted
	stateExited
)

func (s state) String() string {
	return [...]string{"new", "initializing", "running", "shutdown", "exited"}[s]
}

// Options configure a Server.
type Options struct {
	Log *zap.Logger
	// Root is used when the client names no workspace folder.
	Root string
	// StateDir overrides the state folder (tests); "" means store.Dir(root).
	StateDir string
	// NoPersist disables the database (tests that need no persistence).
	NoPersist bool
	// FlushEvery is the write-behind interval of the ledger database.
	FlushEvery time.Duration
	// Debounce delays publishing after a change so bursts coalesce.
	Debounce time.Duration
	// Extract overrides the extract setting (the --extract flag).
	Extract string
	// Bridge opens the local socket the CLI and `sightline mcp` hand their
	// calls to (package bridge); `sightline serve` turns it on.
	Bridge bool
	// ApprovalWait bounds how long an approval question waits for the
	// user; 0 means two minutes.
	ApprovalWait time.Duration
}

// Server is one LSP session with one client.
type Server struct {
	protocol.UnimplementedServer

	log  *zap.Logger
	opts Options

	conn jsonrpc2.Conn
	// bg is the connection-lifetime context for notifications: a request's
	// context dies with the request and would drop the write.
	bg     context.Context
	stopBg context.CancelFunc

	mu     sync.Mutex
	state  state
	enc    textdoc.Encoding
	caps   clientCaps
	env    *engine.Env
	ws     *workspace.Workspace
	ledger *ledger.Ledger
	pub    *publisher
	// baseCfg is the configuration before the editor's latest settings
	// (defaults, .sightline.json, initializationOptions): each settings push
	// is laid over it afresh, so a setting the user clears reverts.
	baseCfg config.Config
	// cfgRoot, initOpts and editorCfg are what baseCfg and the editor's
	// latest settings were made of, to make them again when the workspace's
	// .sightline.json changes (reloadConfig).
	cfgRoot   string
	initOpts  []byte
	editorCfg struct{ src, raw string }
	// cfgGen counts settings pushes: an answer to workspace/configuration
	// asked before a push is older than it and is dropped.
	cfgGen atomic.Int64
	// active is the session of the latest agent call (followSession).
	active atomic.Pointer[string]
	// bridges are the local sockets, one per state folder of the roots.
	bridges []*bridge.Listener

	// busy is the time of the last message (unix nanoseconds), for the idle
	// memory release.
	busy atomic.Int64
	// fullText counts the bytes of full-text changes since the server last
	// collected garbage for them (collectAfterFullText).
	fullText atomic.Int64

	exitOnce sync.Once
	exited   chan int // exit code
}

// clientCaps is what sightline uses of the client's capabilities.
type clientCaps struct {
	watchFiles       bool // didChangeWatchedFiles with dynamic registration
	showDocument     bool // window/showDocument
	applyEdit        bool
	pullDiagnostics  bool
	diagRefresh      bool
	codeLensRefresh  bool
	configuration    bool
	workspaceFolders bool
	showMessage      bool // window/showMessageRequest with actions: approvals can be asked
	coverageChanges  bool // experimental.sightline.coverageChanges: sightline/coverage as changes
}

// New makes a server; Serve runs it on a stream.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 500 * time.Millisecond
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 30 * time.Millisecond
	}
	if opts.ApprovalWait <= 0 {
		opts.ApprovalWait = 2 * time.Minute
	}
	return &Server{log: opts.Log, opts: opts, exited: make(chan int, 1)}
}

// Serve runs the server on stream until the client sends exit or closes the
// stream, and returns the process exit code: 0 only if shutdown came first.
func (s *Server) Serve(ctx context.Context, stream jsonrpc2.Stream) int {
	s.bg, s.stopBg = context.WithCancel(context.WithoutCancel(ctx))
	defer s.stopBg()
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(lspCodec{}))
	s.conn.Go(s.bg, s.handler())
	go s.releaseWhenIdle(s.bg, 2*time.Second)

	code := 1
	exited := false
	select {
	case code = <-s.exited:
		exited = true
	case <-s.conn.Done():
		s.mu.Lock()
		if s.state == stateShutdown {
			code = 0
		}
		s.mu.Unlock()
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, net.ErrClosed) {
			// A broken frame (a garbage Content-Length) ends the stream
			// too: say so rather than blame the client.
			s.log.Error("connection failed", zap.Error(err), zap.Int("exit", code))
		} else {
			s.log.Info("client closed the stream", zap.Int("exit", code))
		}
	case <-ctx.Done():
	}
	s.teardown()
	// Close can block while the client keeps stdin open (a blocking read
	// that closing does not wake). After exit nothing more is owed to the
	// client: close in the background and return at once, so the editor
	// does not wait on a quit. Otherwise bound the wait.
	done := make(chan struct{})
	go func() { _ = s.conn.Close(); close(done) }()
	if exited {
		return code
	}
	select {
	case <-done:
	case <-time.After(time.Second):
		s.log.Warn("connection did not close within 1s; exiting anyway")
	}
	return code
}

// releaseWhenIdle returns freed memory to the OS once the server has been
// idle for a while after work. The runtime returns it only gradually (and the
// serve command collects rarely, GOGC=400): a burst such as thousands of
// cancelled reads of a large file would otherwise leave the process holding
// its peak long after.
func (s *Server) releaseWhenIdle(ctx context.Context, idle time.Duration) {
	t := time.NewTicker(idle / 2)
	defer t.Stop()
	released := int64(0)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			last := s.busy.Load()
			if last > released && now.UnixNano()-last >= int64(idle) {
				debug.FreeOSMemory()
				released = now.UnixNano()
			}
		}
	}
}

// teardown stops background work and flushes the ledger to disk.
func (s *Server) teardown() {
	s.mu.Lock()
	pub, env := s.pub, s.env
	s.state = stateExited
	s.mu.Unlock()
	s.stopBridge()
	s.stopBg() // ends the flush loop
	if pub != nil {
		pub.stop()
	}
	if env != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := env.Close(ctx); err != nil {
			s.log.Error("flush ledger", zap.Error(err))
		}
	}
}

func (s *Server) getState() state {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func (s *Server) encoding() textdoc.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enc
}

// session is the session whose ledger this editor shows.
func (s *Server) session() string {
	if s.env == nil {
		return "default"
	}
	cfg := s.env.Config()
	if cfg.FollowSession {
		if a := s.active.Load(); a != nil {
			return *a
		}
	}
	return cfg.Session
}

// noteActive records the session of an agent call (any door: the editor's
// tools, the CLI and hooks through the bridge); with followSession the
// editor then shows that session's ledger.
func (s *Server) noteActive(session string, pub *publisher) {
	if session == "" {
		return
	}
	if old := s.active.Swap(&session); old != nil && *old == session {
		return
	}
	if s.env != nil && s.env.Config().FollowSession {
		pub.markAll()
	}
}

// seedActive starts following the session the state database saw last,
// until a call says otherwise: an editor opened after the agent began
// shows that agent's session at once.
func (s *Server) seedActive(env *engine.Env, pub *publisher) {
	r, err := env.Sessions(s.bg)
	if err != nil || len(r.Sessions) == 0 {
		return
	}
	latest := r.Sessions[0].Session
	if s.active.CompareAndSwap(nil, &latest) && env.Config().FollowSession {
		pub.markAll()
	}
}

// Env exposes the features' environment (tests, the local socket).
func (s *Server) Env() *engine.Env { return s.env }

// clientCaps returns what the client announced.
func (s *Server) clientCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}
