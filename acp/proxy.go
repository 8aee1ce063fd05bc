// Package acp is the ACP door: sightline between an editor and a coding
// agent that speak the Agent Client Protocol (newline-delimited JSON-RPC
// over the agent's standard input and output). The proxy forwards the
// lines in both directions, and on the way it records what the agent was
// shown (the editor's answers to fs/read_text_file, the agent's completed
// read tool calls) with sightline/shown, asks sightline/check before a
// read (fs/read_text_file), a whole-file write (fs/write_text_file) or an
// edit's permission request (session/request_permission) reaches the
// editor, and adds sightline's MCP server to the sessions it sees created.
// The editor carries those requests out itself, so the proxy judges them
// as the editor will read them (result.DecodeJudged) and refuses what it
// cannot judge exactly; it never passes one on unjudged. The package knows
// ACP's message shapes and nothing of where the operations run (it is
// handed a judge.Router).
package acp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sightline-lsp/sightline/judge"
)

// MCPServer is sightline's MCP server as the proxy adds it to the agent's
// sessions (session/new, session/load).
type MCPServer struct {
	// Name is the server's name in mcpServers; a session that already has
	// a server of this name keeps its own.
	Name    string
	Command string
	// Args are the server's arguments for a ledger session: its name when
	// known (session/load), else the file the proxy writes the name to once
	// the agent has answered session/new with the session's id. nil: no
	// workspace is fixed yet (the server's --root would be a guess), and
	// no server is added.
	Args func(session, sessionFile string) []string
	// SessionDir is the folder of those files.
	SessionDir string
}

// Options configure a Proxy.
type Options struct {
	// Router runs the operations; its root is "" while none is fixed (only
	// the user's --root or the editor's sessions fix it, never the agent).
	Router judge.Router
	// MCP is added to the sessions; nil adds nothing.
	MCP *MCPServer
	// Log receives what the proxy could not do or refused (a call that
	// failed, a line it could not judge).
	Log io.Writer
	// CallTimeout bounds each call of an operation (0: 10 s).
	CallTimeout time.Duration
	// MaxLine bounds the line the proxy reads whole (0: MaxLine). A longer
	// one from the agent is refused (it cannot be judged); one from the
	// editor is forwarded untouched, unread (nothing of it is recorded).
	MaxLine int
	// Grace is how long the proxy waits for the agent to end its output
	// after the editor ended its own (0: 5 s).
	Grace time.Duration
	// OnSession, when set, is told the working directory of each session
	// the editor creates or loads (session/new, session/load), before the
	// request goes on (and before MCP's arguments are asked for): the
	// trusted side's word on the workspace.
	OnSession func(cwd string)
	// ClaudeHooks, when set, are Claude Code hooks (the settings' "hooks"
	// object: event -> matcher groups) the proxy gives an agent built on
	// Claude Code (claude-agent-acp) with each session it creates or loads,
	// through the settings the adapter passes to Claude Code
	// (_meta.claudeCode.options.settings): Claude Code's own tools are then
	// judged by the hook door in every permission mode, auto included,
	// without a file of the user's changed. The conversation's ledger
	// session is then the hook door's (claude-<sessionId>: the adapter
	// gives Claude Code the ACP session's id), so both doors record to one.
	ClaudeHooks map[string][]any
}

// MaxLine is the default bound of a line read whole: a write of the
// largest text sightline handles (16 MiB), JSON-escaped, fits.
const MaxLine = 64 << 20

// maxPending bounds each table of requests awaiting an answer, and the
// table of tool calls in progress.
const maxPending = 4096

// Proxy forwards one editor's connection to one agent.
type Proxy struct {
	o                 Options
	toAgent, toEditor *lineWriter

	mu         sync.Mutex
	agent      string               // the agent's name (initialize's agentInfo)
	agentReqs  map[string]agentReq  // the agent's requests the editor has not answered
	editorReqs map[string]editorReq // the editor's requests the agent has not answered
	calls      map[string]*toolCall // tool calls in progress, by session and id
	warned     map[string]bool      // one warning of each kind
	// opened: the editor has created or loaded a session; until then the
	// workspace is not known and nothing the agent asks is judged.
	opened bool
}

