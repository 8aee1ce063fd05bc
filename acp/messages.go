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
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
)

// RefusedCode is the JSON-RPC error code of a message the proxy refused
// (in the server-error range, which ACP leaves to implementations).
const RefusedCode = -32001

// envelope is a JSON-RPC message as its receiver reads it: a request
// (method and id), a notification (method, no id) or an answer (id, no
// method). A member is nil when absent: the receivers tell a request from
// a notification by the id's presence, whatever its value.
type envelope struct {
	ID     jsontext.Value `json:"id"`
	Method *string        `json:"method"`
	Params jsontext.Value `json:"params"`
	Result jsontext.Value `json:"result"`
	Error  jsontext.Value `json:"error"`
}

// key is the message's id as a table key; "" for none (absent, or null).
func (m *envelope) key() string { return idKey(m.ID) }

// idKey is an id as a table key, compared as the receivers compare ids: a
// string by its text (escapes spelled out), a number by its value; "" for
// none. An agent cannot so name one pending request twice in two
// spellings.
func idKey(v jsontext.Value) string {
	v = bytes.TrimSpace(v)
	switch v.Kind() {
	case 0, 'n':
		return ""
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return "s" + s
		}
	case '0':
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return "n" + strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return "r" + string(v)
}

// Session is the ledger session of an ACP session of an agent not built
// on Claude Code.
func Session(sessionID string) string { return "acp-" + sessionID }

// hookSessions are the agents whose ACP session id is the one their own
// hooks are given, by a word of initialize's agentInfo.name, with the hook
// door's ledger session prefix (sightline hook NAME).
var hookSessions = []struct{ word, prefix string }{{"claude", "claude-"}, {"gemini", "gemini-"}}

// session is the ledger session of an ACP session: an agent with hooks of
// its own (Claude Code behind claude-agent-acp, Gemini CLI) shares the
// hook door's, so what its hooks and this door record is one ledger.
func (p *Proxy) session(sessionID string) string {
	if prefix := p.hookPrefix(); prefix != "" {
		return prefix + sessionID
	}
	return Session(sessionID)
}

// hookPrefix is the hook door's ledger session prefix of the agent, by
// initialize's agentInfo.name (claude-agent-acp, and Zed's claude-code-acp
// before it, run Claude Code); "" for an agent without hooks of its own.
func (p *Proxy) hookPrefix() string {
	p.mu.Lock()
	name := strings.ToLower(p.agent)
	p.mu.Unlock()
	for _, h := range hookSessions {
		if strings.Contains(name, h.word) {
			return h.prefix
		}
	}
	return ""
}

// judgedMethods are the agent's requests the editor carries out and the
// proxy judges first.
var judgedMethods = map[string]bool{
	"fs/read_text_file":          true,
	"fs/write_text_file":         true,
	"session/request_permission": true,
}

type agentReq struct {
	method  string
	session string
	path    string
	line    int    // fs/read_text_file's first line
	content string // fs/write_text_file's text
	exists  bool
	// shows: fs/read_text_file made for a read tool call of the agent's in
	// progress, whose answer the model is shown (else the agent reads for
	// its tool's own mechanics, as Gemini CLI's replace reads the whole file
	// to compute its edit: nothing of it was shown to the model).
	shows bool
}

type editorReq struct {
	method string
	file   string // session/new: where the session's name goes
}

// blank reports whether a line holds only JSON whitespace: no message,
// which receivers skip.
func blank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r\n")) == 0
}

