package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/textdoc"
	"github.com/sightline-lsp/sightline/version"
	"github.com/sightline-lsp/sightline/workspace"
)

// Initialize negotiates capabilities and sets up the workspace, ledger and
// database for the client's workspace folders.
func (s *Server) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	if s.state != stateNew {
		s.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize was already received (server is %s)", s.state)
	}
	s.state = stateInitializing
	s.mu.Unlock()

	roots := workspaceRoots(p, s.opts.Root)
	s.mu.Lock()
	s.cfgRoot, s.initOpts = roots[0], []byte(p.InitializationOptions)
	s.mu.Unlock()
	cfg := s.loadBase()
	enc := textdoc.UTF16
	caps := clientCaps{}
	if g := p.Capabilities.General; g != nil && slices.Contains(g.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		enc = textdoc.UTF8
	}
	if w := p.Capabilities.Workspace; w != nil {
		caps.applyEdit = w.ApplyEdit != nil && *w.ApplyEdit
		caps.configuration = w.Configuration != nil && *w.Configuration
		caps.workspaceFolders = w.WorkspaceFolders != nil && *w.WorkspaceFolders
		caps.diagRefresh = w.Diagnostics != nil && w.Diagnostics.RefreshSupport != nil && *w.Diagnostics.RefreshSupport
		caps.codeLensRefresh = w.CodeLens != nil && w.CodeLens.RefreshSupport != nil && *w.CodeLens.RefreshSupport
		caps.watchFiles = w.DidChangeWatchedFiles != nil && w.DidChangeWatchedFiles.DynamicRegistration != nil && *w.DidChangeWatchedFiles.DynamicRegistration
	}
	if w := p.Capabilities.Window; w != nil && w.ShowDocument != nil && w.ShowDocument.Support {
		caps.showDocument = true
	}
	if td := p.Capabilities.TextDocument; td != nil && td.Diagnostic != nil {
		caps.pullDiagnostics = true
	}
	if w := p.Capabilities.Window; w != nil && w.ShowMessage != nil {
		caps.showMessage = true
	}
	if raw := p.Capabilities.Experimental; len(raw) > 0 {
		var x struct {
			Sightline struct {
				CoverageChanges bool `json:"coverageChanges"`
			} `json:"sightline"`
		}
		// Another tool's experimental capabilities are no concern of ours.
		_ = json.Unmarshal(raw, &x)
		caps.coverageChanges = x.Sightline.CoverageChanges
	}

	s.mu.Lock()
	s.enc, s.caps = enc, caps
	s.mu.Unlock()
	var ed engine.Editor
	if caps.applyEdit {
		ed = editor{s}
	}
	var ap engine.Approver
	if caps.showMessage {
		ap = approver{s}
	}
	s.setup(roots, cfg, ed, ap)
	s.log.Info("initialize",
		zap.Strings("roots", roots),
		zap.String("client", p.ClientInfo.Name),
		zap.String("encoding", encodingName(enc)),
		zap.Bool("pullDiagnostics", caps.pullDiagnostics))

	incremental := protocol.TextDocumentSyncKindIncremental
	yes, no := true, false
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding: protocol.PositionEncodingKind(encodingName(enc)),
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: &yes,
				Change:    &incremental,
				Save:      &protocol.SaveOptions{IncludeText: &no},
			},
			HoverProvider:           protocol.Boolean(true),
			DocumentSymbolProvider:  protocol.Boolean(true),
			WorkspaceSymbolProvider: protocol.Boolean(true),
			CodeLensProvider:        &protocol.CodeLensOptions{ResolveProvider: &no},
			Workspace: &protocol.WorkspaceOptions{
				WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{Supported: &yes, ChangeNotifications: protocol.Boolean(true)},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "sightline", Version: protocol.NewOptional(version.String())},
	}
	if caps.pullDiagnostics {
		id := "sightline"
		res.Capabilities.DiagnosticProvider = &protocol.DiagnosticOptions{Identifier: &id}
	}
	return res, nil
}

