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
	"github.com/sightline-lsp/sightline/internal/procgroup"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/workspace"
)

const acpUsage = "usage: sightline acp [--root DIR] [--no-mcp] [--mcp-name NAME] [--no-hooks] -- AGENT [ARGS...]"

// acpExitWait bounds the wait for the agent to exit once the connection
// has ended, before its process group is stopped (SIGTERM), then killed
// acpGroupGrace later.
const (
	acpExitWait   = 3 * time.Second
	acpGroupGrace = 2 * time.Second
)

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
	noHooks := fs.Bool("no-hooks", false, "do not give an agent built on Claude Code sightline's hooks with its sessions")
	if captured(fs, stderr) {
		return exitUsage
	}
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
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "sightline acp: where is this program? %v\n", err)
		return exitUsage
	}
	// An agent built on Claude Code gets the hook door's hooks with its
	// sessions: its own tools are judged in every permission mode.
	if !*noHooks {
		opt.ClaudeHooks = claudeHookGroups(exe)
	}
	if !*noMCP {
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
	// A process the agent leaves running would hold sightline's standard
	// error open: Wait gives up on copying it after this bound.
	cmd.WaitDelay = acpGroupGrace
	agentIn, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintf(stderr, "sightline acp: %v\n", err)
		return exitUsage
	}
	// The agent's output is a pipe of our own, not StdoutPipe: the agent's
	// exit is waited for while the proxy still reads what it wrote.
	agentOut, agentOutW, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "sightline acp: %v\n", err)
		return exitUsage
	}
	defer agentOut.Close()
	cmd.Stdout = agentOutW
	group, err := procgroup.Start(cmd)
	agentOutW.Close()
	if err != nil {
		fmt.Fprintf(stderr, "sightline acp: starting the agent %q: %v\n", agentArgs[0], err)
		return exitUsage
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
		// The agent's exit ends the session: what it started goes too,
		// and with it the last writer of its output (the proxy's end).
		group.Stop(acpGroupGrace)
	}()
	// A peer gone is a write error to handle, not a signal that ends the
	// proxy before it stops the agent.
	signal.Ignore(syscall.SIGPIPE)
	err = acp.New(opt).Run(ctx, stdin, stdout, agentIn, agentOut)
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "sightline acp: %v\n", err)
	}
	agentIn.Close()
	// The editor gone and the agent's output still open after Run's grace:
	// the agent has had its time.
	wait := acpExitWait
	if errors.Is(err, acp.ErrEditorGone) {
		wait = 0
	}
	return endAgent(ctx, cmd, group, exited, &waitErr, wait, stderr)
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

// endAgent ends the session's processes: it gives the agent, its input
// closed, wait to exit (none when a signal ended sightline: the user wants
// it gone), then stops its whole process group (what it
// started, Gemini CLI's relaunched self, the MCP servers), SIGTERM then
// SIGKILL after acpGroupGrace, every wait bounded. It returns the agent's
// exit code (128 + the signal's number when a signal ended it).
func endAgent(ctx context.Context, cmd *exec.Cmd, group *procgroup.Group, exited <-chan struct{}, waitErr *error, wait time.Duration, stderr io.Writer) int {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-exited:
	case <-ctx.Done():
	case <-t.C:
		fmt.Fprintf(stderr, "sightline acp: the agent did not exit; stopping it\n")
	}
	if !group.Stop(acpGroupGrace) {
		fmt.Fprintf(stderr, "sightline acp: the agent's processes did not all end when killed\n")
	}
	select {
	case <-exited:
	case <-time.After(acpGroupGrace):
		fmt.Fprintf(stderr, "sightline acp: the agent did not end; leaving it\n")
		return exitUsage
	}
	var ee *exec.ExitError
	if err := *waitErr; err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		fmt.Fprintf(stderr, "sightline acp: waiting for the agent: %v\n", err)
		return exitUsage
	}
	st := cmd.ProcessState
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}
