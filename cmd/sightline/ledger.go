package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/result"
)

func runLedger(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	session := fs.String("session", "default", "session to report")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) > 1 {
		fmt.Fprintln(stderr, "usage: sightline ledger [PATH] [--json] [--session S]")
		return exitUsage
	}
	env, err := openEnv(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "sightline ledger: %v\n", err)
		return exitUsage
	}
	defer env.Close(context.WithoutCancel(ctx))
	p := handlers.LedgerParams{Caller: handlers.Caller{Session: *session}}
	if len(pos) == 1 {
		key, err := env.WS.Resolve(pos[0])
		if err != nil {
			o := handlers.Refusal(err)
			return refuse(stdout, stderr, *asJSON, o, handlers.LedgerResult{Outcome: o})
		}
		p.TextDocument = &handlers.TextDocument{URI: string(key)}
	} else {
		// Documents restore lazily, on first sight: look at every document the
		// database holds for this session so the report is complete.
		env.LoadSession(ctx, *session)
	}
	res, err := env.LedgerReport(ctx, p)
	if err != nil {
		fmt.Fprintf(stderr, "sightline ledger: %v\n", result.Message(err))
		return exitUsage
	}
	if !res.OK {
		return refuse(stdout, stderr, *asJSON, res.Outcome, res)
	}
	if *asJSON {
		writeJSON(stdout, res)
		return exitOK
	}
	if len(res.Documents) == 0 {
		fmt.Fprintf(stdout, "Session %s has read nothing.\n", res.Session)
		return exitOK
	}
	for _, d := range res.Documents {
		fmt.Fprintf(stdout, "%s  %s  %d lines", d.Path, d.State, d.TotalLines)
		for _, part := range []struct {
			name string
			rs   []ledger.Range
		}{{"read", d.Read}, {"authored", d.Authored}, {"stale", d.Stale}, {"unread", d.Unread}} {
			if len(part.rs) > 0 {
				fmt.Fprintf(stdout, "  %s %s", part.name, ranges(part.rs))
			}
		}
		fmt.Fprintln(stdout)
	}
	return exitOK
}

func ranges(rs []ledger.Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.Start == r.End {
			parts[i] = fmt.Sprint(r.Start)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.Start, r.End)
		}
	}
	return strings.Join(parts, ",")
}
