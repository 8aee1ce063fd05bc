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
	"path/filepath"
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
// the editor that launched sightline: what the agent reads and writes
// through the editor is judged first, recorded and guarded, and what
// cannot be judged is refused (package acp). It exits with the agent's exit
// code.
func runACP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace root (default: the nearest folder holding .git or .sightline.json above the cwd of the first session the editor creates or loads)")
	noMCP := fs.Bool("no-mcp", false, "do not add sightline's MCP server to the agent's sessions")
	mcpName := fs.String("mcp-name", "sightline", "the name of sightline's MCP server in the sessions")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		fmt.Fprintln(stderr, acpUsage)
		return exitUsage
	}
	agentArgs := fs.Args()
	ws := &acpWorkspace{stderr: stderr}
	if *root != "" {
		abs, err := filepath.Abs(*root)
		if err != nil {
			fmt.Fprintf(stderr, "sightline acp: --root: %v\n", err)
			return exitUsage
		}
		ws.root = abs
	}
	defer func() {
		if err := ws.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(stderr, "sightline acp: saving the ledger: %v\n", err)
		}
	}()
	opt := acp.Options{Log: stderr, Router: ws, OnSession: ws.session}
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
				root := ws.Root()
				if root == "" {
					return nil // no workspace named yet: no root to give it
				}
				if session != "" {
					return []string{"mcp", "--root", root, "--session", session}
				}
				return []string{"mcp", "--root", root, "--session-file", file}
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
// the one holding the working directory of the first session the editor
// creates or loads (the editor's project: an editor may start the agent
// anywhere). Only those fix it: nothing the agent sends does, and until
// then no call is made (the proxy judges nothing before a session).
type acpWorkspace struct {
	stderr io.Writer

	mu     sync.Mutex
	root   string // "" until fixed
	router *route.Router
}

// session is told each session's working directory; the first fixes the
// workspace unless --root did.
func (w *acpWorkspace) session(cwd string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.root == "" {
		w.root = workspaceRoot(filepath.Clean(cwd))
	}
}

// Root is the workspace root, "" while none is fixed.
func (w *acpWorkspace) Root() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.root
}

// errNoWorkspace: a call before the workspace is fixed, which the proxy
// does not make; refused rather than run in a guessed workspace.
var errNoWorkspace = errors.New("no workspace yet: the editor has not created or loaded a session")

func (w *acpWorkspace) routed() (*route.Router, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.root == "" {
		return nil, errNoWorkspace
	}
	if w.router == nil {
		w.router = newRouter(w.root, w.stderr, 500*time.Millisecond, nil, false, false)
	}
	return w.router, nil
}

func (w *acpWorkspace) Call(ctx context.Context, op ops.Op, p any) (any, error) {
	r, err := w.routed()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Method(), err)
	}
	return r.Call(ctx, op, p)
}

// Key is the document key of an absolute path (the router's, which needs
// no workspace for one).
func (w *acpWorkspace) Key(path string) workspace.Key { return workspace.FromPath(path) }

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
