package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

func runEdit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edit", flag.ContinueOnError)
	yes := approvalFlag(fs)
	editsFile := fs.String("edits", "", "file holding the JSON edits array, or - for standard input")
	fileHash := fs.String("file-hash", "", "refuse unless the file still has this hash (from read --json)")
	dryRun := fs.Bool("dry-run", false, "validate and show the diff; change nothing")
	full := fs.Bool("full-refresh", false, "answer with the whole file annotated, not just the edited window")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session whose ledger guards the edit")
	agent := fs.String("agent", "", "agent role inside the session")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 || *editsFile == "" {
		fmt.Fprintln(stderr, "usage: sightline edit PATH --edits FILE|- [--file-hash H] [--dry-run] [--json]")
		return exitUsage
	}
	var raw []byte
	var err error
	if *editsFile == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(*editsFile)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sightline edit: reading the edits: %v\n", err)
		return exitUsage
	}
	if !json.Valid(raw) {
		fmt.Fprintln(stderr, "sightline edit: the edits are not valid JSON (expected an array of edit objects)")
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline edit: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"edit", stdout, stderr, *asJSON, *pretty}
	key := rt.key(pos[0])
	return out.call(ctx, rt, ops.Edit, engine.EditParams{
		Caller:       engine.Caller{Session: *session, Agent: *agent},
		TextDocument: engine.TextDocument{URI: string(key)},
		FileHash:     *fileHash,
		Edits:        raw,
		DryRun:       *dryRun,
		FullRefresh:  *full,
	})
}

func runStats(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	limit := fs.Int("limit", 0, "count only the latest N audited calls")
	if _, ok := parseFlags(fs, args, stderr); !ok {
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline stats: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"stats", stdout, stderr, *asJSON, *pretty}
	return out.call(ctx, rt, ops.Stats, engine.StatsParams{Limit: *limit})
}
