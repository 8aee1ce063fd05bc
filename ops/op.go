// Package ops is the operation table: every agent-facing operation declared
// once, in a file of its own (its params and result types, its run over the
// engine, its text for agents, its agent tool), and the one envelope that
// every door serves it through. The doors are derived from the table: the
// language server and the bridge serve its methods, package route routes
// its calls, the MCP server registers its tools, and the editors' agent
// tools are those of the tools.json files generated from it (ToolsJSON),
// which call the methods with the tools' arguments (ToolCall).
//
// Adding an agent-facing operation with an agent tool touches: the
// engine's feature and its test; the operation's file here (its tool's
// Example is the call the doors' table tests make) and its line in Table;
// its section in docs/protocol.md (and its row in the tools table there,
// and in the README's list of tools). The CLI derives a command from the
// tool (cmd/sightline's toolCommands) unless it has one of its own. Then
// `go generate ./ops` and, in editors/vscode, `npm run tools` write what
// the editors derive (their tools.json, package.json's
// languageModelTools); TestToolsJSON and the extension's unit tests fail
// while those are stale. An operation without a tool needs a row in each
// table test (server/ and cmd/sightline/, which fail without one) and a
// command of its own.
package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// Call is what an operation runs over: the engine, and what its door lends
// it.
type Call struct {
	Env *engine.Env
	// Disk is a call run by a process of its own over the files (the CLI,
	// sightline mcp) rather than by a language server, whose memory is live.
	Disk bool
	// Shower shows a document in the editor; nil: no editor to show it.
	Shower engine.Shower
	// Touched receives the documents whose ledger changed without a call
	// about them (a reset), so the editor's coverage follows.
	Touched func([]workspace.Key)
	// Approver answers the call's approval requests in place of the
	// engine's own when OwnApprover is set: a daemon's call is approved by
	// the process that made it, and nil (it cannot be asked) refuses them,
	// as in that process.
	Approver    engine.Approver
	OwnApprover bool
	// Progress, when set, is told how far a long call has come: a daemon
	// forwards it to the process that made the call.
	Progress engine.Progress
}

// context is the context a call runs in: its approver's, when its own,
// and its progress report, when it has one.
func (c *Call) context(ctx context.Context) context.Context {
	if c.OwnApprover {
		ctx = engine.WithApprover(ctx, c.Approver)
	}
	if c.Progress != nil {
		ctx = engine.WithProgress(ctx, c.Progress)
	}
	return ctx
}

// Op is one operation of the table as the doors hold it, its params and
// results untyped: a door finds it in the table (Table, Lookup) or names
// its declaration (ops.Edit) and calls it through these methods. Its one
// implementation is the declaration itself, *Def, whose methods call the
// operation's own functions: from a door's call, the implementation is
// the operation's code.
type Op interface {
	// Method is the LSP method (sightline/read).
	Method() string
	// Tool is the operation's agent tool (MCP); nil: no tool.
	Tool() *Tool
	// Params decodes JSON params into the operation's params type.
	Params(raw json.RawMessage) (any, error)
	// Run runs a call of params p in the envelope (Def.Run).
	Run(ctx context.Context, c *Call, p any) (any, error)
	// ServeApart runs a call from its JSON params (the operation's own or
	// a ToolCall) and answers its JSON result: the hosts' door. When apart
	// (its caller reads attachments), a result's long text comes apart
	// from its JSON (result.MarshalApart), else text is "".
	ServeApart(ctx context.Context, c *Call, raw json.RawMessage, apart bool) (b []byte, text string, err error)
	// Writes reports whether a call may change a file or the session's
	// state: such a call is refused rather than run on the disk when a
	// server that may hold the documents does not answer.
	Writes(p any) bool
	// Docs are the documents a call is about (URIs), which choose the
	// server to run it on; resolve turns a workspace path into a URI.
	Docs(p any, resolve func(string) (workspace.Key, error)) []string
	// Refused is the answer of a call refused before it ran (a server gone
	// mid-call): its outcome is the refusal, the rest empty.
	Refused(err error) any
	// Refuse is Refused through the envelope of c's engine: audited under
	// the call's session and documents, with the warnings and the text
	// every answer has.
	Refuse(ctx context.Context, c *Call, p any, err error) any
	// Result decodes a result's JSON (a server's answer) into its type,
	// with the text that came apart from it ("" when none did: ServeApart).
	Result(b []byte, text string) (any, error)
	// Outcome is a result's outcome.
	Outcome(r any) engine.Outcome
	// Text renders a result for an agent: every door shows these words.
	Text(r any) string
	// Body is a result's text without its warnings and its refusal's kind
	// and message: the CLI prints those on standard error, the rest on
	// standard output (a refusal's details too on standard error).
	Body(r any) string
}

