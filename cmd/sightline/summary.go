package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/config"
	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
)

func runSummary(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	yes := approvalFlag(fs)
	extractor := fs.String("extract", "", "signature extractor: regex or treesitter (default: the extract setting)")
	maxChars := fs.Int("max-chars", 0, "excerpt size in characters (default 2000)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session whose ledger records the excerpt as read")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: sightline summary PATH [--extract regex|treesitter] [--json]")
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline summary: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"summary", stdout, stderr, *asJSON, *pretty}
	key := rt.key(pos[0])
	p := engine.SummaryParams{Caller: engine.Caller{Session: *session}, TextDocument: engine.TextDocument{URI: string(key)}, MaxChars: *maxChars}
	if *extractor != "" {
		// Another extractor than the server's: this summary is made here.
		res, err := route.CallHere(ctx, rt.Router, ops.Summary, p, func(cfg *config.Config) error {
			cfg.Extract = *extractor
			if err := cfg.Validate(); err != nil {
				return fmt.Errorf("--extract: %w", err)
			}
			return nil
		})
		return out.answer(res, res.Outcome, err, nil, func(w io.Writer) { io.WriteString(w, ops.Summary.Body(res)) })
	}
	return out.call(ctx, rt, ops.Summary, p)
}
