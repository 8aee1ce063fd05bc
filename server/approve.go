package server

import (
	"context"
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/sightline-lsp/sightline/engine"
)

// approver asks the user through window/showMessageRequest, for clients
// that announce window.showMessage. The wait is bounded (Options.ApprovalWait):
// an unanswered question is a refusal, never a grant.
type approver struct{ s *Server }

const (
	allowOnce    = "Allow once"
	allowSession = "Allow for this session"
	denyAction   = "Deny"
)

func (a approver) Approve(ctx context.Context, req engine.Approval) (engine.Decision, error) {
	who := "An agent"
	if req.Agent != "" {
		who = "Agent " + req.Agent
	}
	if req.Op == "merge" {
		return a.approveMerge(ctx, who, req)
	}
	params := &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning,
		Message: fmt.Sprintf("sightline: %s (session %s) wants to %s %s, which is sensitive (%s).",
			who, req.Session, req.Op, req.Path, req.Rule),
		Actions: []protocol.MessageActionItem{{Title: allowOnce}, {Title: allowSession}, {Title: denyAction}},
	}
	cctx, cancel := context.WithTimeout(ctx, a.s.opts.ApprovalWait)
	defer cancel()
	var choice *protocol.MessageActionItem
	if _, err := a.s.conn.Call(cctx, "window/showMessageRequest", params, &choice); err != nil {
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return engine.Deny, fmt.Errorf("the editor's question went unanswered for %v", a.s.opts.ApprovalWait)
		}
		return engine.Deny, fmt.Errorf("the editor could not ask: %w", err)
	}
	if choice == nil {
		return engine.Deny, nil // dismissed
	}
	switch choice.Title {
	case allowOnce:
		return engine.AllowOnce, nil
	case allowSession:
		return engine.AllowSession, nil
	}
	return engine.Deny, nil
}

const (
	applyMerge  = "Apply merge"
	rejectMerge = "Reject"
)

// approveMerge asks the user to approve a patch's three-way merge, showing
// the merged diff in the question.
func (a approver) approveMerge(ctx context.Context, who string, req engine.Approval) (engine.Decision, error) {
	params := &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning,
		Message: fmt.Sprintf("sightline: %s (session %s) sent a patch that no longer applies to %s; a three-way merge with the current text is clean. Apply this merge?\n\n%s",
			who, req.Session, req.Path, req.Detail),
		Actions: []protocol.MessageActionItem{{Title: applyMerge}, {Title: rejectMerge}},
	}
	cctx, cancel := context.WithTimeout(ctx, a.s.opts.ApprovalWait)
	defer cancel()
	var choice *protocol.MessageActionItem
	if _, err := a.s.conn.Call(cctx, "window/showMessageRequest", params, &choice); err != nil {
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return engine.Deny, fmt.Errorf("the editor's question went unanswered for %v", a.s.opts.ApprovalWait)
		}
		return engine.Deny, fmt.Errorf("the editor could not ask: %w", err)
	}
	if choice != nil && choice.Title == applyMerge {
		return engine.AllowOnce, nil
	}
	return engine.Deny, nil
}
