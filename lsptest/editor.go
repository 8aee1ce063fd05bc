// Package lsptest is a fake editor for tests: an LSP client over an in-process
// pipe (net.Pipe) that keeps its own buffers, records what the server
// publishes, and answers the server's requests (applyEdit, configuration,
// refresh). Its buffer arithmetic is deliberately independent of the server's
// (a naive rune walk), so the two check each other.
package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/sightline-lsp/sightline/server"
)

// Editor is one fake editor connected to one in-process server.
type Editor struct {
	t    testing.TB
	conn jsonrpc2.Conn
	// Exit receives the server's exit code when Serve returns.
	Exit chan int
	enc  string // negotiated position encoding

	mu       sync.Mutex
	buffers  map[string]string
	versions map[string]int32
	diags    map[string][]protocol.Diagnostic
	coverage map[string]json.RawMessage
	notes    []Note
	changed  *sync.Cond

	// ApplyEdit decides how the editor answers workspace/applyEdit; the
	// default applies the edit to its buffers when versions match.
	ApplyEdit func(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult
	// Settings is what workspace/configuration returns.
	Settings json.RawMessage
	// ShowMessageRequest answers window/showMessageRequest (the action the
	// user picked; nil is a dismissal). Unset, the request is recorded and
	// dismissed.
	ShowMessageRequest func(p protocol.ShowMessageRequestParams) *protocol.MessageActionItem
}

// Note is one notification received from the server.
type Note struct {
	Method string
	Params json.RawMessage
}

// Options for Start.
type Options struct {
	Server server.Options
	// Capabilities overrides the client capabilities sent in initialize.
	Capabilities json.RawMessage
	// InitOptions are the initializationOptions.
	InitOptions json.RawMessage
	Root        string
	// SkipInit leaves initialize to the test.
	SkipInit bool
}

// DefaultCapabilities: a client with applyEdit, utf-16 positions, push
// diagnostics and configuration.
// It takes sightline/coverage as changes, which it merges into the whole.
const DefaultCapabilities = `{"workspace":{"applyEdit":true,"configuration":true,"workspaceEdit":{"documentChanges":true}},"general":{"positionEncodings":["utf-16"]},"experimental":{"sightline":{"coverageChanges":true}}}`

// Start runs a server in-process and connects an editor to it.
func Start(t testing.TB, o Options) *Editor {
	t.Helper()
	a, b := net.Pipe()
	srv := server.New(o.Server)
	e := &Editor{
		t:        t,
		Exit:     make(chan int, 1),
		buffers:  map[string]string{},
		versions: map[string]int32{},
		diags:    map[string][]protocol.Diagnostic{},
		coverage: map[string]json.RawMessage{},
	}
	e.changed = sync.NewCond(&e.mu)
	done := make(chan struct{})
	go func() {
		e.Exit <- srv.Serve(context.Background(), server.NewStream(a, a, a))
		close(done)
	}()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b), jsonrpc2.WithCodec(server.Codec()))
	e.conn.Go(context.Background(), e.handle)
	// Cleanups run last registered first: the server has stopped (and
	// flushed its state) before the test's folders are removed.
	t.Cleanup(func() {
		_ = b.Close()
		_ = a.Close()
		closed := time.Now()
		select {
		case <-done:
			if d := time.Since(closed); d > 2*time.Second {
				t.Logf("lsptest: the server took %v to stop after the connection closed", d.Round(time.Millisecond))
			}
		case <-time.After(30 * time.Second):
			// Generous: under the race detector a server finishing a storm of
			// calls (each bounded) takes a while; what matters is that it ends.
			t.Errorf("lsptest: the server did not stop within 30 s of the connection closing")
		}
	})
	if !o.SkipInit {
		e.Initialize(o)
	}
	return e
}

