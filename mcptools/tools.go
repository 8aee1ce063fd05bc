// Package mcptools is sightline's MCP server: the agent tools of PROTOCOL
// section 9 (sightline_read, sightline_edit, sightline_apply_blocks,
// sightline_write, sightline_ledger, sightline_summary) over the official Go
// SDK. The tools run the same engines as the CLI and the language server,
// through package backend: on a running language server of the workspace
// when there is one, else on disk. Answers are text a model can act on;
// refusals are tool errors (isError) carrying the refusal's message, exact
// ranges, expanded lines and fresh refs.
package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sightline-lsp/sightline/backend"
	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
	"github.com/sightline-lsp/sightline/workspace"
)

// Options configure the server.
type Options struct {
	Backend *backend.Backend
	// Session is the session of a call that names none.
	Session string
	Version string
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
	t := &tools{b: o.Backend, session: o.Session}
	if t.session == "" {
		t.session = "default"
	}
	for _, d := range t.defs() {
		s.AddTool(d.tool, d.handler)
	}
	return s
}

type tools struct {
	b       *backend.Backend
	session string
}

type def struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

func ptr[T any](v T) *T { return &v }

// annotations say truthfully what a tool does to the files: reads only
// record what the model was shown (sightline's own ledger), never a file.
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func writes(title string, destructive bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: ptr(destructive), OpenWorldHint: ptr(false)}
}

// typed adapts a handler of decoded arguments to the SDK's raw handler:
// arguments that do not decode are a tool error the model can fix.
func typed[In any](name string, f func(ctx context.Context, in In) (*mcp.CallToolResult, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return toolError(fmt.Sprintf("invalid arguments for %s: %v. See the tool's input schema.", name, err)), nil
		}
		return f(ctx, in)
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolError(s string) *mcp.CallToolResult {
	r := text(s)
	r.IsError = true
	return r
}

// answer renders an outcome: a refusal is a tool error starting with its
// kind; an invalid call (a bad range, a missing field) too; an internal
// fault is a tool error saying so.
func (t *tools) answer(out handlers.Outcome, err error, refusal, ok func(*strings.Builder)) *mcp.CallToolResult {
	var b strings.Builder
	for _, n := range t.b.Notices() {
		fmt.Fprintf(&b, "warning: %s\n", n)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	switch {
	case err != nil && result.KindOf(err) == result.InvalidParams:
		fmt.Fprintf(&b, "invalid_params: %s\n", result.Message(err))
		return toolError(b.String())
	case err != nil:
		fmt.Fprintf(&b, "internal error: %v\n", err)
		return toolError(b.String())
	case !out.OK:
		fmt.Fprintf(&b, "%s: %s\n", out.Error, out.Message)
		if refusal != nil {
			refusal(&b)
		}
		return toolError(b.String())
	}
	ok(&b)
	return text(b.String())
}

// resolve turns a tool path (relative to the workspace root, or absolute)
// into a URI. Only a missing path is refused here; what the path names is
// the call's admission step to judge (and audit), outside the workspace
// included.
func (t *tools) resolve(path string) (workspace.Key, *mcp.CallToolResult) {
	if strings.TrimSpace(path) == "" {
		return "", toolError("invalid_params: path is required: a file path relative to the workspace root.")
	}
	return t.b.Key(filepath.FromSlash(path)), nil
}

func (t *tools) caller(session string) handlers.Caller {
	if session == "" {
		session = t.session
	}
	return handlers.Caller{Session: session, Agent: "mcp"}
}

// guardDetail prints what a guard refusal returned: the expanded lines.
func guardDetail(b *strings.Builder, g handlers.GuardRefusal) {
	if g.Expanded != "" {
		fmt.Fprintf(b, "expanded (%s, now counted as read):\n%s", ledger.List(g.ExpandedRanges), g.Expanded)
	}
}
