package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/bridge"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// route gates messages on the lifecycle state and serves sightline/* methods
// from their raw params (absent or null allowed) before the typed dispatcher,
// whose stock path rejects those.
func (s *Server) route(ctx context.Context, req *jsonrpc2.Request, typed jsonrpc2.Handler) (any, error) {
	method := req.Method()
	st := s.getState()
	switch {
	case method == "exit":
		return typed(ctx, req)
	case st == stateNew && method != "initialize":
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize", method)
		}
		return nil, nil // notifications before initialize are dropped (LSP)
	case st == stateShutdown || st == stateExited:
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown: only exit is accepted", method)
		}
		return nil, nil
	}
	if method == "textDocument/didChange" {
		return nil, s.didChange(json.RawMessage(req.Params()))
	}
	if method == "textDocument/didOpen" && s.ws != nil && int64(len(req.Params())) > s.ws.MaxFileSize() {
		return nil, s.didOpenLarge(json.RawMessage(req.Params()))
	}
	if strings.HasPrefix(method, "sightline/") {
		return s.custom(ctx, strings.Clone(method), json.RawMessage(req.Params()), req.IsCall(), false)
	}
	if strings.HasPrefix(method, "$/") && !req.IsCall() && method != "$/cancelRequest" {
		return nil, nil // optional notifications ($/setTrace, $/progress) need nothing
	}
	return typed(ctx, req)
}

// custom serves the sightline/* requests: the operations of the table. A
// read's content comes apart from its JSON when apart (the bridge, to a
// caller that reads attachments).
func (s *Server) custom(ctx context.Context, method string, raw json.RawMessage, isCall, apart bool) (any, error) {
	if !isCall {
		return nil, nil // sightline defines no client-to-server notifications
	}
	op := ops.Lookup(method)
	if op == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "unknown method %s", method)
	}
	c := &ops.Call{Env: s.env, Touched: func(keys []workspace.Key) {
		for _, k := range keys {
			s.pub.mark(k)
		}
	}}
	if s.clientCaps().showDocument {
		c.Shower = showDocument{s}
	}
	b, text, err := op.ServeApart(ctx, c, raw, apart)
	if err != nil {
		return answerError(err)
	}
	if text != "" {
		return bridge.Attached{Result: b, Attachment: text}, nil
	}
	// The JSON the CLI's --json prints too (result.Marshal), passed through
	// the LSP codec as is: the protocol package's encoder would send fields
	// the struct tags omit (dryRun: false).
	return jsonrpc2.RawMessage(b), nil
}

// answerError maps an operation's error: invalid params are -32602,
// cancellation is RequestCancelled, anything else is an internal error.
func answerError(err error) (any, error) {
	if result.KindOf(err) == result.InvalidParams {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s", result.Message(err))
	}
	if errors.Is(err, context.Canceled) {
		return nil, err
	}
	return nil, fmt.Errorf("%w", err)
}

// encoded is a result in the JSON encoding of every answer (result.Marshal).
func encoded(v any) (any, error) {
	b, err := result.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonrpc2.RawMessage(b), nil
}

func ledgerKey(k workspace.Key) ledger.DocKey { return ledger.DocKey(k) }
