package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
)

// toolCall is what the proxy knows of a tool call in progress: ACP sends
// a tool call's fields once and updates them later, each field replaced
// whole.
type toolCall struct {
	kind, status, title string
	content             []toolContent
	locations           []location
}

// toolContent is an item of a tool call's content: a diff (path, oldText,
// newText) or a content block; other types are kept by their type alone.
type toolContent struct {
	Type    string `json:"type"`
	Content *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText *string `json:"newText"`
}

type location struct {
	Path string `json:"path"`
	Line *int   `json:"line"`
}

// toolCallFields are a tool_call's, a tool_call_update's, or a permission
// request's toolCall: a field absent (or null) is left as it was. Content
// and locations are decoded whole, as the editor reads them (a list whose
// item cannot be read is refused, not read in part).
type toolCallFields struct {
	ToolCallID string         `json:"toolCallId"`
	Kind       *string        `json:"kind"`
	Status     *string        `json:"status"`
	Title      *string        `json:"title"`
	Content    *[]toolContent `json:"content"`
	Locations  *[]location    `json:"locations"`
}

// merge applies fields to the tool call of a session, creating it; fresh
// starts it anew (a tool_call). It returns a copy of the result.
func (p *Proxy) merge(sessionID string, f toolCallFields, fresh bool) toolCall {
	k := sessionID + "\x00" + f.ToolCallID
	p.mu.Lock()
	defer p.mu.Unlock()
	tc := p.calls[k]
	if tc == nil || fresh {
		if tc == nil && len(p.calls) >= maxPending {
			for old := range p.calls {
				delete(p.calls, old) // one, any: a call never completed
				break
			}
		}
		tc = &toolCall{}
		p.calls[k] = tc
	}
	if f.Kind != nil {
		tc.kind = *f.Kind
	}
	if f.Status != nil {
		tc.status = *f.Status
	}
	if f.Title != nil {
		tc.title = *f.Title
	}
	if f.Content != nil {
		tc.content = *f.Content
	}
	if f.Locations != nil {
		tc.locations = *f.Locations
	}
	out := *tc
	if tc.status == "completed" || tc.status == "failed" {
		delete(p.calls, k)
	}
	return out
}

// readInProgress reports whether a read tool call of the session is in
// progress (announced, not completed or failed) that names path among its
// locations, or names none: a read the agent asks the editor for then
// serves that tool, whose result the model is shown. ACP agents announce a
// tool call before they run it; an edit tool that reads the file to compute
// its change announces itself only with its permission request, after.
func (p *Proxy) readInProgress(sessionID, path string) bool {
	prefix := sessionID + "\x00"
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, tc := range p.calls {
		if !strings.HasPrefix(k, prefix) || tc.kind != "read" {
			continue
		}
		if len(tc.locations) == 0 || slices.ContainsFunc(tc.locations, func(l location) bool { return l.Path == path }) {
			return true
		}
	}
	return false
}

func present(raw jsontext.Value) bool { return len(raw) > 0 && string(raw) != "null" }

// sessionUpdate forwards a session/update and follows its tool calls: a
// completed read records what its content showed, a completed edit the
// lines its diffs wrote. A tool call's fields are what a later permission
// request is judged by, so an update that cannot be read exactly as the
// editor reads it is refused (a notification: nobody is answered) rather
// than forwarded for the editor to show what sightline did not see.
func (p *Proxy) sessionUpdate(ctx context.Context, line []byte, params jsontext.Value) error {
	var kind struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
		} `json:"update"`
	}
	if err := result.DecodeJudged(params, &kind); err != nil {
		return p.refuse(ctx, nil, refusal{method: "session/update",
			why: fmt.Sprintf("sightline refused a session/update: its params are not as the protocol shapes them (%v)", err)})
	}
	switch kind.Update.SessionUpdate {
	case "tool_call", "tool_call_update":
	default:
		return p.toEditor.write(line) // message chunks, plans, modes: nothing to follow
	}
	var n struct {
		SessionID string         `json:"sessionId"`
		Update    toolCallFields `json:"update"`
	}
	err := result.DecodeJudged(params, &n)
	switch {
	case err != nil:
	case n.SessionID == "":
		err = fmt.Errorf("params.sessionId is missing or empty")
	case n.Update.ToolCallID == "":
		err = fmt.Errorf("update.toolCallId is missing or empty")
	}
	if err != nil {
		return p.refuse(ctx, nil, refusal{method: "session/update", session: n.SessionID,
			why: fmt.Sprintf("sightline refused a session/update %s: it is not as the protocol shapes it (%v)", kind.Update.SessionUpdate, err)})
	}
	tc := p.merge(n.SessionID, n.Update, kind.Update.SessionUpdate == "tool_call")
	if err := p.toEditor.write(line); err != nil {
		return err
	}
	// Recorded after it is forwarded: the agent's next request comes on
	// this same stream, after the record.
	if tc.status != "completed" {
		return nil
	}
	switch tc.kind {
	case "read":
		p.readShown(ctx, n.SessionID, tc)
	default:
		for _, c := range tc.content {
			if c.Type != "diff" || c.NewText == nil {
				continue
			}
			if c.OldText == nil {
				p.shown(ctx, n.SessionID, c.Path, judge.Numbered(1, judge.TextLines(*c.NewText)), nil, true, false, "tool call "+tc.kind)
				continue
			}
			h := engine.CheckHunk{Old: strings.Split(*c.OldText, "\n"), New: strings.Split(*c.NewText, "\n")}
			p.shown(ctx, n.SessionID, c.Path, nil, []engine.CheckHunk{h}, true, false, "tool call "+tc.kind)
		}
	}
	return nil
}