// Initialize runs the handshake.
func (e *Editor) Initialize(o Options) json.RawMessage {
	e.t.Helper()
	caps := o.Capabilities
	if caps == nil {
		caps = json.RawMessage(DefaultCapabilities)
	}
	params := map[string]any{
		"processId":    nil,
		"capabilities": caps,
		"clientInfo":   map[string]string{"name": "lsptest"},
	}
	if o.Root != "" {
		params["rootUri"] = string(uri.File(o.Root))
		params["workspaceFolders"] = []map[string]string{{"uri": string(uri.File(o.Root)), "name": "root"}}
	}
	if o.InitOptions != nil {
		params["initializationOptions"] = o.InitOptions
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	var raw json.RawMessage
	if err := e.Call("initialize", params, &raw); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	_ = json.Unmarshal(raw, &res)
	e.enc = res.Capabilities.PositionEncoding
	if e.enc == "" {
		e.enc = "utf-16"
	}
	if err := e.Notify("initialized", map[string]any{}); err != nil {
		e.t.Fatalf("initialized: %v", err)
	}
	return raw
}

// Call sends a request and decodes its result into result (a pointer, or nil).
func (e *Editor) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var raw json.RawMessage
	_, err := e.conn.Call(ctx, method, params, &raw)
	if err != nil {
		return err
	}
	if result != nil {
		if r, ok := result.(*json.RawMessage); ok {
			*r = raw
			return nil
		}
		if err := json.Unmarshal(raw, result); err != nil {
			return fmt.Errorf("decode %s result %s: %w", method, raw, err)
		}
	}
	return nil
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) error {
	return e.conn.Notify(context.Background(), method, params)
}

// Open sends didOpen and keeps the buffer.
func (e *Editor) Open(u, lang, text string) {
	e.t.Helper()
	e.mu.Lock()
	e.buffers[u] = text
	e.versions[u] = 1
	e.mu.Unlock()
	err := e.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": lang, "version": 1, "text": text}})
	if err != nil {
		e.t.Fatalf("didOpen: %v", err)
	}
}

// Close sends didClose.
func (e *Editor) Close(u string) {
	e.mu.Lock()
	delete(e.buffers, u)
	e.mu.Unlock()
	_ = e.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
}

// Edit is one incremental change in the editor's position encoding.
type Edit struct {
	StartLine, StartChar, EndLine, EndChar int
	Text                                   string
}

// Change applies edits to the editor's buffer and sends them as one didChange.
func (e *Editor) Change(u string, edits ...Edit) {
	e.t.Helper()
	e.mu.Lock()
	text := e.buffers[u]
	changes := make([]map[string]any, 0, len(edits))
	for _, ed := range edits {
		s := offsetOf(text, ed.StartLine, ed.StartChar, e.enc)
		en := offsetOf(text, ed.EndLine, ed.EndChar, e.enc)
		text = text[:s] + ed.Text + text[en:]
		changes = append(changes, map[string]any{
			"range": map[string]any{
				"start": map[string]int{"line": ed.StartLine, "character": ed.StartChar},
				"end":   map[string]int{"line": ed.EndLine, "character": ed.EndChar},
			},
			"text": ed.Text,
		})
	}
	e.buffers[u] = text
	e.versions[u]++
	v := e.versions[u]
	e.mu.Unlock()
	err := e.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": v}, "contentChanges": changes})
	if err != nil {
		e.t.Fatalf("didChange: %v", err)
	}
}

// ReplaceAll sets the editor's buffer to text and sends it as one full-text
// didChange (editors that sync full text do this on every keystroke).
func (e *Editor) ReplaceAll(u, text string) {
	e.t.Helper()
	e.mu.Lock()
	e.buffers[u] = text
	e.versions[u]++
	v := e.versions[u]
	e.mu.Unlock()
	err := e.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": v}, "contentChanges": []any{map[string]any{"text": text}}})
	if err != nil {
		e.t.Fatalf("didChange: %v", err)
	}
}

// DefaultApplyEdit is what the editor does with workspace/applyEdit when
// ApplyEdit is nil: apply it to its buffers when the versions match. An
// ApplyEdit hook that refuses only sometimes calls it otherwise.
func (e *Editor) DefaultApplyEdit(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
	return e.applyEdit(p)
}

