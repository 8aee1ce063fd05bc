package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
)

func runFiles(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("files", flag.ContinueOnError)
	hash := fs.Bool("hash", false, "compute every file's hash (else only those remembered)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	session := fs.String("session", "default", "session whose ledger state is shown")
	globs, ok := parseFlags(fs, args, stderr)
	if !ok {
		fmt.Fprintln(stderr, "usage: sightline files [GLOB...] [--hash] [--json] [--session S]")
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, nil)
	if err != nil {
		fmt.Fprintf(stderr, "sightline files: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"files", stdout, stderr, *asJSON, false}
	return out.call(ctx, rt, ops.Files, engine.FilesParams{Caller: engine.Caller{Session: *session}, Globs: globs, Hash: *hash})
}