// fromAgent handles a line the agent wrote, for the editor. Every line is
// decoded as the editor will read it (result.DecodeJudged); one that cannot
// be is refused, never forwarded, whatever it holds.
func (p *Proxy) fromAgent(ctx context.Context, line []byte) error {
	if blank(line) {
		return p.toEditor.write(line)
	}
	var m envelope
	if err := result.DecodeJudged(line, &m); err != nil {
		id, method := idIn(line)
		if method == "" {
			method = "a message"
		}
		return p.refuse(ctx, id, refusal{method: method,
			why: fmt.Sprintf("sightline refused %s: %v. Nothing reached the editor. Send one JSON object per line, each member once, names spelled as the protocol spells them.", method, err)})
	}
	if m.Method == nil {
		if id := m.key(); id != "" {
			p.answered(id, m.Result)
		}
		return p.toEditor.write(line)
	}
	switch method := *m.Method; {
	case judgedMethods[method]:
		return p.judge(ctx, line, &m, method)
	case method == "session/update":
		return p.sessionUpdate(ctx, line, m.Params)
	}
	return p.toEditor.write(line)
}

// judge handles a request the editor carries out: it reaches the editor
// only once sightline has judged it, else the agent gets the refusal.
func (p *Proxy) judge(ctx context.Context, line []byte, m *envelope, method string) error {
	if m.ID == nil {
		// A notification: the editor may act on it, and nobody can be
		// told it was refused.
		return p.refuse(ctx, nil, refusal{method: method,
			why: fmt.Sprintf("sightline refused %s sent without an id: it is answered only as a request.", method)})
	}
	if !p.isOpened() || p.o.Router.Root() == "" {
		return p.refuse(ctx, m.ID, refusal{method: method,
			why: fmt.Sprintf("sightline refused %s: the editor has not created or loaded a session yet, so the workspace is not known. Nothing reached the editor. Retry once the session is created.", method)})
	}
	if id := m.key(); id != "" && p.isPending(id) {
		return p.refuse(ctx, m.ID, refusal{method: method,
			why: fmt.Sprintf("sightline refused %s: its id %s is that of a request still awaiting the editor's answer. Nothing reached the editor. Retry with a new id.", method, m.ID)})
	}
	switch method {
	case "fs/read_text_file":
		return p.readRequest(ctx, line, m)
	case "fs/write_text_file":
		return p.writeRequest(ctx, line, m)
	default:
		return p.permissionRequest(ctx, line, m)
	}
}

// readRequest judges fs/read_text_file: the admission of a read, as
// sightline's own reads pass it. Allowed, the request goes on and its
// answer will be recorded.
func (p *Proxy) readRequest(ctx context.Context, line []byte, m *envelope) error {
	const method = "fs/read_text_file"
	var r struct {
		SessionID string  `json:"sessionId"`
		Path      string  `json:"path"`
		Line      *uint32 `json:"line"`
		Limit     *uint32 `json:"limit"`
	}
	if err := result.DecodeJudged(m.Params, &r); err != nil {
		return p.refuse(ctx, m.ID, shapeRefusal(method, "", "", err.Error()))
	}
	if r.SessionID == "" {
		return p.refuse(ctx, m.ID, shapeRefusal(method, "", r.Path, "params.sessionId is missing or empty, so whose reads these are is not known"))
	}
	if why := p.pathProblem(r.Path); why != "" {
		return p.refuse(ctx, m.ID, refusal{method: method, session: r.SessionID, path: r.Path, why: "sightline refused this read of " + r.Path + ": " + why})
	}
	cr, why := p.check(ctx, engine.CheckParams{Caller: p.caller(r.SessionID), Read: true, Tool: method}, r.Path)
	if why != "" {
		return p.toAgent.write(refusedAnswer(m.ID, why, cr, r.Path))
	}
	first := 1
	if r.Line != nil && *r.Line > 0 {
		first = int(*r.Line)
	}
	shows := p.readInProgress(r.SessionID, r.Path)
	p.pendAgent(m.key(), agentReq{method: method, session: r.SessionID, path: r.Path, line: first, shows: shows})
	return p.toEditor.write(line)
}

