// Package acp is the ACP door: sightline between an editor and a coding
// agent that speak the Agent Client Protocol (newline-delimited JSON-RPC
// over the agent's standard input and output). The proxy forwards every
// line unchanged in both directions, and on the way it records what the
// agent was shown (the editor's answers to fs/read_text_file, the agent's
// completed read tool calls) with sightline/shown, asks the guard with
// sightline/check before a whole-file write (fs/write_text_file) or an
// edit's permission request (session/request_permission) reaches the
// editor, and adds sightline's MCP server to the sessions it sees created.
// The package knows ACP's message shapes and nothing of where the
// operations run (it is handed a Runner).
package acp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/workspace"
)

// Runner runs an operation of the table where it belongs (route.Router).
type Runner interface {
	Call(ctx context.Context, op *ops.Op, p any) (any, error)
	// Key turns an absolute path into a document key.
	Key(path string) workspace.Key
}

// MCPServer is sightline's MCP server as the proxy adds it to the agent's
// sessions (session/new, session/load).
type MCPServer struct {
	// Name is the server's name in mcpServers; a session that already has
	// a server of this name keeps its own.
	Name    string
	Command string
	// Args are the server's arguments for a ledger session: its name when
	// known (session/load), else the file the proxy writes the name to once
	// the agent has answered session/new with the session's id.
	Args func(session, sessionFile string) []string
	// SessionDir is the folder of those files.
	SessionDir string
}

// Options configure a Proxy.
type Options struct {
	Runner Runner
	// MCP is added to the sessions; nil adds nothing.
	MCP *MCPServer
	// Log receives what the proxy could not do (a call that failed, a line
	// too long to read); the messages still pass.
	Log io.Writer
	// CallTimeout bounds each call of an operation (0: 10 s).
	CallTimeout time.Duration
	// MaxLine bounds the line the proxy reads whole (0: MaxLine); a longer
	// one is forwarded untouched, unread.
	MaxLine int
	// Grace is how long the proxy waits for the agent to end its output
	// after the editor ended its own (0: 5 s).
	Grace time.Duration
	// OnSession, when set, is told the working directory of each session
	// the editor creates or loads (session/new, session/load), before the
	// request goes on (and before MCP's arguments are asked for).
	OnSession func(cwd string)
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
	go func() { fromAgent <- p.pump(ctx, agentOut, p.toEditor, p.fromAgent) }()
	go func() { fromEditor <- p.pump(ctx, editorIn, p.toAgent, p.fromEditor) }()
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
// included) to handle, which forwards it, changed or not. A line longer
// than MaxLine is forwarded untouched as it is read, under out's lock, and
// never handled. It returns nil at the end of in, else the error that
// stopped it.
func (p *Proxy) pump(ctx context.Context, in io.Reader, out *lineWriter, handle func(context.Context, []byte) error) error {
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
				p.warnOnce("long", "a line longer than %d bytes passed unread (not recorded, not guarded)", p.o.MaxLine)
				if werr := p.passLong(br, out, buf, err); werr != nil {
					return werr
				}
				buf = nil
				continue
			}
			line = buf
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

// passLong forwards the rest of a line too long to read whole.
func (p *Proxy) passLong(br *bufio.Reader, out *lineWriter, head []byte, err error) error {
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
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
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
