package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
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
	p := engine.FilesParams{Caller: engine.Caller{Session: *session}, Globs: globs, Hash: *hash}
	if !*hash || *asJSON || machineRead(ctx) || !isTerminal(stderr) {
		return out.call(ctx, rt, ops.Files, p)
	}
	// Hashing a large tree takes a while: a person at a terminal sees how
	// far it has come; a program reading the output does not.
	prog := newTerminalProgress(stderr, "hashed %d of %d files")
	res, err := rt.Call(route.WithProgress(ctx, prog.report), ops.Files, p)
	prog.done()
	var o engine.Outcome
	if err == nil {
		o = ops.Files.Outcome(res)
	}
	body := func(w io.Writer) { io.WriteString(w, ops.Files.Body(res)) }
	return out.answer(res, o, err, body, body)
}