// SetSettings changes what the editor answers workspace/configuration with
// while it runs (Settings is for before Start).
func (e *Editor) SetSettings(raw json.RawMessage) {
	e.mu.Lock()
	e.Settings = raw
	e.mu.Unlock()
}

// Buffer returns the editor's text of a document.
func (e *Editor) Buffer(u string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buffers[u]
}

// Version returns the editor's version of a document.
func (e *Editor) Version(u string) int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.versions[u]
}

// Encoding is the negotiated position encoding.
func (e *Editor) Encoding() string { return e.enc }

// Diagnostics returns the last published diagnostics of a document.
func (e *Editor) Diagnostics(u string) []protocol.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.diags[u]
}

// WaitDiagnostics waits until the published diagnostics satisfy ok.
func (e *Editor) WaitDiagnostics(u string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	e.t.Helper()
	var got []protocol.Diagnostic
	if !e.wait(func() bool { got = e.diags[u]; return ok(got) }) {
		e.t.Fatalf("diagnostics of %s never satisfied the condition; last: %s", u, mustJSON(got))
	}
	return got
}

// WaitCoverage waits until the last sightline/coverage of a document
// satisfies ok and returns it.
func (e *Editor) WaitCoverage(u string, ok func(json.RawMessage) bool) json.RawMessage {
	e.t.Helper()
	var got json.RawMessage
	if !e.wait(func() bool { got = e.coverage[u]; return got != nil && ok(got) }) {
		e.t.Fatalf("coverage of %s never satisfied the condition; last: %s", u, got)
	}
	return got
}

// WaitNote waits until a message with the method (a notification, or a
// request from the server) has arrived.
func (e *Editor) WaitNote(method string) {
	e.t.Helper()
	if !e.wait(func() bool {
		for _, n := range e.notes {
			if n.Method == method {
				return true
			}
		}
		return false
	}) {
		e.t.Fatalf("no %s received", method)
	}
}

// Notes returns the notifications received so far.
func (e *Editor) Notes() []Note {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Note(nil), e.notes...)
}

// wait blocks (up to 10s) until cond, evaluated under the lock, holds.
func (e *Editor) wait(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	timer := time.AfterFunc(10*time.Second, func() { e.mu.Lock(); e.changed.Broadcast(); e.mu.Unlock() })
	defer timer.Stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		e.changed.Wait()
	}
	return true
}

// Shutdown sends shutdown and exit and returns the server's exit code.
func (e *Editor) Shutdown() int {
	e.t.Helper()
	if err := e.Call("shutdown", nil, nil); err != nil {
		e.t.Fatalf("shutdown: %v", err)
	}
	_ = e.Notify("exit", nil)
	select {
	case code := <-e.Exit:
		return code
	case <-time.After(10 * time.Second):
		e.t.Fatal("server did not exit")
		return -1
	}
}

