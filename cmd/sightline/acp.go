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
	"syscall"
	"time"

	"github.com/sightline-lsp/sightline/acp"
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
	root := fs.String("root", "", "workspace root (default: the nearest folder above the working directory holding .git)")
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
	dir := workspaceRoot(wd)
	if *root != "" {
		dir = *root
	}
	opt := acp.Options{Log: stderr}
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
					return []string{"mcp", "--root", dir, "--session", session}
				}
				return []string{"mcp", "--root", dir, "--session-file", file}
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
	b := newRouter(dir, stderr, 500*time.Millisecond, nil)
	opt.Runner = b
	err = acp.New(opt).Run(ctx, stdin, stdout, agentIn, agentOut)
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "sightline acp: %v\n", err)
	}
	agentIn.Close()
	code := waitAgent(cmd, stderr)
	if err := b.Close(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintf(stderr, "sightline acp: saving the ledger: %v\n", err)
	}
	return code
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