// writeRequest judges fs/write_text_file: the lines a diff with the
// current text changes, asked of the guard. A refusal is answered with
// the missing lines; nothing reaches the editor.
func (p *Proxy) writeRequest(ctx context.Context, line []byte, m *envelope) error {
	const method = "fs/write_text_file"
	var w struct {
		SessionID string  `json:"sessionId"`
		Path      string  `json:"path"`
		Content   *string `json:"content"`
	}
	if err := result.DecodeJudged(m.Params, &w); err != nil {
		return p.refuse(ctx, m.ID, shapeRefusal(method, "", "", err.Error()))
	}
	switch {
	case w.SessionID == "":
		return p.refuse(ctx, m.ID, shapeRefusal(method, "", w.Path, "params.sessionId is missing or empty, so whose reads the change is judged by is not known"))
	case w.Content == nil:
		return p.refuse(ctx, m.ID, shapeRefusal(method, w.SessionID, w.Path, "params.content is missing or null"))
	}
	if why := p.pathProblem(w.Path); why != "" {
		return p.refuse(ctx, m.ID, refusal{method: method, session: w.SessionID, path: w.Path, why: "sightline refused this change of " + w.Path + ": " + why})
	}
	cr, why := p.check(ctx, engine.CheckParams{Caller: p.caller(w.SessionID), Content: w.Content, Tool: method}, w.Path)
	if why != "" {
		return p.toAgent.write(refusedAnswer(m.ID, why, cr, w.Path))
	}
	p.pendAgent(m.key(), agentReq{method: method, session: w.SessionID, path: w.Path, content: *w.Content, exists: cr.Exists})
	return p.toEditor.write(line)
}

// shapeRefusal refuses a judged request whose params are not as ACP's
// schema shapes them: what the editor would make of it is not known.
func shapeRefusal(method, session, path, why string) refusal {
	return refusal{method: method, session: session, path: path,
		why: fmt.Sprintf("sightline refused %s: its params are not as the protocol shapes them (%s). Nothing reached the editor. Retry with sessionId, an absolute path and, for a write, content, each a string.", method, why)}
}

// pathProblem says why a path named by the agent cannot be judged as the
// editor will open it ("" when it can): the editor opens it as given, the
// system resolving each component in turn (a ".." after a symbolic link
// goes up from where the link led), while sightline names a document by
// its clean path; so only an absolute, clean path inside the workspace is
// judged.
func (p *Proxy) pathProblem(path string) string {
	root := p.o.Router.Root()
	native := filepath.FromSlash(path)
	switch {
	case path == "":
		return "the request names no path (params.path is missing or empty). Nothing reached the editor. Retry with the file's absolute path."
	case !filepath.IsAbs(native):
		return "the path is not absolute, and the editor would resolve it against a folder sightline does not know. Nothing reached the editor. Retry with the file's absolute path."
	case filepath.Clean(native) != native:
		return fmt.Sprintf("the path is not written plainly (%s is its plain form): a \".\" or \"..\" component, or a doubled or trailing separator, which the editor resolves through the file system (a \"..\" after a symbolic link goes up from where the link led). Nothing reached the editor. Retry with the file's plain absolute path.", filepath.Clean(native))
	case !within(root, native):
		return fmt.Sprintf("it is outside the workspace (%s); the agent reads and writes only the workspace's files through the editor here. Nothing reached the editor. Ask the user if you need it.", root)
	}
	return ""
}

// within reports whether a clean absolute path is root or under it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// refusal is a message the proxy refuses itself: the agent's method,
// session and path as far as they could be read, and the reason, which
// says what to do next.
type refusal struct {
	method, session, path, why string
}

// refuse answers a refused message (when it has an id) with an error the
// agent reads, and audits the refusal. Nothing of the message reaches the
// editor.
func (p *Proxy) refuse(ctx context.Context, id jsontext.Value, r refusal) error {
	p.audit(ctx, r)
	if id == nil {
		return nil
	}
	data := map[string]any{"sightline": map[string]any{"error": result.Unjudged, "path": r.path}}
	answer := encode(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id),
		"error": map[string]any{"code": RefusedCode, "message": r.why, "data": data}})
	if answer == nil {
		return nil
	}
	return p.toAgent.write(answer)
}