// readShown records what a completed read tool call showed: the text of
// its content, numbered as it numbers its lines itself (cat -n, as Claude's
// Read shows them) or from its location's line. Only lines whose text is
// the file's current line count (sightline/shown checks).
func (p *Proxy) readShown(ctx context.Context, sessionID string, tc toolCall) {
	path, first := "", 1
	for _, l := range tc.locations {
		if path != "" && l.Path != path {
			return // several files: which lines are whose is not said
		}
		path = l.Path
		if l.Line != nil && *l.Line > 0 {
			first = *l.Line
		}
	}
	var lines []engine.ShownLine
	for _, c := range tc.content {
		if c.Type == "content" && c.Content != nil && c.Content.Type == "text" {
			lines = append(lines, shownText(c.Content.Text, first)...)
		}
	}
	judged := p.isOpened() && p.o.Router.Root() != "" && path != "" && p.pathProblem(path) == ""
	if len(lines) > 0 && !p.shown(ctx, sessionID, path, lines, nil, false, false, "tool call read") && judged {
		p.blindRead(sessionID, path)
	}
}

// blindRead tells the editor, once a session, that a read tool call of the
// agent's showed no line sightline can count: the agent read the file
// itself and reported no text of it (Gemini CLI's read_file reports "Read
// lines 1-20 of 61"), so edits of those lines are refused here. The
// agent's own hooks see what its tools show.
func (p *Proxy) blindRead(sessionID, path string) {
	p.mu.Lock()
	seen := p.warned["blind "+sessionID]
	p.warned["blind "+sessionID] = true
	p.mu.Unlock()
	if seen {
		return
	}
	agent := strings.TrimSuffix(p.hookPrefix(), "-")
	if agent == "" {
		agent = "AGENT"
	}
	text := fmt.Sprintf("sightline cannot see what this agent's reads show: its read of %s reported no text of the file, so nothing of it counts as read, and its edits of lines read that way are refused. Install the agent's own hooks (sightline hook install %s) so that its reads count.", path, agent)
	if note := encode(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": sessionID,
		"update":    map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": "\n" + text + "\n"}},
	}}); note != nil {
		_ = p.toEditor.write(note)
	}
	p.logf("%s", text)
}

var (
	fence    = regexp.MustCompile("^(```|~~~)")
	catNLine = regexp.MustCompile(`^\s*(\d+)(?:\t|→)(.*)$`)
)

// shownText turns a read's text into numbered lines: a Markdown fence
// around it is dropped; lines numbered as cat -n numbers them keep their
// numbers (the others are not lines of the file); else they count from
// first.
func shownText(text string, first int) []engine.ShownLine {
	ls := judge.TextLines(text)
	if len(ls) >= 2 && fence.MatchString(ls[0]) && fence.MatchString(ls[len(ls)-1]) {
		ls = ls[1 : len(ls)-1]
	}
	if len(ls) > 0 && catNLine.MatchString(ls[0]) {
		var out []engine.ShownLine
		for _, l := range ls {
			if m := catNLine.FindStringSubmatch(l); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil {
					out = append(out, engine.ShownLine{Line: n, Text: strings.TrimSuffix(m[2], "\r")})
				}
			}
		}
		return out
	}
	return judge.Numbered(first, ls)
}

