package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/ledger"
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
		return s.custom(ctx, strings.Clone(method), json.RawMessage(req.Params()), req.IsCall())
	}
	if strings.HasPrefix(method, "$/") && !req.IsCall() && method != "$/cancelRequest" {
		return nil, nil // optional notifications ($/setTrace, $/progress) need nothing
	}
	return typed(ctx, req)
}

// custom serves the sightline/* requests.
func (s *Server) custom(ctx context.Context, method string, raw json.RawMessage, isCall bool) (any, error) {
	if !isCall {
		return nil, nil // sightline defines no client-to-server notifications
	}
	env := s.env
	switch method {
	case "sightline/read":
		var p handlers.ReadParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.Read(ctx, p)
		return answer(res, err)
	case "sightline/ledger":
		var p handlers.LedgerParams
		if err := decode(raw, &p, false); err != nil {
			return nil, err
		}
		res, err := env.LedgerReport(ctx, p)
		return answer(res, err)
	case "sightline/edit":
		var p handlers.EditParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.Edit(ctx, p)
		return answer(res, err)
	case "sightline/open":
		var p handlers.OpenParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		var ed handlers.Shower
		if s.clientCaps().showDocument {
			ed = showDocument{s}
		}
		res, err := env.Open(ctx, p, ed)
		return answer(res, err)
	case "sightline/applyPatch":
		var p handlers.PatchParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.ApplyPatch(ctx, p)
		return answer(res, err)
	case "sightline/applyBlocks":
		var p handlers.BlocksParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.ApplyBlocks(ctx, p)
		return answer(res, err)
	case "sightline/write":
		var p handlers.WriteParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.Write(ctx, p)
		return answer(res, err)
	case "sightline/summary":
		var p handlers.SummaryParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.Summary(ctx, p)
		return answer(res, err)
	case "sightline/stats":
		var p handlers.StatsParams
		if err := decode(raw, &p, false); err != nil {
			return nil, err
		}
		res, err := env.Stats(ctx, p)
		return answer(res, err)
	case "sightline/files":
		var p handlers.FilesParams
		if err := decode(raw, &p, false); err != nil {
			return nil, err
		}
		res, err := env.Files(ctx, p)
		return answer(res, err)
	case "sightline/history":
		var p handlers.HistoryParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.History(ctx, p)
		return answer(res, err)
	case "sightline/diff":
		var p handlers.DiffParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.Diff(ctx, p)
		return answer(res, err)
	case "sightline/rollback":
		var p handlers.RollbackParams
		if err := decode(raw, &p, true); err != nil {
			return nil, err
		}
		res, err := env.Rollback(ctx, p)
		return answer(res, err)
	case "sightline/approvals":
		var p handlers.ApprovalsParams
		if err := decode(raw, &p, false); err != nil {
			return nil, err
		}
		res, err := env.Approvals(ctx, p)
		return answer(res, err)
	case "sightline/session/reset":
		var p handlers.ResetParams
		if err := decode(raw, &p, false); err != nil {
			return nil, err
		}
		res, touched := env.Reset(ctx, p)
		for _, k := range touched {
			s.pub.mark(k)
		}
		return encoded(res)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "unknown method %s", method)
}

// decode reads params strictly enough to catch mistakes: unknown fields are
// allowed (clients add their own), wrong types are -32602.
func decode(raw json.RawMessage, v any, required bool) error {
	if emptyParams(raw) {
		if required {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "params are required")
		}
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// emptyParams: absent, null, or an empty array, which is how Neovim's Lua
// encodes an empty table ({}).
func emptyParams(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return true
	}
	return t[0] == '[' && len(bytes.TrimSpace(t[1:])) == 1 && t[len(t)-1] == ']'
}

// answer maps a handler's error: invalid params are -32602, cancellation is
// RequestCancelled, anything else is an internal error.
func answer[T any](res T, err error) (any, error) {
	if err == nil {
		return encoded(res)
	}
	if result.KindOf(err) == result.InvalidParams {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s", result.Message(err))
	}
	if errors.Is(err, context.Canceled) {
		return nil, err
	}
	return nil, fmt.Errorf("%w", err)
}

// encoded is a result in the JSON encoding the CLI's --json uses too
// (result.Marshal), passed through the LSP codec as is: the protocol
// package's encoder would send fields the struct tags omit (dryRun: false).
func encoded(v any) (any, error) {
	b, err := result.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonrpc2.RawMessage(b), nil
}

func ledgerKey(k workspace.Key) ledger.DocKey { return ledger.DocKey(k) }
