package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/ledger"
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
	env, err := openEnv(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline ledger: %v\n", err)
		return exitUsage
	}
	defer env.Close(context.WithoutCancel(ctx))
	out := output{"ledger", stdout, stderr, *asJSON, *pretty}
	p := handlers.LedgerParams{Caller: handlers.Caller{Session: *session}}
	if len(pos) == 1 {
		key, err := env.resolve(pos[0])
		if err != nil {
			return out.refuse(err, func(o handlers.Outcome) any { return handlers.LedgerResult{Outcome: o} })
		}
		p.TextDocument = &handlers.TextDocument{URI: string(key)}
	}
	res, err := env.Ledger(ctx, p)
	return out.answer(res, res.Outcome, err, nil, func(w io.Writer) {
		if len(res.Documents) == 0 {
			fmt.Fprintf(w, "Session %s has read nothing.\n", res.Session)
			return
		}
		for _, d := range res.Documents {
			fmt.Fprintf(w, "%s  %s  %d lines", d.Path, d.State, d.TotalLines)
			for _, part := range []struct {
				name string
				rs   []ledger.Range
			}{{"read", d.Read}, {"authored", d.Authored}, {"stale", d.Stale}, {"unread", d.Unread}} {
				if len(part.rs) > 0 {
					fmt.Fprintf(w, "  %s %s", part.name, ranges(part.rs))
				}
			}
			fmt.Fprintln(w)
		}
	})
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

// linesWord renders a range as the answers do: "Line 7" or "Lines 101-120".
func linesWord(r ledger.Range) string {
	if r.Start == r.End {
		return fmt.Sprintf("Line %d", r.Start)
	}
	return fmt.Sprintf("Lines %d-%d", r.Start, r.End)
}