// permissionRequest judges the diffs of an edit whose permission the
// agent requests. A refusal is answered by the proxy: the agent gets an
// error saying why, the editor a message saying why; nothing is asked of
// the user. Otherwise the request goes on.
func (p *Proxy) permissionRequest(ctx context.Context, line []byte, m *envelope) error {
	const method = "session/request_permission"
	var r struct {
		SessionID string          `json:"sessionId"`
		ToolCall  *toolCallFields `json:"toolCall"`
		Options   []struct {
			OptionID jsontext.Value `json:"optionId"`
			Kind     string         `json:"kind"`
		} `json:"options"`
	}
	err := result.DecodeJudged(m.Params, &r)
	switch {
	case err != nil:
	case r.SessionID == "":
		err = fmt.Errorf("params.sessionId is missing or empty")
	case r.ToolCall == nil || r.ToolCall.ToolCallID == "":
		err = fmt.Errorf("params.toolCall.toolCallId is missing or empty")
	}
	if err != nil {
		return p.refuse(ctx, m.ID, refusal{method: method, session: r.SessionID,
			why: fmt.Sprintf("sightline refused this permission request: it is not as the protocol shapes it (%v). Nothing was asked of the user. Retry with sessionId, the toolCall's toolCallId and its diffs as the protocol shapes them.", err)})
	}
	tc := p.merge(r.SessionID, *r.ToolCall, false)
	var why []string
	var refusals []map[string]any
	for _, c := range tc.content {
		if c.Type != "diff" {
			continue
		}
		unjudged := ""
		switch problem := p.pathProblem(c.Path); {
		case c.NewText == nil:
			unjudged = "sightline rejected this edit of " + c.Path + ": a diff without newText, so what it changes is not known."
		case problem != "":
			unjudged = "sightline rejected this edit of " + c.Path + ": " + problem
		}
		if unjudged != "" {
			p.audit(ctx, refusal{method: method, session: r.SessionID, path: c.Path, why: unjudged})
			why = append(why, unjudged)
			refusals = append(refusals, map[string]any{"error": result.Unjudged, "path": c.Path})
			continue
		}
		cp := engine.CheckParams{Caller: p.caller(r.SessionID), NoExpand: true, Tool: method}
		if c.OldText != nil && *c.OldText != "" {
			cp.Old = []engine.OldText{{Text: *c.OldText, New: c.NewText}}
		} else {
			cp.Content = c.NewText
		}
		cr, refused := p.check(ctx, cp, c.Path)
		if refused == "" {
			continue
		}
		why = append(why, rejection(cr, c.Path, refused))
		refusals = append(refusals, map[string]any{"error": cr.Error, "path": c.Path, "unread": cr.Unread, "stale": cr.Stale})
	}
	if len(why) == 0 {
		return p.toEditor.write(line)
	}
	// Answered with an error, not the reject option: an agent tells its
	// model that the user refused (claude-agent-acp: "User refused
	// permission to run tool", whatever the answer's _meta says), while
	// an error's message reaches the model ("Tool permission request
	// failed: Error: " and the message), saying which lines to read.
	text := strings.Join(why, "\n")
	answer := encode(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.ID), "error": map[string]any{
		"code": RefusedCode, "message": text, "data": map[string]any{"sightline": map[string]any{"reason": text, "refusals": refusals}}}})
	note := encode(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": r.SessionID,
		"update": map[string]any{"sessionUpdate": "agent_message_chunk",
			"content": map[string]any{"type": "text", "text": "\n" + text + "\n"}},
	}})
	if answer == nil || note == nil {
		return nil
	}
	if err := p.toAgent.write(answer); err != nil {
		return err
	}
	return p.toEditor.write(note)
}

// rejection says why an edit was rejected at its permission step: the
// lines, and that they must be read (they are not handed over: not every
// agent shows its model the answer's words, and a line counts as read only
// when it was shown).
func rejection(cr engine.CheckResult, path, refused string) string {
	if cr.Error != result.UnreadRange && cr.Error != result.StaleRange {
		return refused
	}
	var b strings.Builder
	b.WriteString("sightline rejected this edit of " + path + ":")
	for _, r := range cr.Unread {
		fmt.Fprintf(&b, " %s %s never shown to the agent.", r.Word(), r.Was())
	}
	for _, r := range cr.Stale {
		fmt.Fprintf(&b, " %s changed since the agent read %s.", r.Word(), r.It())
	}
	var missing ledger.RangeSet
	missing.AddAll(cr.Unread)
	missing.AddAll(cr.Stale)
	fmt.Fprintf(&b, " Read lines %s, then retry the edit.", ledger.List(missing.Ranges()))
	return b.String()
}
