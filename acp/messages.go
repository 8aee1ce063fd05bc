package acp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/hook"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
)

// RefusedCode is the JSON-RPC error code of a write the guard refused (in
// the server-error range, which ACP leaves to implementations).
const RefusedCode = -32001

// message is a JSON-RPC message: a request (method and id), a notification
// (method, no id) or an answer (id, result or error).
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// key is the message's id as a table key; "" for none.
func (m *message) key() string {
	if len(m.ID) == 0 || string(m.ID) == "null" {
		return ""
	}
	return string(m.ID)
}

// Session is the ledger session of an ACP session.
func Session(sessionID string) string { return "acp-" + sessionID }

type agentReq struct {
	method  string
	session string
	path    string
	line    int    // fs/read_text_file's first line
	content string // fs/write_text_file's text
	exists  bool
}

type editorReq struct {
	method string
	file   string // session/new: where the session's name goes
}

// fromAgent handles a line the agent wrote, for the editor.
func (p *Proxy) fromAgent(ctx context.Context, line []byte) error {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return p.toEditor.write(line) // not ours to judge: the editor answers it
	}
	id := m.key()
	switch {
	case m.Method == "fs/read_text_file" && id != "":
		var r struct {
			SessionID string `json:"sessionId"`
			Path      string `json:"path"`
			Line      *int   `json:"line"`
		}
		if json.Unmarshal(m.Params, &r) == nil && filepath.IsAbs(r.Path) {
			first := 1
			if r.Line != nil && *r.Line > 0 {
				first = *r.Line
			}
			p.pendAgent(id, agentReq{method: m.Method, session: r.SessionID, path: r.Path, line: first})
		}
	case m.Method == "fs/write_text_file" && id != "":
		var w struct {
			SessionID string  `json:"sessionId"`
			Path      string  `json:"path"`
			Content   *string `json:"content"`
		}
		if json.Unmarshal(m.Params, &w) == nil && filepath.IsAbs(w.Path) && w.Content != nil {
			refused, exists := p.checkWrite(ctx, w.SessionID, w.Path, *w.Content)
			if refused != nil {
				if answer := refused(m.ID); answer != nil {
					return p.toAgent.write(answer)
				}
			}
			p.pendAgent(id, agentReq{method: m.Method, session: w.SessionID, path: w.Path, content: *w.Content, exists: exists})
		}
	case m.Method == "session/request_permission" && id != "":
		if answer, note := p.checkPermission(ctx, m); answer != nil {
			if err := p.toAgent.write(answer); err != nil {
				return err
			}
			return p.toEditor.write(note)
		}
	case m.Method == "session/update":
		if err := p.toEditor.write(line); err != nil {
			return err
		}
		// Recorded after it is forwarded: the agent's next request comes
		// on this same stream, after the record.
		p.sessionUpdate(ctx, m.Params)
		return nil
	case m.Method == "" && id != "":
		p.answered(id, m.Result)
	}
	return p.toEditor.write(line)
}

// fromEditor handles a line the editor wrote, for the agent.
func (p *Proxy) fromEditor(ctx context.Context, line []byte) error {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return p.toAgent.write(line)
	}
	id := m.key()
	switch {
	case m.Method == "initialize" && id != "":
		p.pendEditor(id, editorReq{method: m.Method})
	case (m.Method == "session/new" || m.Method == "session/load") && id != "":
		if p.o.OnSession != nil {
			var sr struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal(m.Params, &sr) == nil && filepath.IsAbs(sr.Cwd) {
				p.o.OnSession(sr.Cwd)
			}
		}
		if p.o.MCP == nil {
			break
		}
		if changed, file := p.withMCP(line, m); changed != nil {
			if file != "" {
				p.pendEditor(id, editorReq{method: m.Method, file: file})
			}
			return p.toAgent.write(changed)
		}
	case m.Method == "" && id != "":
		// Recorded before the answer reaches the agent, whose next request
		// (a write of what it read) comes on the other stream.
		p.editorAnswered(ctx, id, m.Result, m.Error)
	}
	return p.toAgent.write(line)
}

func (p *Proxy) pendAgent(id string, r agentReq) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.agentReqs) < maxPending {
		p.agentReqs[id] = r
	}
}

func (p *Proxy) pendEditor(id string, r editorReq) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.editorReqs) < maxPending {
		p.editorReqs[id] = r
	}
}

