package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

// runOpen asks the running editor of the workspace (through its language
// server's socket) to show a document at a line.
func runOpen(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("open", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: sightline open PATH[:LINE] [--json]")
		return exitUsage
	}
	path, rng, err := parsePathRange(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "sightline open: %v\n", err)
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline open: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"open", stdout, stderr, *asJSON, false}
	key := rt.key(path)
	p := engine.OpenParams{TextDocument: engine.TextDocument{URI: string(key)}}
	if rng != nil {
		p.Line = rng.Start
	}
	return out.call(ctx, rt, ops.Open, p)
}