// setup assembles the features' environment and the publisher.
func (s *Server) setup(roots []string, cfg config.Config, ed engine.Editor, ap engine.Approver) {
	pub := newPublisher(s)
	env := engine.Setup(s.bg, engine.Options{
		Roots:       roots,
		Config:      cfg,
		Log:         s.log,
		StateDir:    s.opts.StateDir,
		NoPersist:   s.opts.NoPersist,
		Editor:      ed,
		Approver:    ap,
		OnDocChange: pub.mark,
		OnSessionActive: func(session string) {
			s.noteActive(session, pub)
		},
	})
	s.mu.Lock()
	s.env, s.ws, s.ledger, s.pub = env, env.WS, env.Ledger, pub
	s.mu.Unlock()
	pub.start()
	go env.RunPersistence(s.bg, s.opts.FlushEvery)
	go s.seedActive(env, pub)
	if s.opts.Bridge {
		s.startBridge(roots)
	}
}

// Initialized completes the handshake and asks the client for its settings.
func (s *Server) Initialized(ctx context.Context, p *protocol.InitializedParams) error {
	s.mu.Lock()
	if s.state == stateInitializing {
		s.state = stateRunning
	}
	caps, env := s.caps, s.env
	s.mu.Unlock()
	if env != nil {
		if msg := env.PersistenceProblem(); msg != "" {
			s.showMessage(protocol.MessageTypeWarning, "sightline: "+msg)
		}
	}
	if caps.configuration {
		// A client call from an inline notification handler would deadlock the
		// read loop: ask from a goroutine on the connection's context.
		go s.pullConfiguration()
	}
	if caps.watchFiles && env != nil {
		go s.watchFiles(env)
	}
	return nil
}

// watchFiles asks the editor to report every file change in the workspace,
// so the file registry can keep its listing between calls.
func (s *Server) watchFiles(env *engine.Env) {
	params := map[string]any{"registrations": []any{map[string]any{
		"id": "sightline-files", "method": "workspace/didChangeWatchedFiles",
		"registerOptions": map[string]any{"watchers": []any{map[string]any{"globPattern": "**/*"}}},
	}}}
	if _, err := s.conn.Call(s.bg, "client/registerCapability", params, nil); err != nil {
		s.log.Info("file watchers not registered", zap.Error(err))
		return
	}
	env.WatchingFiles(true)
}

// Shutdown flushes state; after it only exit is accepted.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.state = stateShutdown
	env := s.env // initialize may still be assembling it: read under the lock
	s.mu.Unlock()
	// Callers on the socket go to disk from now on.
	s.stopBridge()
	if env != nil {
		if err := env.Flush(context.WithoutCancel(ctx)); err != nil {
			s.log.Error("flush ledger at shutdown", zap.Error(err))
		}
	}
	return nil
}

// Exit ends the process: code 0 only if shutdown came first.
func (s *Server) Exit(ctx context.Context) error {
	code := 1
	if s.getState() == stateShutdown {
		code = 0
	}
	s.exitOnce.Do(func() { s.exited <- code })
	return nil
}

// DidChangeConfiguration re-reads the settings.
func (s *Server) DidChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	if s.env == nil {
		return nil
	}
	if raw := []byte(p.Settings); len(raw) > 0 && string(raw) != "null" {
		s.cfgGen.Add(1)
		s.setEditorConfig("the editor's settings (didChangeConfiguration)", raw)
		return nil
	}
	go s.pullConfiguration()
	return nil
}

// DidChangeWorkspaceFolders updates the roots.
func (s *Server) DidChangeWorkspaceFolders(ctx context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	if s.ws == nil {
		return nil
	}
	roots := s.ws.Roots()
	for _, f := range p.Event.Removed {
		if path, ok := workspace.Key(f.URI).Path(); ok {
			roots = slices.DeleteFunc(roots, func(r string) bool { return r == path })
		}
	}
	for _, f := range p.Event.Added {
		if k, err := workspace.Normalize(string(f.URI)); err == nil {
			if path, ok := k.Path(); ok {
				roots = append(roots, path)
			}
		}
	}
	if len(roots) > 0 {
		s.ws.SetRoots(roots)
	}
	return nil
}