// New makes a Proxy.
func New(o Options) *Proxy {
	if o.CallTimeout <= 0 {
		o.CallTimeout = 10 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = MaxLine
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &Proxy{o: o, agent: "acp", agentReqs: map[string]agentReq{}, editorReqs: map[string]editorReq{},
		calls: map[string]*toolCall{}, warned: map[string]bool{}}
}

// ErrEditorGone is Run's answer when the editor ended its input and the
// agent did not end its output within the grace period.
var ErrEditorGone = errors.New("the editor closed the connection and the agent did not exit")

// Run forwards until the agent ends its output (it exited, or closed it),
// or the editor ends its input: then the agent's input is closed and Run
// waits for the agent's output to end, at most Grace. A write that fails
// (the peer gone) ends Run too. It never closes editorOut.
func (p *Proxy) Run(ctx context.Context, editorIn io.Reader, editorOut io.Writer, agentIn io.WriteCloser, agentOut io.Reader) error {
	p.toAgent, p.toEditor = &lineWriter{w: agentIn}, &lineWriter{w: editorOut}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fromAgent := make(chan error, 1)
	fromEditor := make(chan error, 1)
	go func() { fromAgent <- p.pump(ctx, agentOut, p.fromAgent, p.refuseLong) }()
	go func() { fromEditor <- p.pump(ctx, editorIn, p.fromEditor, p.passLong) }()
	select {
	case err := <-fromAgent:
		return err
	case err := <-fromEditor:
		agentIn.Close()
		if err != nil && !errors.Is(err, errWrite) {
			p.logf("reading the editor: %v", err)
		}
		t := time.NewTimer(p.o.Grace)
		defer t.Stop()
		select {
		case err := <-fromAgent:
			return err
		case <-t.C:
			return ErrEditorGone
		case <-ctx.Done():
			return ctx.Err()
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

var errWrite = errors.New("writing")

// lineWriter writes whole lines to one peer; both pumps may write to the
// agent (a refusal is answered from the agent's side), so a line is written
// under the lock, whole.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (w *lineWriter) write(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(line)
}

func (w *lineWriter) writeLocked(b []byte) error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("%w: %v", errWrite, err)
	}
	return w.err
}

// pump reads lines from in and hands each whole line (its newline
// included) to handle, which forwards it, changed or not, or refuses it. A
// line longer than MaxLine is handed to long with its first MaxLine bytes
// and the reader positioned in it, for long to consume the rest of the line.
// It returns nil at the end of in, else the error that stopped it.
func (p *Proxy) pump(ctx context.Context, in io.Reader, handle func(context.Context, []byte) error, long func(context.Context, *bufio.Reader, []byte, error) error) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(buf) <= p.o.MaxLine {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			if len(buf) > p.o.MaxLine {
				if lerr := long(ctx, br, buf, err); lerr != nil {
					if errors.Is(lerr, io.EOF) {
						return nil
					}
					return lerr
				}
				buf = nil
				continue
			}
			line = buf
		}
		if len(line) > p.o.MaxLine {
			// Whole in the reader's buffer, but longer than the bound.
			if lerr := long(ctx, br, line, err); lerr != nil {
				if errors.Is(lerr, io.EOF) {
					return nil
				}
				return lerr
			}
			continue
		}
		if len(line) > 0 {
			if herr := handle(ctx, line); herr != nil {
				return herr
			}
		}
		if cap(buf) > 1<<20 {
			buf = nil // a large line's buffer is not kept for the small ones
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// passLong forwards a line of the editor too long to read whole, as it
// is read, under the agent's lock: the editor is the trusted side, and
// nothing of the line is recorded.
func (p *Proxy) passLong(_ context.Context, br *bufio.Reader, head []byte, err error) error {
	p.warnOnce("long", "a line of the editor longer than %d bytes passed unread (nothing of it recorded)", p.o.MaxLine)
	out := p.toAgent
	out.mu.Lock()
	defer out.mu.Unlock()
	if werr := out.writeLocked(head); werr != nil {
		return werr
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		var part []byte
		part, err = br.ReadSlice('\n')
		if werr := out.writeLocked(part); werr != nil {
			return werr
		}
	}
	return err
}

// refuseLong refuses a line of the agent too long to read whole: it cannot
// be judged, so nothing of it reaches the editor. The rest of the line is
// read and dropped, and the agent is answered when the line's first bytes
// hold its id.
func (p *Proxy) refuseLong(ctx context.Context, br *bufio.Reader, head []byte, err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = br.ReadSlice('\n')
	}
	id, method := idIn(head)
	if method == "" {
		method = "a message"
	}
	why := fmt.Sprintf("sightline refused %s: the line is longer than %d bytes, the most it reads whole, so it cannot judge it. Nothing reached the editor. Send smaller messages (a file that large is not written through the editor here).", method, p.o.MaxLine)
	if rerr := p.refuse(ctx, id, refusal{method: method, why: why}); rerr != nil {
		return rerr
	}
	return err
}

func (p *Proxy) logf(format string, args ...any) {
	fmt.Fprintf(p.o.Log, "sightline acp: "+format+"\n", args...)
}

func (p *Proxy) warnOnce(kind, format string, args ...any) {
	p.mu.Lock()
	seen := p.warned[kind]
	p.warned[kind] = true
	p.mu.Unlock()
	if !seen {
		p.logf(format, args...)
	}
}