// audit records a refusal of the proxy's own as sightline/check's
// unjudged, once the workspace is known (before, there is no audit log to
// write to: standard error only).
func (p *Proxy) audit(ctx context.Context, r refusal) {
	p.logf("%s", r.why)
	if !p.isOpened() || p.o.Router.Root() == "" {
		return
	}
	cp := engine.CheckParams{Caller: p.callerOr(r.session), Tool: r.method, Unjudged: r.why}
	if filepath.IsAbs(r.path) && filepath.Clean(r.path) == r.path {
		cp.TextDocument = engine.TextDocument{URI: string(p.o.Router.Key(r.path))}
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.CallTimeout)
	defer cancel()
	if _, err := p.o.Router.Call(ctx, ops.Check, cp); err != nil {
		p.logf("auditing the refusal of %s: %v", r.method, err)
	}
}

// refusedAnswer is the error answering a request the check refused.
func refusedAnswer(id jsontext.Value, why string, cr engine.CheckResult, path string) []byte {
	kind := cr.Error
	if kind == "" {
		kind = result.Unjudged
	}
	data := map[string]any{"sightline": map[string]any{"error": kind, "path": path, "unread": cr.Unread, "stale": cr.Stale}}
	return encode(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id),
		"error": map[string]any{"code": RefusedCode, "message": why, "data": data}})
}

// idIn finds, in a message sightline could not decode (or whose first
// bytes only it read), the first id and method at its top level; the id
// only when it is a string or a number, which an answer can carry back.
func idIn(b []byte) (id jsontext.Value, method string) {
	d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, ""
	}
	for id == nil || method == "" {
		tok, err := d.ReadToken()
		if err != nil || tok.Kind() != '"' {
			break
		}
		name := tok.String()
		v, err := d.ReadValue()
		if err != nil {
			break
		}
		switch {
		case name == "id" && id == nil && (v.Kind() == '"' || v.Kind() == '0'):
			id = v.Clone()
		case name == "method" && method == "" && v.Kind() == '"':
			var s string
			if json.Unmarshal(v, &s) == nil && judgedMethods[s] {
				method = s // named only when it is one the proxy knows
			}
		}
	}
	return id, method
}

// fromEditor handles a line the editor wrote, for the agent. The editor is
// the trusted side: its lines pass, and only its sessions fix the
// workspace.
func (p *Proxy) fromEditor(ctx context.Context, line []byte) error {
	var m envelope
	if result.DecodeJudged(line, &m) != nil {
		return p.toAgent.write(line) // the agent answers it
	}
	id, method := m.key(), ""
	if m.Method != nil {
		method = *m.Method
	}
	switch {
	case (method == "session/new" || method == "session/load") && id != "":
		var sr struct {
			Cwd string `json:"cwd"`
		}
		if result.DecodeJudged(m.Params, &sr) == nil && filepath.IsAbs(sr.Cwd) {
			if p.o.OnSession != nil {
				p.o.OnSession(sr.Cwd)
			}
			p.open()
		}
		if changed, file := p.sessionParams(line, method, m.Params); changed != nil {
			if file != "" {
				p.pendEditor(id, editorReq{method: method, file: file})
			}
			return p.toAgent.write(changed)
		}
	case method == "initialize" && id != "":
		p.pendEditor(id, editorReq{method: method})
	case m.Method == nil && id != "":
		// Recorded before the answer reaches the agent, whose next request
		// (a write of what it read) comes on the other stream.
		p.editorAnswered(ctx, id, m.Result, m.Error)
	}
	return p.toAgent.write(line)
}

func (p *Proxy) open() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opened = true
}

func (p *Proxy) isOpened() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opened
}

func (p *Proxy) isPending(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.agentReqs[id]
	return ok
}

func (p *Proxy) pendAgent(id string, r agentReq) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id != "" && len(p.agentReqs) < maxPending {
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
func (p *Proxy) answered(id string, res jsontext.Value) {
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
		if result.DecodeJudged(res, &ir) == nil && ir.AgentInfo.Name != "" {
			p.mu.Lock()
			p.agent = ir.AgentInfo.Name
			p.mu.Unlock()
		}
	case "session/new":
		var nr struct {
			SessionID string `json:"sessionId"`
		}
		if result.DecodeJudged(res, &nr) == nil && nr.SessionID != "" && r.file != "" {
			if err := writeName(r.file, p.session(nr.SessionID)); err != nil {
				p.logf("naming the MCP server's session: %v", err)
			}
		}
	}
}

