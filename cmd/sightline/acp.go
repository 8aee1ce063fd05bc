package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/sightline-lsp/sightline/acp"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/workspace"
)

const acpUsage = "usage: sightline acp [--root DIR] [--no-mcp] [--mcp-name NAME] -- AGENT [ARGS...]"

// acpExitWait bounds the wait for the agent to exit once the connection
// has ended, before it is stopped (SIGTERM), then killed.
const acpExitWait = 3 * time.Second

// runACP runs an ACP agent as its own subprocess and stands between it and
// the editor that launched sightline: every message is forwarded, and what
// the agent reads and writes through the editor is recorded and guarded
// (package acp). It exits with the agent's exit code.
func runACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace root (default: the nearest folder holding .git above the first session's cwd, else above the working directory)")
	noMCP := fs.Bool("no-mcp", false, "do not add sightline's MCP server to the agent's sessions")
	mcpName := fs.String("mcp-name", "sightline", "the name of sightline's MCP server in the sessions")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(stderr, acpUsage)
		return exitUsage
	}
	agentArgs := fs.Args()
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "sightline acp: working directory: %v\n", err)
		return exitUsage
	}
	ws := &acpWorkspace{fixed: *root != "", root: *root, stderr: stderr}
	if !ws.fixed {
		ws.root = workspaceRoot(wd)
	}
	defer func() {
		if err := ws.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(stderr, "sightline acp: saving the ledger: %v\n", err)
		}
	}()
	opt := acp.Options{Log: stderr, Runner: ws, OnSession: ws.session}
	if !*noMCP {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "sightline acp: where is this program? %v\n", err)
			return exitUsage
		}
		names, err := os.MkdirTemp("", "sightline-acp-")
		if err != nil {
			fmt.Fprintf(stderr, "sightline acp: a folder for the sessions' names: %v\n", err)
			return exitUsage
		}
		defer os.RemoveAll(names)
		opt.MCP = &acp.MCPServer{Name: *mcpName, Command: exe, SessionDir: names,
			Args: func(session, file string) []string {
				if session != "" {
					return []string{"mcp", "--root", ws.Root(), "--session", session}
				}
				return []string{"mcp", "--root", ws.Root(), "--session-file", file}
			}}
	}
	cmd := exec.Command(agentArgs[0], agentArgs[1:]...)
	cmd.Stderr = stderr
	agentIn, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintf(stderr, "sightline acp: %v\n", err)
		return exitUsage
	}
	agentOut, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintf(stderr, "sightline acp: %v\n", err)
		return exitUsage
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "sightline acp: starting the agent %q: %v\n", agentArgs[0], err)
		return exitUsage
	}
	// A peer gone is a write error to handle, not a signal that ends the
	// proxy before it stops the agent.
	signal.Ignore(syscall.SIGPIPE)
	err = acp.New(opt).Run(ctx, stdin, stdout, agentIn, agentOut)
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "sightline acp: %v\n", err)
	}
	agentIn.Close()
	return waitAgent(cmd, stderr)
}

// acpWorkspace routes the proxy's calls for one workspace: --root, else
// the one holding the first session's working directory (the editor's
// project: an editor may start the agent anywhere), else the one holding
// the proxy's working directory. It is fixed at the first call.
type acpWorkspace struct {
	stderr io.Writer

	mu     sync.Mutex
	root   string
	fixed  bool
	router *route.Router
}

// session is told each session's working directory; the first fixes the
// workspace unless --root did.
func (w *acpWorkspace) session(cwd string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.fixed {
		w.root, w.fixed = workspaceRoot(cwd), true
	}
}

// Root is the workspace root, fixed from now on.
func (w *acpWorkspace) Root() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fixed = true
	return w.root
}

func (w *acpWorkspace) routed() *route.Router {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fixed = true
	if w.router == nil {
		w.router = newRouter(w.root, w.stderr, 500*time.Millisecond, nil)
	}
	return w.router
}

func (w *acpWorkspace) Call(ctx context.Context, op *ops.Op, p any) (any, error) {
	return w.routed().Call(ctx, op, p)
}

func (w *acpWorkspace) Key(path string) workspace.Key { return w.routed().Key(path) }

// Close flushes the ledger, if a call was made.
func (w *acpWorkspace) Close(ctx context.Context) error {
	w.mu.Lock()
	r := w.router
	w.mu.Unlock()
	if r == nil {
		return nil
	}
	for _, n := range r.Notices() {
		fmt.Fprintf(w.stderr, "sightline acp: warning: %s\n", n)
	}
	return r.Close(ctx)
}

// waitAgent waits for the agent to exit, stopping it if it does not, and
// returns its exit code (128 + the signal's number when a signal ended it).
func waitAgent(cmd *exec.Cmd, stderr io.Writer) int {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(acpExitWait):
		fmt.Fprintf(stderr, "sightline acp: the agent did not exit; stopping it\n")
		if cmd.Process.Signal(syscall.SIGTERM) != nil {
			cmd.Process.Kill()
		}
		select {
		case err = <-done:
		case <-time.After(acpExitWait):
			cmd.Process.Kill()
			err = <-done
		}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(stderr, "sightline acp: waiting for the agent: %v\n", err)
		return exitUsage
	}
	st := cmd.ProcessState
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
