package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/store"
	"github.com/sightline-lsp/sightline/version"
)

// startBridge opens the local socket of each state folder this server's
// roots use, so the CLI and `sightline mcp` of the workspace hand their
// calls to it. A socket that cannot be opened is logged: the editor works
// without it, and the CLI then works on disk.
func (s *Server) startBridge(roots []string) {
	var dirs []string
	if s.opts.StateDir != "" {
		dirs = []string{s.opts.StateDir}
	} else {
		for _, r := range roots {
			d, err := store.Dir(r)
			if err != nil {
				s.log.Warn("bridge: no state folder", zap.String("root", r), zap.Error(err))
				continue
			}
			dirs = append(dirs, d)
		}
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		sock, err := bridge.Dir(d)
		if err != nil || seen[sock] {
			if err != nil {
				s.log.Warn("bridge: no socket folder", zap.Error(err))
				// Said, not only logged: the CLI and sightline mcp then
				// refuse writes (they cannot ask this server about its
				// buffers), and the user should know why.
				s.showMessage(protocol.MessageTypeWarning, fmt.Sprintf("sightline: the CLI and sightline mcp cannot reach this language server (%v), so they refuse to write files. The socket folder must be yours and only yours: remove it or change its owner, or set XDG_RUNTIME_DIR to a folder of yours, then restart the language server.", err))
			}
			continue
		}
		seen[sock] = true
		l, err := bridge.Listen(sock)
		if err != nil {
			s.log.Warn("bridge: not listening", zap.Error(err))
			continue
		}
		s.log.Info("bridge: listening", zap.String("socket", l.Path))
		s.mu.Lock()
		s.bridges = append(s.bridges, l)
		s.mu.Unlock()
		go l.Serve(s.bg, s.bridgeHandler)
	}
}

// stopBridge closes the sockets (removing their files).
func (s *Server) stopBridge() {
	s.mu.Lock()
	ls := s.bridges
	s.bridges = nil
	s.mu.Unlock()
	for _, l := range ls {
		_ = l.Close()
	}
}

// bridgeHandler serves one bridge connection: the sightline/* methods, as
// the editor's connection does (so their effects are published to the
// editor alike), and the bridge's own. LSP lifecycle and document methods
// are not served: the caller is not an editor.
func (s *Server) bridgeHandler() (jsonrpc2.Handler, func()) {
	runs := ops.NewBlockRuns()
	h := func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		if !req.IsCall() {
			return nil, nil
		}
		jsonrpc2.Async(ctx)
		method := req.Method()
		if method == bridge.MethodPing {
			return struct{}{}, nil
		}
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic in bridge handler", zap.String("method", method), zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", method, r)
			}
			if err != nil {
				err = rpcError(method, err)
			}
		}()
		if st := s.getState(); st != stateRunning && st != stateInitializing {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "the language server is %s", st)
		}
		raw := json.RawMessage(req.Params())
		switch {
		case method == bridge.MethodStatus:
			return s.bridgeStatus(), nil
		case method == ops.MethodBlockRun:
			b, err := runs.Serve(ctx, &ops.Call{Env: s.env}, raw)
			if err != nil {
				return answerError(err)
			}
			return jsonrpc2.RawMessage(b), nil
		case strings.HasPrefix(method, "sightline/"):
			return s.custom(ctx, method, raw, true, bridge.Attaches(ctx))
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "%s is not served over the bridge (only sightline/* methods are)", method)
	}
	return h, runs.Drop
}

func (s *Server) bridgeStatus() bridge.Status {
	st := bridge.Status{PID: os.Getpid(), Version: version.String(), Roots: s.ws.Roots(), Open: []string{}}
	for _, d := range s.ws.OpenDocs() {
		st.Open = append(st.Open, string(d.Key))
	}
	return st
}