// answered handles the agent's answer to a request of the editor.
func (p *Proxy) answered(id string, res json.RawMessage) {
	p.mu.Lock()
	r, ok := p.editorReqs[id]
	delete(p.editorReqs, id)
	p.mu.Unlock()
	if !ok || len(res) == 0 {
		return
	}
	switch r.method {
	case "initialize":
		var ir struct {
			AgentInfo struct {
				Name string `json:"name"`
			} `json:"agentInfo"`
		}
		if json.Unmarshal(res, &ir) == nil && ir.AgentInfo.Name != "" {
			p.mu.Lock()
			p.agent = ir.AgentInfo.Name
			p.mu.Unlock()
		}
	case "session/new":
		var nr struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(res, &nr) == nil && nr.SessionID != "" && r.file != "" {
			if err := writeName(r.file, Session(nr.SessionID)); err != nil {
				p.logf("naming the MCP server's session: %v", err)
			}
		}
	}
}

// writeName writes a session's name for the MCP server to read, whole.
func writeName(file, name string) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(name+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// editorAnswered handles the editor's answer to a request of the agent:
// what a read showed, what a write wrote.
func (p *Proxy) editorAnswered(ctx context.Context, id string, res, rpcErr json.RawMessage) {
	p.mu.Lock()
	r, ok := p.agentReqs[id]
	delete(p.agentReqs, id)
	p.mu.Unlock()
	if !ok || present(rpcErr) {
		return
	}
	switch r.method {
	case "fs/read_text_file":
		var rr struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(res, &rr) != nil || rr.Content == nil {
			return
		}
		p.shown(ctx, r.session, r.path, hook.Numbered(r.line, hook.TextLines(*rr.Content)), nil, false, false, r.method)
	case "fs/write_text_file":
		p.shown(ctx, r.session, r.path, hook.Numbered(1, hook.TextLines(r.content)), nil, true, !r.exists, r.method)
	}
}

func (p *Proxy) caller(sessionID string) engine.Caller {
	p.mu.Lock()
	defer p.mu.Unlock()
	return engine.Caller{Session: Session(sessionID), Agent: p.agent}
}

// shown records lines the agent was shown, or wrote.
func (p *Proxy) shown(ctx context.Context, sessionID, path string, lines []engine.ShownLine, hunks []engine.CheckHunk, authored, created bool, tool string) {
	if sessionID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.CallTimeout)
	defer cancel()
	sp := engine.ShownParams{Caller: p.caller(sessionID), TextDocument: engine.TextDocument{URI: string(p.o.Runner.Key(path))},
		Lines: lines, Hunks: hunks, Authored: authored, Created: created, Tool: tool}
	res, err := p.o.Runner.Call(ctx, ops.Shown.Op, sp)
	if err != nil {
		p.logf("recording what %s showed of %s: %v", tool, path, err)
		return
	}
	if o := ops.Shown.Outcome(res); !o.OK {
		p.logf("recording what %s showed of %s: %s: %s", tool, path, o.Error, o.Message)
	}
}

// check asks the guard; a refusal (unread or stale lines, a write the
// admission refuses, or anything sightline could not judge, as hook.Judge
// reads it) comes back as the reason, "" when the change may proceed.
func (p *Proxy) check(ctx context.Context, cp engine.CheckParams, path string) (engine.CheckResult, string) {
	ctx, cancel := context.WithTimeout(ctx, p.o.CallTimeout)
	defer cancel()
	cp.TextDocument = engine.TextDocument{URI: string(p.o.Runner.Key(path))}
	res, err := p.o.Runner.Call(ctx, ops.Check.Op, cp)
	if err != nil {
		p.logf("checking %s's change of %s: %v; it is refused", cp.Tool, path, err)
		return engine.CheckResult{}, hook.CannotJudge(path, err.Error())
	}
	cr, isCheck := res.(engine.CheckResult)
	if !isCheck {
		p.logf("checking %s's change of %s: an answer of type %T; it is refused", cp.Tool, path, res)
		return engine.CheckResult{}, hook.CannotJudge(path, fmt.Sprintf("an answer of type %T", res))
	}
	return cr, hook.Judge(cr, path)
}