// writeName writes a session's name for the MCP server to read, whole.
func writeName(file, name string) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(name+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("naming %s: %w", file, err)
	}
	return nil
}

// editorAnswered handles the editor's answer to a request of the agent:
// what a read showed, what a write wrote, as the agent will read the
// answer.
func (p *Proxy) editorAnswered(ctx context.Context, id string, res, rpcErr jsontext.Value) {
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
		if !r.shows || result.DecodeJudged(res, &rr) != nil || rr.Content == nil {
			return
		}
		p.shown(ctx, r.session, r.path, judge.Numbered(r.line, judge.TextLines(*rr.Content)), nil, false, false, r.method)
	case "fs/write_text_file":
		p.shown(ctx, r.session, r.path, judge.Numbered(1, judge.TextLines(r.content)), nil, true, !r.exists, r.method)
	}
}

func (p *Proxy) caller(sessionID string) engine.Caller {
	p.mu.Lock()
	agent := p.agent
	p.mu.Unlock()
	return engine.Caller{Session: p.session(sessionID), Agent: agent}
}

// callerOr is caller, for a message whose session could not be read: the
// door's own name then.
func (p *Proxy) callerOr(sessionID string) engine.Caller {
	if sessionID == "" {
		p.mu.Lock()
		defer p.mu.Unlock()
		return engine.Caller{Session: "acp", Agent: p.agent}
	}
	return p.caller(sessionID)
}

// shown records lines the agent was shown, or wrote; it reports whether
// any line counted.
func (p *Proxy) shown(ctx context.Context, sessionID, path string, lines []engine.ShownLine, hunks []engine.CheckHunk, authored, created bool, tool string) (counted bool) {
	if sessionID == "" || !p.isOpened() || p.o.Router.Root() == "" || p.pathProblem(path) != "" {
		return false // nothing is recorded in a workspace the editor has not named
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.CallTimeout)
	defer cancel()
	sp := engine.ShownParams{Caller: p.caller(sessionID), TextDocument: engine.TextDocument{URI: string(p.o.Router.Key(path))},
		Lines: lines, Hunks: hunks, Authored: authored, Created: created, Tool: tool}
	res, err := p.o.Router.Call(ctx, ops.Shown, sp)
	if err != nil {
		p.logf("recording what %s showed of %s: %v", tool, path, err)
		return false
	}
	if o := ops.Shown.Outcome(res); !o.OK {
		p.logf("recording what %s showed of %s: %s: %s", tool, path, o.Error, o.Message)
		return false
	}
	r, _ := res.(engine.ShownResult)
	return len(r.Recorded) > 0
}

// check asks sightline/check; a refusal (unread or stale lines, what the
// admission refuses, or anything sightline could not judge, as judge.Ask
// reads it) comes back as the reason, "" when the request may proceed.
func (p *Proxy) check(ctx context.Context, cp engine.CheckParams, path string) (engine.CheckResult, string) {
	ctx, cancel := context.WithTimeout(ctx, p.o.CallTimeout)
	defer cancel()
	cr, refused, err := judge.Ask(ctx, p.o.Router, cp, path)
	if err != nil {
		p.logf("%v; it is refused", err)
	}
	return cr, refused
}

// encode writes a message the proxy makes itself, as one line; nil if it
// cannot.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return b.Bytes()
}