// Def is an operation's declaration, with its params type P and result
// type R: the table's Op.
type Def[P, R any] struct {
	spec spec[P, R]
}

// spec is how an operation's file declares it.
type spec[P, R any] struct {
	method string
	// required: the params must be present (absent or null is -32602).
	required bool
	// writes and docs are Op.Writes and Op.Docs; nil: none.
	writes func(P) bool
	docs   func(P, func(string) (workspace.Key, error)) []string
	run    func(context.Context, *Call, P) (R, error)
	// text renders a result for an agent: the one rendering every door
	// shows.
	text func(*R) string
	tool *Tool
}

// define makes an operation of its declaration.
func define[P, R any](s spec[P, R]) *Def[P, R] {
	if _, ok := any(new(R)).(enveloped); !ok {
		panic(s.method + ": the result type does not embed engine.Outcome")
	}
	d := &Def[P, R]{spec: s}
	if s.tool != nil {
		s.tool.op = d
	}
	return d
}

type enveloped interface{ Envelope() *engine.Outcome }

// envelope is a result's outcome, in place.
func envelope[R any](r *R) *engine.Outcome { return any(r).(enveloped).Envelope() }

// Method is Op.Method.
func (d *Def[P, R]) Method() string { return d.spec.method }

// Tool is Op.Tool.
func (d *Def[P, R]) Tool() *Tool { return d.spec.tool }

// Params is Op.Params.
func (d *Def[P, R]) Params(raw json.RawMessage) (any, error) {
	var p P
	if emptyParams(raw) {
		if d.spec.required {
			return nil, result.Errorf(result.InvalidParams, "params are required")
		}
		return p, nil
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, result.Errorf(result.InvalidParams, "invalid params: %v", err)
	}
	return p, nil
}

// Run is the envelope around the operation, written once for all of them:
// the run (whose admission step is the engine's), the refusal an
// agent-facing error becomes, the audit rows the run's outcome holds and
// the warnings every answer carries (engine.Env.Finish), and the text when
// the caller asks for it. Invalid params, cancellation and internal faults stay
// errors, which each door answers in its own way. p is a P; the answer is
// an R, the zero R with an error.
func (d *Def[P, R]) Run(ctx context.Context, c *Call, p any) (any, error) {
	start := time.Now()
	ctx = engine.WithMethod(c.context(ctx), d.spec.method) // the engine's audit and history name the operation
	if caller, ok := p.(interface{ SessionOr() string }); ok {
		// Before the call looks at its session's ledger (Env.Serve).
		c.Env.Serve(caller.SessionOr())
	}
	c.Env.Refresh() // a configuration changed since the last call is obeyed by this one
	r, err := d.spec.run(ctx, c, p.(P))
	c.Env.Answered() // what it recorded written behind, now
	if err != nil {
		if k := result.KindOf(err); k == "" || k == result.InvalidParams || errors.Is(err, context.Canceled) {
			var zero R
			return zero, err
		}
		r = d.Refused(err).(R)
	}
	o := envelope(&r)
	c.Env.Finish(ctx, o, time.Since(start))
	if rendered(p) {
		o.Text = d.Text(r)
	}
	return r, nil
}

// Do is d.Run with its types, for a caller written in Go that holds the
// engine (route.Do routes a call).
func Do[P, R any](ctx context.Context, d *Def[P, R], c *Call, p P) (R, error) {
	r, err := d.Run(ctx, c, p)
	return r.(R), err
}

// ServeApart is Op.ServeApart.
func (d *Def[P, R]) ServeApart(ctx context.Context, c *Call, raw json.RawMessage, apart bool) (b []byte, text string, err error) {
	p, err := d.params(c, raw)
	if err != nil {
		return nil, "", err
	}
	r, err := d.Run(ctx, c, p)
	if err != nil {
		return nil, "", err
	}
	if !apart {
		b, err = result.Marshal(r)
		return b, "", err
	}
	return result.MarshalApart(r)
}

// ToolCall is the params of an operation's method when an editor calls it
// as its agent tool: the tool's arguments as the model wrote them (what
// the MCP door's tools/call carries), and the caller, whose session is
// the default of a call whose arguments name none. The editors' agent
// tools send it, so that they spell out no operation's params: the tool
// turns its arguments into them here, as at the MCP door.
type ToolCall struct {
	Arguments json.RawMessage `json:"arguments"`
	engine.Caller
}

