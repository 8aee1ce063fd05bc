package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
)

func runSummary(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	yes := approvalFlag(fs)
	engine := fs.String("extract", "", "signature extractor: regex or treesitter (default: the extract setting)")
	maxChars := fs.Int("max-chars", 0, "excerpt size in characters (default 2000)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session whose ledger records the excerpt as read")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: sightline summary PATH [--extract regex|treesitter] [--json]")
		return exitUsage
	}
	env, err := openEnv(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline summary: %v\n", err)
		return exitUsage
	}
	defer env.Close(context.WithoutCancel(ctx))
	out := output{"summary", stdout, stderr, *asJSON, *pretty}
	key := env.key(pos[0])
	p := handlers.SummaryParams{Caller: handlers.Caller{Session: *session}, TextDocument: handlers.TextDocument{URI: string(key)}, MaxChars: *maxChars}
	var res handlers.SummaryResult
	if *engine != "" {
		// Another extractor than the server's: this summary is made here.
		local, err := env.Local(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "sightline summary: %v\n", err)
			return exitUsage
		}
		cfg := local.Config()
		cfg.Extract = *engine
		if err := cfg.Validate(); err != nil {
			fmt.Fprintf(stderr, "sightline summary: --extract: %v\n", err)
			return exitUsage
		}
		local.SetConfig(cfg)
		res, err = local.Summary(ctx, p)
	} else {
		res, err = env.Summary(ctx, p)
	}
	return out.answer(res, res.Outcome, err, nil, func(w io.Writer) {
		fmt.Fprintf(w, "%s  %s  %d lines\n", res.Path, res.Language, res.TotalLines)
		for _, s := range res.Symbols {
			where := fmt.Sprint(s.Start)
			if s.End > s.Start {
				where = fmt.Sprintf("%d-%d", s.Start, s.End)
			}
			fmt.Fprintf(w, "  %-9s %-10s %s\n", where, s.Kind, s.Signature)
		}
		if r := res.ExcerptRange; r != nil {
			// The excerpt counts as read (PROTOCOL section 5): show it, annotated
			// like a read, so its refs can be used.
			fmt.Fprintf(w, "%s:\n", r.Word())
			n := r.Start
			for l := range strings.Lines(res.Excerpt) {
				if masked(res.Redacted, n) {
					// Not the line's real content: no ref to copy.
					fmt.Fprintf(w, "%d:????|%s\n", n, strings.TrimSuffix(l, "\n"))
				} else {
					fmt.Fprintf(w, "%s\n", hashline.AppendLine(nil, n, strings.TrimSuffix(l, "\n")))
				}
				n++
			}
		}
	})
}

// masked reports whether line n is in one of the redacted ranges.
func masked(rs []ledger.Range, n int) bool {
	for _, r := range rs {
		if r.Start <= n && n <= r.End {
			return true
		}
	}
	return false
}
