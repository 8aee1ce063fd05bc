package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sightline-lsp/sightline/handlers"
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
	env, err := openEnv(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline edit: %v\n", err)
		return exitUsage
	}
	defer env.Close(context.WithoutCancel(ctx))
	out := output{"edit", stdout, stderr, *asJSON, *pretty}
	key := env.key(pos[0])
	res, err := env.Edit(ctx, handlers.EditParams{
		Caller:       handlers.Caller{Session: *session, Agent: *agent},
		TextDocument: handlers.TextDocument{URI: string(key)},
		FileHash:     *fileHash,
		Edits:        raw,
		DryRun:       *dryRun,
		FullRefresh:  *full,
	})
	return out.answer(res, res.Outcome.WithWarnings(res.Warnings), err, func(w io.Writer) {
		for _, l := range res.FreshRefs {
			fmt.Fprintln(w, l)
		}
		io.WriteString(w, res.Expanded)
	}, func(w io.Writer) {
		fmt.Fprintln(w, res.Message)
		io.WriteString(w, res.Diff)
		if res.Applied && res.WindowRange != nil {
			// The window counts as read (PROTOCOL section 5): show it, with the
			// fresh refs the next edit can use.
			fmt.Fprintf(w, "%s now:\n", res.WindowRange.Word())
			io.WriteString(w, res.Window)
		}
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
	env, err := openEnv(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline stats: %v\n", err)
		return exitUsage
	}
	defer env.Close(context.WithoutCancel(ctx))
	res, err := env.Stats(ctx, handlers.StatsParams{Limit: *limit})
	if err != nil {
		fmt.Fprintf(stderr, "sightline stats: %v\n", err)
		return exitUsage
	}
	if *asJSON {
		if err := writeJSON(stdout, res, *pretty); err != nil {
			fmt.Fprintf(stderr, "sightline stats: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "%d calls audited (%s)\n", res.Calls, res.Source)
	for name, m := range res.Methods {
		fmt.Fprintf(stdout, "%-20s calls %d  success %d  stale %d  refused %d  error %d  p50 %.2fms  p99 %.2fms\n",
			name, m.Calls, m.Success, m.Stale, m.Refused, m.Error, m.P50Ms, m.P99Ms)
	}
	g := res.Guard
	fmt.Fprintf(stdout, "guard: %d checks, %d trips (%.1f%%); auto-expand %d, resolved by the next edit %d (%.1f%%)\n",
		g.Checks, g.Trips, 100*g.TripRate, g.Expanded, g.Resolved, 100*g.ResolutionRate)
	return exitOK
}