// checkWrite asks the guard about a whole-file write: the lines a diff
// with the current text changes. A refusal is the error to answer the
// agent with (nothing reaches the editor); exists says the file was there
// (or that it is not known not to be).
func (p *Proxy) checkWrite(ctx context.Context, sessionID, path, content string) (refused func(id json.RawMessage) []byte, exists bool) {
	if sessionID == "" {
		return nil, false
	}
	cr, why := p.check(ctx, engine.CheckParams{Caller: p.caller(sessionID), Content: &content, Tool: "fs/write_text_file"}, path)
	if why == "" {
		return nil, cr.Exists
	}
	data := map[string]any{"sightline": map[string]any{"error": cr.Error, "path": path, "unread": cr.Unread, "stale": cr.Stale}}
	return func(id json.RawMessage) []byte {
		return encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": RefusedCode, "message": why, "data": data}})
	}, true
}

// encode writes a message the proxy makes itself, as one line; nil if it
// cannot (the caller then forwards the message as it came).
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return b.Bytes()
}

// withMCP adds sightline's MCP server to a session/new or session/load
// request; nil when it is there already or the request cannot be read.
// file is where the session's name goes once the agent answers
// session/new.
func (p *Proxy) withMCP(line []byte, m message) (changed []byte, file string) {
	var top, params map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil || json.Unmarshal(m.Params, &params) != nil || params == nil {
		return nil, ""
	}
	var servers []json.RawMessage
	if s, ok := params["mcpServers"]; ok && string(s) != "null" && json.Unmarshal(s, &servers) != nil {
		return nil, ""
	}
	for _, s := range servers {
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(s, &named) == nil && named.Name == p.o.MCP.Name {
			return nil, ""
		}
	}
	session := ""
	if m.Method == "session/load" {
		var lr struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &lr) != nil || lr.SessionID == "" {
			return nil, ""
		}
		session = Session(lr.SessionID)
	} else {
		var token [12]byte
		if _, err := rand.Read(token[:]); err != nil {
			return nil, ""
		}
		file = filepath.Join(p.o.MCP.SessionDir, hex.EncodeToString(token[:]))
	}
	args := p.o.MCP.Args(session, file)
	if args == nil {
		args = []string{}
	}
	ours, _ := json.Marshal(map[string]any{"name": p.o.MCP.Name, "command": p.o.MCP.Command, "args": args, "env": []any{}})
	params["mcpServers"], _ = json.Marshal(append(servers, ours))
	if top["params"] = encode(params); top["params"] == nil {
		return nil, ""
	}
	if changed = encode(top); changed == nil {
		return nil, ""
	}
	return changed, file
}