// handle serves the server's requests and records its notifications.
func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method := strings.Clone(req.Method())
	params := append(json.RawMessage(nil), req.Params()...)
	if req.IsCall() {
		jsonrpc2.Async(ctx)
	}
	switch method {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			e.t.Errorf("bad publishDiagnostics %s: %v", params, err)
			return nil, nil
		}
		if p.Diagnostics == nil {
			e.t.Errorf("publishDiagnostics with null diagnostics: %s", params)
		}
		e.mu.Lock()
		e.diags[string(p.URI)] = p.Diagnostics
		e.notes = append(e.notes, Note{method, params})
		e.changed.Broadcast()
		e.mu.Unlock()
		return nil, nil
	case "sightline/coverage":
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(params, &p)
		e.mu.Lock()
		whole, err := mergeCoverage(e.coverage[p.URI], params)
		if err != nil {
			e.t.Errorf("sightline/coverage %s: %v", params, err)
		}
		e.coverage[p.URI] = whole
		e.notes = append(e.notes, Note{method, params})
		e.changed.Broadcast()
		e.mu.Unlock()
		return nil, nil
	case "workspace/applyEdit":
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("bad applyEdit: %w", err)
		}
		if e.ApplyEdit != nil {
			return e.ApplyEdit(p), nil
		}
		return e.applyEdit(p), nil
	case "window/showMessageRequest":
		var p protocol.ShowMessageRequestParams
		_ = protocol.Unmarshal(params, &p)
		e.mu.Lock()
		e.notes = append(e.notes, Note{method, params})
		e.changed.Broadcast()
		answer := e.ShowMessageRequest
		e.mu.Unlock()
		if answer == nil {
			return nil, nil
		}
		return answer(p), nil
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		_ = protocol.Unmarshal(params, &p)
		out := make([]json.RawMessage, len(p.Items))
		e.mu.Lock()
		settings := e.Settings
		e.mu.Unlock()
		for i := range out {
			out[i] = json.RawMessage("null")
			if settings != nil {
				out[i] = slices.Clone(settings)
			}
		}
		return out, nil
	case "workspace/diagnostic/refresh", "workspace/codeLens/refresh", "client/registerCapability", "window/workDoneProgress/create":
		e.mu.Lock()
		e.notes = append(e.notes, Note{method, params})
		e.changed.Broadcast()
		e.mu.Unlock()
		return nil, nil
	case "window/showDocument":
		// The editor shows it: recorded for the test, answered as shown.
		e.mu.Lock()
		e.notes = append(e.notes, Note{method, params})
		e.changed.Broadcast()
		e.mu.Unlock()
		return map[string]bool{"success": true}, nil
	}
	e.mu.Lock()
	e.notes = append(e.notes, Note{method, params})
	e.changed.Broadcast()
	e.mu.Unlock()
	if req.IsCall() {
		return nil, jsonrpc2.ErrMethodNotFound
	}
	return nil, nil
}

// applyEdit applies versioned text document edits, all or nothing: a version
// that does not match the buffer refuses the whole edit, as editors do.
func (e *Editor) applyEdit(p protocol.ApplyWorkspaceEditParams) protocol.ApplyWorkspaceEditResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	type pending struct {
		text    string
		changes []map[string]any
	}
	next := map[string]pending{}
	for _, dc := range p.Edit.DocumentChanges {
		tde, ok := dc.(*protocol.TextDocumentEdit)
		if !ok {
			return refused("only text document edits are supported")
		}
		u := string(tde.TextDocument.URI)
		text, open := e.buffers[u]
		if !open {
			return refused("document not open: " + u)
		}
		if tde.TextDocument.Version != nil && *tde.TextDocument.Version != e.versions[u] {
			return refused(fmt.Sprintf("version mismatch: edit for %d, buffer at %d", *tde.TextDocument.Version, e.versions[u]))
		}
		// Edits of one document refer to the original text: apply from the end.
		type span struct {
			s, en int
			text  string
		}
		var spans []span
		for _, te := range tde.Edits {
			var r protocol.Range
			var nt string
			switch x := te.(type) {
			case *protocol.TextEdit:
				r, nt = x.Range, x.NewText
			case *protocol.AnnotatedTextEdit:
				r, nt = x.Range, x.NewText
			default:
				return refused("unsupported edit kind")
			}
			spans = append(spans, span{offsetOf(text, int(r.Start.Line), int(r.Start.Character), e.enc), offsetOf(text, int(r.End.Line), int(r.End.Character), e.enc), nt})
		}
		sort.SliceStable(spans, func(i, j int) bool { return spans[i].s < spans[j].s })
		// Report the edit as editors do: one incremental change per text edit,
		// last first, so each range is still valid when it is applied.
		var changes []map[string]any
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			sl, sc := positionOf(text, sp.s, e.enc)
			el, ec := positionOf(text, sp.en, e.enc)
			text = text[:sp.s] + sp.text + text[sp.en:]
			changes = append(changes, map[string]any{
				"range": map[string]any{"start": map[string]int{"line": sl, "character": sc}, "end": map[string]int{"line": el, "character": ec}},
				"text":  sp.text,
			})
		}
		next[u] = pending{text, changes}
	}
	for u, p := range next {
		e.buffers[u] = p.text
		e.versions[u]++
		v := e.versions[u]
		go func(u string, changes []map[string]any, v int32) {
			_ = e.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": v}, "contentChanges": changes})
		}(u, p.changes, v)
	}
	return protocol.ApplyWorkspaceEditResult{Applied: true}
}