// params decodes a call's params: the operation's own, or a ToolCall.
func (d *Def[P, R]) params(c *Call, raw json.RawMessage) (any, error) {
	if !bytes.Contains(raw, []byte(`"arguments"`)) {
		return d.Params(raw)
	}
	var tc ToolCall
	if err := json.Unmarshal(raw, &tc); err != nil || len(tc.Arguments) == 0 {
		return d.Params(raw) // not a tool call: the params' decoding says what is wrong
	}
	if d.spec.tool == nil {
		return nil, result.Errorf(result.InvalidParams, "%s is no agent tool: its params are its own, not a tool's arguments", d.spec.method)
	}
	return d.spec.tool.Params(tc.Arguments, tc.Caller, c.Env.WS.KeyOf)
}

// Writes is Op.Writes.
func (d *Def[P, R]) Writes(p any) bool { return d.spec.writes != nil && d.spec.writes(p.(P)) }

// Docs is Op.Docs.
func (d *Def[P, R]) Docs(p any, resolve func(string) (workspace.Key, error)) []string {
	if d.spec.docs == nil {
		return nil
	}
	return d.spec.docs(p.(P), resolve)
}

// Refused is Op.Refused.
func (d *Def[P, R]) Refused(err error) any {
	var r R
	*envelope(&r) = engine.Refusal(err)
	return r
}

// Refuse is Op.Refuse.
func (d *Def[P, R]) Refuse(ctx context.Context, c *Call, p any, err error) any {
	ctx = engine.WithMethod(c.context(ctx), d.spec.method)
	var who engine.Caller
	if w, ok := p.(interface{ Who() engine.Caller }); ok {
		who = w.Who()
	}
	var paths []string
	for _, u := range d.Docs(p, c.Env.WS.Resolve) {
		paths = append(paths, c.Env.WS.Rel(workspace.Key(u)))
	}
	var r R
	o := envelope(&r)
	*o = engine.RefusalBy(err, who, paths...)
	c.Env.Finish(ctx, o, 0)
	if rendered(p) {
		o.Text = d.Text(r)
	}
	return r
}

// Result is Op.Result.
func (d *Def[P, R]) Result(b []byte, text string) (any, error) {
	var r R
	err := result.UnmarshalApart(b, text, &r)
	return r, err
}

// Outcome is Op.Outcome.
func (d *Def[P, R]) Outcome(r any) engine.Outcome {
	v := r.(R)
	return *envelope(&v)
}

// Text is Op.Text. Each value from outside sightline is shown by Outside
// (the operations' texts write them with printf), so that no value forges
// a line of its own.
func (d *Def[P, R]) Text(r any) string {
	v := r.(R)
	var b strings.Builder
	o := *envelope(&v)
	for _, w := range o.Warnings {
		b.WriteString(WarningLine(w))
	}
	if !o.OK && o.Error != "" {
		b.WriteString(RefusalLine(o))
	}
	b.WriteString(d.spec.text(&v))
	return b.String()
}

// Body is Op.Body.
func (d *Def[P, R]) Body(r any) string {
	v := r.(R)
	return d.spec.text(&v)
}

// Table is every operation, in the order the docs list them.
func Table() []Op {
	return []Op{
		Read, Edit, Write, ApplyBlocks, ApplyPatch, Ledger, Summary, Outline, Symbols, Files,
		History, Diff, Rollback, Open, Stats, Approvals, Reset, Audit, Sessions,
		Shown, Check,
	}
}

// Lookup finds an operation by its method; nil when there is none.
func Lookup(method string) Op {
	for _, o := range Table() {
		if o.Method() == method {
			return o
		}
	}
	return nil
}

// emptyParams: absent, null, or an empty array, which is how Neovim's Lua
// encodes an empty table ({}).
func emptyParams(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return true
	}
	return t[0] == '[' && strings.TrimSpace(t[1:len(t)-1]) == "" && t[len(t)-1] == ']'
}

func rendered(p any) bool {
	r, ok := p.(interface{ Rendered() bool })
	return ok && r.Rendered()
}

// Tool is an operation's agent tool: its name, what the model reads about
// it, and its input, whose schema is inferred from the input type. Every
// agent-facing door offers it (Doors) but those NotAt names; the editors
// learn the tools from the tools.json files generated from the table
// (ops/gen).
type Tool struct {
	Name, Title, Description string
	// ReadOnly: the tool changes no file (a read records what the model was
	// shown, in sightline's own ledger).
	ReadOnly bool
	// NotAt are the doors (of Doors) that do not offer the tool, each with
	// the reason, which tools.json carries to the reader.
	NotAt map[string]string
	// Example is a call's arguments about a file "f.txt" of the
	// workspace (when the tool takes a path), as the doors' table tests
	// make it: an operation whose tests name no call of their own is
	// called with it at every door (its example's path is the tests'
	// file).
	Example map[string]any
	// schema infers the input's JSON schema on first use: a process that
	// serves no agent tool (every CLI call) does not pay for it at start.
	schema func() *jsonschema.Schema
	// Params turns the tool's arguments into the operation's params:
	// caller is the door's (its session is that of a call that names none),
	// key turns a path into a document URI.
	Params func(args json.RawMessage, caller engine.Caller, key func(string) workspace.Key) (any, error)
	op     Op
}

