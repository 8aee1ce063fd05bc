package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sightline-lsp/sightline/mcptools"
)

// runMCP serves the agent tools over MCP on stdio (what terminal agents
// launch). The workspace is the one the process starts in; calls go to a
// running language server of it when there is one, else to the disk.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	session := fs.String("session", defaultSession(), "session of calls that name none")
	sessionFile := fs.String("session-file", "", "read the session of calls that name none from this file once it exists (until then --session): a proxy that learns the name later writes it there")
	root := fs.String("root", "", "workspace root (default: the nearest folder above the working directory holding .git or .sightline.json)")
	if pos, ok := parseFlags(fs, args, stderr); !ok || len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: sightline mcp [--session S | --session-file F] [--root DIR]")
		return exitUsage
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "sightline mcp: working directory: %v\n", err)
		return exitUsage
	}
	dir := workspaceRoot(wd)
	if *root != "" {
		dir = *root
	}
	b := newRouter(dir, stderr, 500*time.Millisecond, nil, false, false)
	defer func() {
		if err := b.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(stderr, "sightline mcp: saving the ledger: %v\n", err)
		}
	}()
	srv := mcptools.New(mcptools.Options{Router: b, Session: *session, SessionFile: *sessionFile, Version: versionString()})
	// A line the SDK cannot decode would end the session: the filter
	// answers those itself, and bounds a line (the filter's limit, above the
	// SDK's default, lets the largest write through).
	in, out := mcptools.Filter(stdin, stdout, mcptools.MaxLine)
	t := &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "sightline mcp: %v\n", err)
		return exitUsage
	}
	return exitOK
}