func refused(reason string) protocol.ApplyWorkspaceEditResult {
	return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}
}

// offsetOf maps an LSP position to a byte offset by walking runes: the naive
// reference the server's mapper is checked against.
func offsetOf(text string, line, char int, enc string) int {
	off := 0
	for l := 0; l < line; l++ {
		i := strings.IndexAny(text[off:], "\r\n")
		if i < 0 {
			return len(text)
		}
		off += i
		if text[off] == '\r' && off+1 < len(text) && text[off+1] == '\n' {
			off += 2
		} else {
			off++
		}
	}
	units := 0
	for off < len(text) && units < char {
		r, size := utf8.DecodeRuneInString(text[off:])
		if r == '\r' || r == '\n' {
			break
		}
		switch enc {
		case "utf-8":
			units += size
		case "utf-32":
			units++
		default:
			units += len(utf16.Encode([]rune{r}))
		}
		off += size
	}
	return off
}

// positionOf maps a byte offset back to an LSP position (the inverse of
// offsetOf, with the same naive walk).
func positionOf(text string, off int, enc string) (int, int) {
	line, start := 0, 0
	for i := 0; i < off; i++ {
		switch text[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue // a CRLF: its \n ends the line
			}
			line, start = line+1, i+1
		}
	}
	char := 0
	for _, r := range text[start:off] {
		switch enc {
		case "utf-8":
			char += utf8.RuneLen(r)
		case "utf-32":
			char++
		default:
			char += len(utf16.Encode([]rune{r}))
		}
	}
	return line, char
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// mergeCoverage applies a sightline/coverage notification to the last whole
// coverage of its document, line by line: a change (with "changed") replaces
// the lines in its window, anything else is whole.
func mergeCoverage(last, note json.RawMessage) (json.RawMessage, error) {
	type lines struct {
		Start int `json:"start"`
		End   int `json:"end"`
	}
	var n map[string]json.RawMessage
	if err := json.Unmarshal(note, &n); err != nil {
		return nil, err
	}
	raw, ok := n["changed"]
	if !ok {
		return note, nil
	}
	if last == nil {
		return nil, fmt.Errorf("a change of a coverage never sent")
	}
	var w lines
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	var l map[string]json.RawMessage
	if err := json.Unmarshal(last, &l); err != nil {
		return nil, err
	}
	for _, kind := range []string{"read", "authored", "stale"} {
		var old, add []lines
		if err := json.Unmarshal(l[kind], &old); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(n[kind], &add); err != nil {
			return nil, err
		}
		set := map[int]bool{}
		for _, r := range old {
			for i := r.Start; i <= r.End; i++ {
				if i < w.Start || i > w.End {
					set[i] = true
				}
			}
		}
		for _, r := range add {
			if r.Start < w.Start || r.End > w.End {
				return nil, fmt.Errorf("%s range %d-%d outside the changed lines %d-%d", kind, r.Start, r.End, w.Start, w.End)
			}
			for i := r.Start; i <= r.End; i++ {
				set[i] = true
			}
		}
		ls := make([]int, 0, len(set))
		for i := range set {
			ls = append(ls, i)
		}
		sort.Ints(ls)
		rs := []lines{}
		for _, i := range ls {
			if k := len(rs) - 1; k >= 0 && rs[k].End == i-1 {
				rs[k].End = i
			} else {
				rs = append(rs, lines{i, i})
			}
		}
		n[kind], _ = json.Marshal(rs)
	}
	delete(n, "changed")
	return json.Marshal(n)
}