// example sets the tool's Example.
func (t *Tool) example(args map[string]any) *Tool {
	t.Example = args
	return t
}

// Doors are the doors that offer the agent tools: the MCP server, the
// VS Code extension's language model tools, the Neovim plugin's tools for
// its agent plugins (CodeCompanion, avante).
var Doors = []string{"mcp", "vscode", "neovim"}

// OfferedAt reports whether a door offers the tool.
func (t *Tool) OfferedAt(door string) bool {
	_, not := t.NotAt[door]
	return slices.Contains(Doors, door) && !not
}

// Op is the operation the tool calls.
func (t *Tool) Op() Op { return t.op }

// Schema is the input's JSON schema, inferred from its type.
func (t *Tool) Schema() *jsonschema.Schema { return t.schema() }

// Annotations are what a tool says of its effects, in MCP's words: a read
// only records what the model was shown (sightline's own ledger), never a
// file, and gives the same answer again; a write may change or remove what
// a file held, and is not idempotent (an append appends again). No tool
// reaches outside the workspace.
type Annotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	Idempotent  bool `json:"idempotentHint"`
	OpenWorld   bool `json:"openWorldHint"`
}

// Annotations are the tool's.
func (t *Tool) Annotations() Annotations {
	return Annotations{ReadOnly: t.ReadOnly, Destructive: !t.ReadOnly, Idempotent: t.ReadOnly}
}

// tool declares an agent tool whose input is In, converted to the params
// by conv.
func tool[In, P any](name, title, description string, readOnly bool, conv func(In, engine.Caller, func(string) workspace.Key) (P, error), tune func(*jsonschema.Schema)) *Tool {
	schema := sync.OnceValue(func() *jsonschema.Schema {
		s, err := jsonschema.For[In](nil)
		if err != nil {
			panic(name + ": " + err.Error()) // a declaration's mistake; TestToolSchemas infers them all
		}
		if tune != nil {
			tune(s)
		}
		return s
	})
	return &Tool{Name: name, Title: title, Description: description, ReadOnly: readOnly, schema: schema,
		Params: func(raw json.RawMessage, caller engine.Caller, key func(string) workspace.Key) (any, error) {
			var in In
			if len(raw) == 0 || string(raw) == "null" {
				raw = json.RawMessage("{}")
			}
			if err := json.Unmarshal(loose(raw, schema()), &in); err != nil {
				return nil, result.Errorf(result.InvalidParams, "invalid arguments for %s: %v. See the tool's input schema.", name, err)
			}
			return conv(in, caller, key)
		}}
}

// loose reads a tool's arguments as models write them, by the schema: the
// object as a JSON string; a number or true/false in a string where the
// schema wants one; an array or object as a JSON string; one object where
// it wants an array of them. Anything else is left for the decoding to
// refuse.
func loose(raw json.RawMessage, s *jsonschema.Schema) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		var str string
		if json.Unmarshal(t, &str) == nil && strings.HasPrefix(strings.TrimSpace(str), "{") && json.Valid([]byte(str)) {
			raw = json.RawMessage(str)
		}
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return raw
	}
	changed := false
	for name, v := range args {
		p := s.Properties[name]
		v = bytes.TrimSpace(v)
		if p == nil || len(v) == 0 {
			continue
		}
		var str string
		isString := v[0] == '"' && json.Unmarshal(v, &str) == nil
		str = strings.TrimSpace(str)
		var fixed json.RawMessage
		switch {
		case isString && p.Type == "integer":
			if _, err := strconv.Atoi(str); err == nil {
				fixed = json.RawMessage(str)
			}
		case isString && p.Type == "boolean":
			if str == "true" || str == "false" {
				fixed = json.RawMessage(str)
			}
		case isString && (p.Type == "array" && strings.HasPrefix(str, "[") || (p.Type == "array" || p.Type == "object") && strings.HasPrefix(str, "{")):
			if json.Valid([]byte(str)) {
				fixed = json.RawMessage(str)
			}
		}
		if p.Type == "array" {
			if fixed != nil {
				v = fixed
			}
			if v[0] == '{' {
				fixed = append(append(json.RawMessage("["), v...), ']')
			}
		}
		if fixed != nil {
			args[name], changed = fixed, true
		}
	}
	if !changed {
		return raw
	}
	b, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return b
}

func invalid(msg string) error { return result.Errorf(result.InvalidParams, "%s", msg) }
