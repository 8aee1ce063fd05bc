package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

// runApply reads model output from standard input as a stream, checks each
// edit block as soon as its ">>>> EDIT END" arrives, and writes them all
// when the output ends, all or none. Unlike a PATH
// argument, a block's path is relative to the workspace root, not the working
// directory: models write paths as the repository names them.
func runApply(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	yes := approvalFlag(fs)
	dryRun := fs.Bool("dry-run", false, "validate every block; write nothing")
	stage := fs.Bool("stage", false, "git add the files written")
	asJSON := fs.Bool("json", false, "print the results as JSON at the end")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session whose ledger guards the edits")
	agent := fs.String("agent", "", "agent role inside the session")
	pos, ok := parseFlags(fs, args, stderr)
	if !ok || len(pos) != 0 {
		fmt.Fprintln(stderr, "usage: sightline apply [--dry-run] [--stage] [--json] < model-output.txt  (block paths are relative to the workspace root)")
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline apply: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	run := rt.NewBlocks(ctx, engine.Caller{Session: *session, Agent: *agent}, *dryRun, *stage)
	buf := make([]byte, 32<<10)
	shown := map[int]string{} // the status each block was printed with
	for {
		n, err := stdin.Read(buf)
		if n > 0 {
			rs, werr := run.Write(buf[:n])
			if werr != nil {
				fmt.Fprintf(stderr, "sightline apply: %v\n", werr)
				return exitUsage
			}
			for _, r := range rs {
				if !*asJSON {
					printBlock(stdout, r)
					shown[r.Index] = r.Status
				}
			}
		}
		if errors.Is(err, io.EOF) || run.Overflowed() {
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "sightline apply: reading standard input: %v\n", err)
			return exitUsage
		}
	}
	res, err := run.Close()
	if err != nil {
		fmt.Fprintf(stderr, "sightline apply: %v\n", err)
		return exitUsage
	}
	if *asJSON {
		if err := writeJSON(stdout, res, *pretty); err != nil {
			fmt.Fprintf(stderr, "sightline apply: %v\n", err)
			return exitUsage
		}
	} else {
		// The blocks are written when the output ends: each block's final
		// status, where it is not the one printed as it arrived.
		for _, r := range res.Blocks {
			if shown[r.Index] != r.Status {
				printBlock(stdout, r)
			}
		}
		for _, w := range res.Warnings {
			io.WriteString(stderr, ops.WarningLine(w))
		}
		fmt.Fprintln(stdout, ops.Outside(res.Message))
	}
	if !res.OK {
		return exitRefused
	}
	return exitOK
}

func printBlock(w io.Writer, r engine.BlockResult) { io.WriteString(w, ops.BlockText(r)) }