// pullConfiguration asks the client for the "sightline" section.
func (s *Server) pullConfiguration() {
	section := "sightline"
	gen := s.cfgGen.Load()
	var raw []json.RawMessage
	_, err := s.conn.Call(s.bg, "workspace/configuration", &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}}, &raw)
	if err != nil {
		s.log.Info("workspace/configuration failed", zap.Error(err))
		return
	}
	if len(raw) == 0 || s.env == nil || s.cfgGen.Load() != gen {
		return
	}
	s.setEditorConfig("the editor's settings (workspace/configuration)", raw[0])
}

// loadBase reads the configuration the editor's latest settings are laid
// over (the files, initializationOptions) and makes it the base. Its
// problems stay in it: every answer says them, and a policy that cannot be
// read refuses every path (never the defaults).
func (s *Server) loadBase() config.Config {
	s.mu.Lock()
	root, init := s.cfgRoot, s.initOpts
	s.mu.Unlock()
	cfg := config.Load(root)
	if len(init) > 0 {
		cfg.ApplyEditor("the editor's initializationOptions", init)
	}
	if s.opts.Extract != "" {
		cfg.Extract = s.opts.Extract
	}
	s.mu.Lock()
	s.baseCfg = cfg
	s.mu.Unlock()
	logProblems(s.log, cfg)
	return cfg
}

// setEditorConfig lays the editor's latest settings over the base.
func (s *Server) setEditorConfig(src string, raw []byte) {
	s.mu.Lock()
	s.editorCfg.src, s.editorCfg.raw = src, string(raw)
	s.mu.Unlock()
	s.applyConfig(s.base())
}

// applyConfig lays the editor's latest settings over base and puts the
// result in force.
func (s *Server) applyConfig(cfg config.Config) {
	s.mu.Lock()
	ed := s.editorCfg
	s.mu.Unlock()
	if ed.raw != "" {
		cfg.ApplyEditor(ed.src, []byte(ed.raw))
		logProblems(s.log, cfg)
	}
	s.env.SetConfig(cfg)
	s.pub.markAll()
}

// reloadConfig reads the workspace's .sightline.json again (it changed):
// a rule added there holds from the next call, not the next start.
func (s *Server) reloadConfig() { s.applyConfig(s.loadBase()) }

// isConfigFile says whether path is the configuration file Load reads.
func (s *Server) isConfigFile(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfgRoot != "" && path == filepath.Join(s.cfgRoot, config.FileName)
}

// base returns the configuration the editor's settings are laid over.
func (s *Server) base() config.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.baseCfg
}

// logProblems logs a configuration's problems, which its answers carry.
func logProblems(log *zap.Logger, cfg config.Config) {
	for _, p := range cfg.Problems {
		log.Warn("configuration", zap.String("problem", p.String()))
	}
}

// workspaceRoots picks the roots: workspace folders, else rootUri, else
// rootPath, else the configured root, else the working directory.
func workspaceRoots(p *protocol.InitializeParams, fallback string) []string {
	var roots []string
	if folders, ok := p.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if k, err := workspace.Normalize(string(f.URI)); err == nil {
				if path, ok := k.Path(); ok {
					roots = append(roots, path)
				}
			}
		}
	}
	if len(roots) == 0 && p.RootURI != nil {
		if k, err := workspace.Normalize(string(*p.RootURI)); err == nil {
			if path, ok := k.Path(); ok {
				roots = append(roots, path)
			}
		}
	}
	if len(roots) == 0 {
		if rp, ok := p.RootPath.Get(); ok && rp != "" {
			roots = append(roots, rp)
		}
	}
	if len(roots) == 0 && fallback != "" {
		roots = append(roots, fallback)
	}
	if len(roots) == 0 {
		wd, _ := os.Getwd()
		roots = append(roots, wd)
	}
	return roots
}

func encodingName(e textdoc.Encoding) string {
	switch e {
	case textdoc.UTF8:
		return "utf-8"
	case textdoc.UTF32:
		return "utf-32"
	}
	return "utf-16"
}
