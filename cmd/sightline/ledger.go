package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

func runLedger(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session to report")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) > 1 {
		fmt.Fprintln(stderr, "usage: sightline ledger [PATH] [--json] [--session S]")
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline ledger: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"ledger", stdout, stderr, *asJSON, *pretty}
	p := engine.LedgerParams{Caller: engine.Caller{Session: *session}}
	if len(pos) == 1 {
		key := rt.key(pos[0])
		p.TextDocument = &engine.TextDocument{URI: string(key)}
	}
	return out.call(ctx, rt, ops.Ledger, p)
}
