package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

// runPatch applies a unified diff or a V4A patch from standard input, all
// files or none. Like edit blocks, a patch names files relative to the
// workspace root, as the repository does.
func runPatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("patch", flag.ContinueOnError)
	yes := approvalFlag(fs)
	dryRun := fs.Bool("dry-run", false, "check every file; write nothing")
	merge := fs.Bool("merge", false, "apply a clean three-way merge of hunks that no longer apply, once approved (asked on the terminal, or --yes)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session whose ledger guards the edits")
	agent := fs.String("agent", "", "agent role inside the session")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: sightline patch [--dry-run] [--merge [--yes]] [--json] < PATCH  (unified diff or *** Begin Patch; paths relative to the workspace root)")
		return exitUsage
	}
	text, err := io.ReadAll(io.LimitReader(stdin, engine.MaxWriteSize+1))
	if err != nil {
		fmt.Fprintf(stderr, "sightline patch: reading standard input: %v\n", err)
		return exitUsage
	}
	if len(text) > engine.MaxWriteSize {
		fmt.Fprintf(stderr, "sightline patch: the patch is over %d bytes\n", engine.MaxWriteSize)
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline patch: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	o := output{name: "patch", stdout: stdout, stderr: stderr, json: *asJSON, pretty: *pretty}
	return o.call(ctx, rt, ops.ApplyPatch, engine.PatchParams{Caller: engine.Caller{Session: *session, Agent: *agent}, Text: string(text), DryRun: *dryRun, Merge: *merge})
}