// toolCall is what the proxy knows of a tool call in progress: ACP sends
// a tool call's fields once and updates them later, each field replaced
// whole.
type toolCall struct {
	kind, status, title string
	content             []toolContent
	locations           []location
}

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
// request's toolCall: a field absent (or null) is left as it was.
type toolCallFields struct {
	ToolCallID string          `json:"toolCallId"`
	Kind       *string         `json:"kind"`
	Status     *string         `json:"status"`
	Title      *string         `json:"title"`
	Content    json.RawMessage `json:"content"`
	Locations  json.RawMessage `json:"locations"`
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
	if present(f.Content) {
		tc.content = items[toolContent](f.Content)
	}
	if present(f.Locations) {
		tc.locations = items[location](f.Locations)
	}
	out := *tc
	if tc.status == "completed" || tc.status == "failed" {
		delete(p.calls, k)
	}
	return out
}

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// items decodes a list, skipping the items it cannot read (as ACP's
// schema says a receiver does).
func items[T any](raw json.RawMessage) []T {
	var all []json.RawMessage
	if json.Unmarshal(raw, &all) != nil {
		return nil
	}
	out := make([]T, 0, len(all))
	for _, r := range all {
		var v T
		if json.Unmarshal(r, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// sessionUpdate follows the tool calls: a completed read records what its
// content showed, a completed edit the lines its diffs wrote.
func (p *Proxy) sessionUpdate(ctx context.Context, params json.RawMessage) {
	if !bytes.Contains(params, []byte(`"tool_call`)) {
		return // message chunks, plans, modes: nothing to record
	}
	var n struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string `json:"sessionUpdate"`
			toolCallFields
		} `json:"update"`
	}
	if json.Unmarshal(params, &n) != nil || n.SessionID == "" || n.Update.ToolCallID == "" {
		return
	}
	switch n.Update.SessionUpdate {
	case "tool_call", "tool_call_update":
	default:
		return
	}
	tc := p.merge(n.SessionID, n.Update.toolCallFields, n.Update.SessionUpdate == "tool_call")
	if tc.status != "completed" {
		return
	}
	switch tc.kind {
	case "read":
		p.readShown(ctx, n.SessionID, tc)
	default:
		for _, c := range tc.content {
			if c.Type != "diff" || !filepath.IsAbs(c.Path) || c.NewText == nil {
				continue
			}
			if c.OldText == nil {
				p.shown(ctx, n.SessionID, c.Path, hook.Numbered(1, hook.TextLines(*c.NewText)), nil, true, false, "tool call "+tc.kind)
				continue
			}
			h := engine.CheckHunk{Old: strings.Split(*c.OldText, "\n"), New: strings.Split(*c.NewText, "\n")}
			p.shown(ctx, n.SessionID, c.Path, nil, []engine.CheckHunk{h}, true, false, "tool call "+tc.kind)
		}
	}
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
	if !filepath.IsAbs(path) {
		return
	}
	var lines []engine.ShownLine
	for _, c := range tc.content {
		if c.Type == "content" && c.Content != nil && c.Content.Type == "text" {
			lines = append(lines, shownText(c.Content.Text, first)...)
		}
	}
	if len(lines) > 0 {
		p.shown(ctx, sessionID, path, lines, nil, false, false, "tool call read")
	}
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
	ls := hook.TextLines(text)
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
	return hook.Numbered(first, ls)
}

// checkPermission asks the guard about the diffs of an edit whose
// permission the agent requests. A refusal is answered by the proxy: the
// agent gets the reject option, the editor a message saying why; nothing
// is asked of the user. Otherwise both are nil and the request goes on.
func (p *Proxy) checkPermission(ctx context.Context, m message) (answer, note []byte) {
	var r struct {
		SessionID string         `json:"sessionId"`
		ToolCall  toolCallFields `json:"toolCall"`
		Options   []struct {
			OptionID json.RawMessage `json:"optionId"`
			Kind     string          `json:"kind"`
		} `json:"options"`
	}
	if json.Unmarshal(m.Params, &r) != nil || r.SessionID == "" || r.ToolCall.ToolCallID == "" {
		return nil, nil
	}
	tc := p.merge(r.SessionID, r.ToolCall, false)
	var why []string
	var refusals []map[string]any
	for _, c := range tc.content {
		if c.Type != "diff" || !filepath.IsAbs(c.Path) || c.NewText == nil {
			continue
		}
		cp := engine.CheckParams{Caller: p.caller(r.SessionID), NoExpand: true, Tool: "session/request_permission"}
		switch {
		case c.OldText != nil && *c.OldText != "":
			cp.Old = []engine.OldText{{Text: *c.OldText, New: c.NewText}}
		case *c.NewText == "":
			continue // no text either side: nothing to judge
		default:
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
		return nil, nil
	}
	var reject json.RawMessage
	for _, kind := range []string{"reject_once", "reject_always"} {
		for _, o := range r.Options {
			if o.Kind == kind && reject == nil {
				reject = o.OptionID
			}
		}
	}
	text := strings.Join(why, "\n")
	if reject == nil {
		p.logf("%s; the permission request offers no reject option, so it goes to the editor", text)
		return nil, nil
	}
	answer = encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
		"outcome": map[string]any{"outcome": "selected", "optionId": reject},
		"_meta":   map[string]any{"sightline": map[string]any{"reason": text, "refusals": refusals}},
	}})
	note = encode(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{
		"sessionId": r.SessionID,
		"update": map[string]any{"sessionUpdate": "agent_message_chunk",
			"content": map[string]any{"type": "text", "text": "\n" + text + "\n"}},
	}})
	if answer == nil || note == nil {
		return nil, nil
	}
	return answer, note
}

// rejection says why an edit was rejected at its permission step: the
// lines, and that the agent must read them (they are not handed over: the
// permission answer cannot carry them to the model).
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
	fmt.Fprintf(&b, " Ask it to read lines %s, then retry the edit.", ledger.List(missing.Ranges()))
	return b.String()
}
