package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

func runWrite(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("write", flag.ContinueOnError)
	yes := approvalFlag(fs)
	mode := fs.String("mode", "", "create, edit, append or overwrite")
	oldText := fs.String("old-text", "", "edit mode: the exact text to replace (must occur once)")
	expected := fs.String("expected-version", "", "refuse unless the file still has this hash")
	dryRun := fs.Bool("dry-run", false, "show the diff; write nothing")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session whose ledger guards the write")
	agent := fs.String("agent", "", "agent role inside the session")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 1 || *mode == "" {
		fmt.Fprintln(stderr, "usage: sightline write PATH --mode create|edit|append|overwrite [--old-text T] [--expected-version H] < content")
		return exitUsage
	}
	content, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "sightline write: reading the content: %v\n", err)
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline write: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"write", stdout, stderr, *asJSON, *pretty}
	key := rt.key(pos[0])
	c := string(content)
	p := engine.WriteParams{
		Caller:          engine.Caller{Session: *session, Agent: *agent},
		TextDocument:    engine.TextDocument{URI: string(key)},
		Mode:            *mode,
		Content:         &c,
		ExpectedVersion: *expected,
		DryRun:          *dryRun,
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "old-text" {
			p.OldText = oldText
		}
	})
	return out.call(ctx, rt, ops.Write, p)
}