// sessionParams adds what the proxy gives a session to a session/new or
// session/load request: sightline's MCP server (withMCP), and for an agent
// built on Claude Code, sightline's hooks (withHooks). nil when nothing is
// added or the request cannot be read. file is where the session's name
// goes once the agent answers session/new.
func (p *Proxy) sessionParams(line []byte, method string, rawParams jsontext.Value) (changed []byte, file string) {
	var top, params map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil || json.Unmarshal(rawParams, &params) != nil || params == nil {
		return nil, ""
	}
	added := false
	if p.o.MCP != nil {
		file, added = p.withMCP(params, method, rawParams)
	}
	if p.o.ClaudeHooks != nil && p.hookPrefix() == "claude-" && p.withHooks(params) {
		added = true
	}
	if !added {
		return nil, ""
	}
	if top["params"] = encode(params); top["params"] == nil {
		return nil, ""
	}
	if changed = encode(top); changed == nil {
		return nil, ""
	}
	return changed, file
}

// withMCP adds sightline's MCP server to a session's params; false when it
// is there already, they cannot be read, or the workspace is not known
// (the server's root would be a guess).
func (p *Proxy) withMCP(params map[string]json.RawMessage, method string, rawParams jsontext.Value) (file string, added bool) {
	var servers []json.RawMessage
	if s, ok := params["mcpServers"]; ok && string(s) != "null" && json.Unmarshal(s, &servers) != nil {
		return "", false
	}
	for _, s := range servers {
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(s, &named) == nil && named.Name == p.o.MCP.Name {
			return "", false
		}
	}
	session := ""
	if method == "session/load" {
		var lr struct {
			SessionID string `json:"sessionId"`
		}
		if result.DecodeJudged(rawParams, &lr) != nil || lr.SessionID == "" {
			return "", false
		}
		session = p.session(lr.SessionID)
	} else {
		var token [12]byte
		if _, err := rand.Read(token[:]); err != nil {
			return "", false
		}
		file = filepath.Join(p.o.MCP.SessionDir, hex.EncodeToString(token[:]))
	}
	args := p.o.MCP.Args(session, file)
	if args == nil {
		p.warnOnce("mcp", "sightline's MCP server is not added: the workspace is not known (the session names no absolute cwd)")
		return "", false
	}
	ours, _ := json.Marshal(map[string]any{"name": p.o.MCP.Name, "command": p.o.MCP.Command, "args": args, "env": []any{}})
	params["mcpServers"], _ = json.Marshal(append(servers, ours))
	return file, true
}

// withHooks adds sightline's Claude Code hooks to the settings a session
// gives Claude Code (_meta.claudeCode.options.settings, an object), after
// the groups the editor gave there; false when the editor gave settings
// as a file's path (nothing to add to without reading the editor's file)
// or a part of the path is not an object.
func (p *Proxy) withHooks(params map[string]json.RawMessage) bool {
	type obj = map[string]json.RawMessage
	at := func(m obj, key string) (obj, bool) {
		v, ok := m[key]
		if !ok || string(v) == "null" {
			return obj{}, true
		}
		var o obj
		return o, json.Unmarshal(v, &o) == nil && o != nil
	}
	meta, ok1 := at(params, "_meta")
	claude, ok2 := at(meta, "claudeCode")
	options, ok3 := at(claude, "options")
	settings, ok4 := at(options, "settings")
	hooks, ok5 := at(settings, "hooks")
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		p.warnOnce("hooks", "sightline's Claude Code hooks are not added to the session: its _meta.claudeCode.options.settings is not an object (a settings file's path?); add `sightline hook install claude` to the project instead")
		return false
	}
	for event, groups := range p.o.ClaudeHooks {
		var have []json.RawMessage
		if v, ok := hooks[event]; ok && string(v) != "null" && json.Unmarshal(v, &have) != nil {
			p.warnOnce("hooks", "sightline's Claude Code hooks are not added to the session: its settings' hooks."+event+" is not a list")
			return false
		}
		for _, g := range groups {
			b, err := json.Marshal(g)
			if err != nil {
				return false
			}
			have = append(have, b)
		}
		hooks[event], _ = json.Marshal(have)
	}
	settings["hooks"], _ = json.Marshal(hooks)
	options["settings"], _ = json.Marshal(settings)
	claude["options"], _ = json.Marshal(options)
	meta["claudeCode"], _ = json.Marshal(claude)
	params["_meta"], _ = json.Marshal(meta)
	return true
}
