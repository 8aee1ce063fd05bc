package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

// fileCommand opens the router of a command on one PATH and resolves
// it; a refusal of the path is answered through out.
func fileCommand(ctx context.Context, name string, pos []string, ap engine.Approver, stderr io.Writer) (*cliRouter, string, func(), bool) {
	rt, err := openRouter(ctx, stderr, ap)
	if err != nil {
		fmt.Fprintf(stderr, "sightline %s: %v\n", name, err)
		return nil, "", nil, false
	}
	closeRouter := func() {
		if err := rt.Close(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(stderr, "sightline: saving the ledger: %v\n", err)
		}
	}
	return rt, pos[0], closeRouter, true
}

func runHistory(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	session := fs.String("session", "default", "session of the call (for the audit log)")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: sightline history PATH [--json]")
		return exitUsage
	}
	rt, path, done, ok := fileCommand(ctx, "history", pos, nil, stderr)
	if !ok {
		return exitUsage
	}
	defer done()
	out := output{"history", stdout, stderr, *asJSON, false}
	key := rt.key(path)
	return out.call(ctx, rt, ops.History, engine.HistoryParams{Caller: engine.Caller{Session: *session}, TextDocument: engine.TextDocument{URI: string(key)}})
}

func runDiff(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	yes := approvalFlag(fs)
	from := fs.String("from", "", "version id (default: the version before the latest)")
	to := fs.String("to", "", "version id or current (default: current)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	session := fs.String("session", "default", "session of the call")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: sightline diff PATH [--from V] [--to V] [--json]")
		return exitUsage
	}
	rt, path, done, ok := fileCommand(ctx, "diff", pos, newApprover(yes, stdin, stderr), stderr)
	if !ok {
		return exitUsage
	}
	defer done()
	out := output{"diff", stdout, stderr, *asJSON, false}
	key := rt.key(path)
	return out.call(ctx, rt, ops.Diff, engine.DiffParams{Caller: engine.Caller{Session: *session}, TextDocument: engine.TextDocument{URI: string(key)}, From: *from, To: *to})
}

func runRollback(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rollback", flag.ContinueOnError)
	yes := approvalFlag(fs)
	dry := fs.Bool("dry-run", false, "show the diff; write nothing")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	session := fs.String("session", "default", "session whose ledger guards the rollback")
	agent := fs.String("agent", "", "agent role inside the session")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 2 {
		fmt.Fprintln(stderr, "usage: sightline rollback PATH VERSION [--dry-run] [--json]")
		return exitUsage
	}
	v, err := strconv.ParseInt(pos[1], 10, 64)
	if err != nil || v <= 0 {
		fmt.Fprintf(stderr, "sightline rollback: %q is not a version id (sightline history PATH lists them)\n", pos[1])
		return exitUsage
	}
	rt, path, done, ok := fileCommand(ctx, "rollback", pos, newApprover(yes, stdin, stderr), stderr)
	if !ok {
		return exitUsage
	}
	defer done()
	out := output{"rollback", stdout, stderr, *asJSON, false}
	key := rt.key(path)
	return out.call(ctx, rt, ops.Rollback, engine.RollbackParams{Caller: engine.Caller{Session: *session, Agent: *agent}, TextDocument: engine.TextDocument{URI: string(key)}, Version: v, DryRun: *dry})
}
