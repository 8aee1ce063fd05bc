// Package mcptools is sightline's MCP server: the agent tools of the
// operation table (package ops; PROTOCOL section 9) over the official Go
// SDK, each with the schema inferred from its input type, the ones the table
// offers at this door (ops.Tool.OfferedAt). The tools run the
// same operations as the CLI and the language server, through package
// route: on a running language server of the workspace when there is one,
// else on disk. Answers are the operations' text; refusals are tool errors
// (isError) carrying the same text.
package mcptools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/workspace"
)

// Options configure the server.
type Options struct {
	Router *route.Router
	// Session is the session of a call that names none.
	Session string
	// SessionFile, when set, names that session instead once the file
	// exists (read at each call until then): `sightline acp` learns the
	// name of a session only after the agent has started this server.
	SessionFile string
	Version     string
}

// instructions is what the client may show the model about the server as a
// whole; each tool's description teaches its own part.
const instructions = `sightline gives you line-exact reads and edits of the files of one workspace, and remembers what you have seen.
Workflow: sightline_read a file (or a range of it) -> each line comes as LINE:HASH|content -> sightline_edit by refs "LINE:HASH" (copy them from the read) -> the answer shows the edited lines with fresh refs for the next edit.
Edits are guarded: you may only change lines you have read in their current form. A refusal says exactly which lines to read and usually returns them already (they then count as read), so retry at once with the refs it shows.
Paths are relative to the workspace root (absolute paths inside it work too).`

// New builds the MCP server with its tools.
func New(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sightline", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{},
	})
	t := &tools{router: o.Router, session: o.Session, file: o.SessionFile}
	if t.session == "" {
		t.session = "default"
	}
	for _, op := range ops.Table() {
		if op.Tool() != nil && op.Tool().OfferedAt("mcp") {
			s.AddTool(&mcp.Tool{Name: op.Tool().Name, Title: op.Tool().Title, Description: op.Tool().Description,
				InputSchema: op.Tool().Schema(), Annotations: annotations(op.Tool())}, t.handler(op.Tool()))
		}
	}
	return s
}

type tools struct {
	router  *route.Router
	session string
	file    string

	mu    sync.Mutex
	named string // the session read from file
}

// sessionOf is the session of a call that names none.
func (t *tools) sessionOf() string {
	if t.file == "" {
		return t.session
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.named == "" {
		if b, err := os.ReadFile(t.file); err == nil && len(b) <= 1024 {
			t.named = strings.TrimSpace(string(b))
		}
	}
	if t.named != "" {
		return t.named
	}
	return t.session
}

// annotations say truthfully what a tool does to the files (ops.Tool.Annotations).
func annotations(t *ops.Tool) *mcp.ToolAnnotations {
	a := t.Annotations()
	return &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: a.ReadOnly, DestructiveHint: &a.Destructive,
		IdempotentHint: a.Idempotent, OpenWorldHint: &a.OpenWorld}
}

// handler runs a tool's operation and answers its text: a refusal is a
// tool error starting with its kind; an invalid call (a bad range, a
// missing field) too; an internal fault is a tool error saying so.
func (t *tools) handler(tl *ops.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var b strings.Builder
		p, err := tl.Params(req.Params.Arguments, engine.Caller{Session: t.sessionOf(), Agent: "mcp"}, t.key)
		var res any
		if err == nil {
			res, err = t.router.Call(ctx, tl.Op(), p)
		}
		for _, n := range t.router.Notices() {
			fmt.Fprintf(&b, "warning: %s\n", n)
		}
		switch {
		case err != nil && result.KindOf(err) == result.InvalidParams:
			fmt.Fprintf(&b, "invalid_params: %s\n", result.Message(err))
			return toolError(b.String()), nil
		case err != nil:
			fmt.Fprintf(&b, "internal error: %v\n", err)
			return toolError(b.String()), nil
		}
		b.WriteString(tl.Op().Text(res))
		out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
		out.IsError = !tl.Op().Outcome(res).OK
		return out, nil
	}
}

func toolError(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: true}
}

// key turns a tool path (relative to the workspace root, or absolute) into
// a URI. What the path names is the call's admission step to judge (and
// audit), outside the workspace included.
func (t *tools) key(path string) workspace.Key { return t.router.Key(filepath.FromSlash(path)) }
