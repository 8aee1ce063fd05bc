package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/ledger"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/route"
	"github.com/sightline-lsp/sightline/version"
)

func versionString() string { return version.String() }

func runRead(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	raw := fs.Bool("raw", false, "plain lines, without hashline annotation")
	budget := fs.Int("budget", 0, "character budget (default 24000)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pretty := prettyFlag(fs)
	session := fs.String("session", defaultSession(), "session whose ledger records the read")
	agent := fs.String("agent", "", "agent role inside the session")
	yes := approvalFlag(fs)
	pos, ok := parseFlags(fs, args, stderr)
	if !ok {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: sightline read PATH[:START-END] | PATH#SYMBOL [--raw] [--budget N] [--json]")
		return exitUsage
	}
	arg, symbol := splitSymbol(pos[0])
	path, rng, err := parsePathRange(arg)
	if err != nil {
		fmt.Fprintf(stderr, "sightline read: %v\n", err)
		return exitUsage
	}
	rt, err := openRouter(ctx, stderr, newApprover(yes, stdin, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "sightline read: %v\n", err)
		return exitUsage
	}
	defer rt.Close(context.WithoutCancel(ctx))
	out := output{"read", stdout, stderr, *asJSON, *pretty}
	key := rt.key(path)
	p := engine.ReadParams{Caller: engine.Caller{Session: *session, Agent: *agent}, TextDocument: engine.TextDocument{URI: string(key)}, Range: rng, Symbol: symbol}
	if *raw {
		f := false
		p.Annotate = &f
	}
	if *budget > 0 {
		p.Budget = &struct {
			Chars int `json:"chars"`
		}{*budget}
	}
	// On disk, a range of a large file is read without building all of it
	// (engine.Env.ReadDisk); through a server, its document is read.
	res, err := route.Do(ctx, rt.Router, ops.Read, p)
	return out.answer(res, res.Outcome, err, nil, func(w io.Writer) {
		io.WriteString(w, res.Content)
		if res.Notice != "" {
			fmt.Fprintln(w, ops.Outside(cliNotice(res, path, rng)))
		}
	})
}

// splitSymbol splits "src/a.go#Class.method" into the path and the
// declaration's name; a "#" that names no declaration after it (nothing,
// or a path's separator) is the path's.
func splitSymbol(arg string) (path, symbol string) {
	i := strings.LastIndexByte(arg, '#')
	if i <= 0 || i == len(arg)-1 || strings.ContainsAny(arg[i+1:], `/\:`) {
		return arg, ""
	}
	return arg[:i], arg[i+1:]
}

// parsePathRange splits "src/a.go:10-20" (or ":10" for one line) into a path
// and a 1-based range.
func parsePathRange(arg string) (string, *ledger.Range, error) {
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 || i == len(arg)-1 {
		return arg, nil, nil
	}
	spec := arg[i+1:]
	a, b, hasDash := strings.Cut(spec, "-")
	start, err := strconv.Atoi(a)
	if err != nil {
		return arg, nil, nil // a colon in the file name, not a range
	}
	end := start
	if hasDash {
		if b == "" {
			end = 1 << 30 // "10-": to the end
		} else if end, err = strconv.Atoi(b); err != nil {
			return "", nil, fmt.Errorf("invalid line range %q: want START-END", spec)
		}
	}
	if start < 1 || end < start {
		return "", nil, fmt.Errorf("invalid line range %q: lines are 1-based and START <= END", spec)
	}
	return arg[:i], &ledger.Range{Start: start, End: end}, nil
}

// cliNotice is a truncated read's notice as the CLI says it: the lines to
// read next as the command that reads them (sightline read PATH:20-167,
// PATH as the user wrote it), not as the params of sightline/read.
func cliNotice(res engine.ReadResult, path string, asked *ledger.Range) string {
	cut := ledger.Range{Start: 1, End: res.TotalLines}
	if asked != nil {
		cut.Start, cut.End = asked.Start, min(asked.End, res.TotalLines)
	}
	if res.Range != nil {
		cut.Start = res.Range.End + 1
	}
	next := fmt.Sprintf("read them with `sightline read %s`", shellQuote(fmt.Sprintf("%s:%d-%d", path, cut.Start, cut.End)))
	return strings.Replace(res.Notice, cut.NextHint(), next, 1)
}
